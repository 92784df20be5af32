import type { FastifyError, FastifyInstance } from 'fastify';
import { ApiError, ERROR_CATEGORY } from '../errors.ts';

/** Fastify's own errors, mapped to a status and a message a client can act on. */
function fromFastify(err: FastifyError): ApiError | null {
  switch (err.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new ApiError(415, 'Unsupported content type: send application/json');
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ApiError(413, 'Request body is too large');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new ApiError(400, 'Content-Length does not match the body');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new ApiError(400, 'Empty JSON body');
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new ApiError(400, 'Malformed JSON body', { code: 'MALFORMED_JSON' });
  }
  if (err instanceof SyntaxError || (err as any).statusCode === 400) {
    return new ApiError(400, `Malformed request: ${err.message}`);
  }
  const status = err.statusCode;
  if (status && status >= 400 && status < 500) return new ApiError(status, err.message || ERROR_CATEGORY[status] || 'Bad request');
  return null;
}

/**
 * PostgreSQL class 22 "data exception" (bad text encoding, numeric overflow, value too
 * long...) can only come from a value the client sent: a 400, never a 500.
 */
function fromDatabase(err: unknown): ApiError | null {
  const code = (err as { code?: unknown })?.code;
  const severity = (err as { severity?: unknown })?.severity;
  if (typeof code === 'string' && /^22[0-9A-Z]{3}$/.test(code) && severity !== undefined) {
    return new ApiError(400, 'A value in the request cannot be stored', { code: 'INVALID_VALUE' });
  }
  return null;
}

/** The one place errors become responses: Error or ValidationError shape, never a stack. */
export function installErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((raw: FastifyError, request, reply) => {
    const err = raw instanceof ApiError ? raw : (fromDatabase(raw) ?? fromFastify(raw));
    if (!err) {
      request.log.error({ err: raw, operationId: request.routeOptions.config?.operationId }, 'unhandled error');
      return reply.code(500).type('application/json').send({ error: 'internal_error', message: 'Internal server error' });
    }
    if (err.headers) reply.headers(err.headers);
    return reply.code(err.statusCode).type('application/json').send(err.toBody());
  });

  app.setNotFoundHandler((request, reply) => {
    reply.code(404).type('application/json').send({ error: 'not_found', message: `No route for ${request.method} ${request.url.split('?')[0]}` });
  });
}
