/**
 * Errors raised by the domain services. DomainError is the platform's ApiError with a
 * mandatory UPPER_SNAKE_CASE code, so the one error handler renders the document's Error
 * shape {error, message, code, details?} with `statusCode` as the status.
 */
import { ApiError } from '../errors.ts';

export class DomainError extends ApiError {
  declare readonly code: string;
  constructor(statusCode: number, code: string, message: string, details?: Record<string, unknown>) {
    super(statusCode, message, { code, details });
    this.name = 'DomainError';
  }
}

export const notFound = (what: string, id: string, code = 'RESOURCE_NOT_FOUND') =>
  new DomainError(404, code, `${what} ${id} not found`);

export const badRequest = (code: string, message: string, details?: Record<string, unknown>) =>
  new DomainError(400, code, message, details);

export const conflict = (code: string, message: string, details?: Record<string, unknown>) =>
  new DomainError(409, code, message, details);
