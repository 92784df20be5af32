/**
 * Errors the reference server answers with. Throw an `ApiError` anywhere in a hook or
 * handler; the one error handler (http/errorHandler.ts) turns it into the document's
 * Error shape `{error, message, code?, details?}` or ValidationError shape.
 */

/** Coarse `error` category per status (the document's examples, plus the obvious rest). */
export const ERROR_CATEGORY: Record<number, string> = {
  400: 'bad_request',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  405: 'method_not_allowed',
  409: 'conflict',
  413: 'payload_too_large',
  414: 'uri_too_long',
  415: 'unsupported_media_type',
  422: 'unprocessable_entity',
  429: 'rate_limit_exceeded',
  500: 'internal_error',
  503: 'service_unavailable',
};

export interface FieldError {
  /** `body.externalId`, `query.limit`, `path.id`. */
  field: string;
  message: string;
  code?: string;
}

export class ApiError extends Error {
  readonly statusCode: number;
  readonly error: string;
  readonly code?: string;
  readonly details?: Record<string, unknown>;
  /** Extra response headers (retry-after...). */
  readonly headers?: Record<string, string>;

  constructor(
    statusCode: number,
    message: string,
    opts: { error?: string; code?: string; details?: Record<string, unknown>; headers?: Record<string, string> } = {},
  ) {
    super(message);
    this.name = 'ApiError';
    this.statusCode = statusCode;
    this.error = opts.error ?? ERROR_CATEGORY[statusCode] ?? (statusCode >= 500 ? 'internal_error' : 'bad_request');
    this.code = opts.code;
    this.details = opts.details;
    this.headers = opts.headers;
  }

  toBody(): Record<string, unknown> {
    const body: Record<string, unknown> = { error: this.error, message: this.message };
    if (this.code) body.code = this.code;
    if (this.details) body.details = this.details;
    return body;
  }
}

/** 400 ValidationError: `{error: 'validation_error', message, errors: [{field, message, code}]}`. */
export class ValidationError extends ApiError {
  readonly errors: FieldError[];
  constructor(errors: FieldError[], message?: string) {
    super(400, message ?? `Invalid request: ${errors.map((e) => e.field).join(', ')}`, { error: 'validation_error' });
    this.errors = errors;
  }
  override toBody(): Record<string, unknown> {
    return { error: this.error, message: this.message, errors: this.errors };
  }
}

export const unauthorized = (message = 'Missing or invalid API key') => new ApiError(401, message);
export const forbidden = (message = 'This API key may not perform this action') => new ApiError(403, message);
// 400, 404 and 409 with a code: domain/errors.ts (badRequest, notFound, conflict).
