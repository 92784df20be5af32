/**
 * Errors raised by the domain services. The HTTP layer turns them into the document's
 * Error shape: {error, message, code?, details?} with `statusCode` as the status.
 */
export const ERROR_CATEGORY: Record<number, string> = {
  400: 'bad_request',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  409: 'conflict',
  413: 'payload_too_large',
  422: 'unprocessable_entity',
  429: 'rate_limit_exceeded',
};

export class DomainError extends Error {
  readonly error: string;
  constructor(
    readonly statusCode: number,
    readonly code: string,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'DomainError';
    this.error = ERROR_CATEGORY[statusCode] ?? 'error';
  }

  /** The Error body of the document. */
  toBody(): { error: string; message: string; code: string; details?: Record<string, unknown> } {
    const body: { error: string; message: string; code: string; details?: Record<string, unknown> } = {
      error: this.error,
      message: this.message,
      code: this.code,
    };
    if (this.details) body.details = this.details;
    return body;
  }
}

export const notFound = (what: string, id: string, code = 'RESOURCE_NOT_FOUND') =>
  new DomainError(404, code, `${what} ${id} not found`);

export const badRequest = (code: string, message: string, details?: Record<string, unknown>) =>
  new DomainError(400, code, message, details);

export const conflict = (code: string, message: string, details?: Record<string, unknown>) =>
  new DomainError(409, code, message, details);
