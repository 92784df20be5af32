import type { FastifyError, FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError, ERROR_CATEGORY } from '../errors.ts';
import { DatabaseUnavailableError, isRetryable } from '../storage/db.ts';

/** Fastify's own errors, mapped to a status and a message a client can act on. */
function fromFastify(err: FastifyError): ApiError | null {
  switch (err.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new ApiError(415, 'Unsupported content type: send application/json');
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ApiError(413, 'Request body is too large');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new ApiError(400, 'Content-Length does not match the body');
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new ApiError(400, 'Malformed JSON body', { code: 'MALFORMED_JSON' });
  }
  if (err instanceof SyntaxError || (err as any).statusCode === 400) {
    return new ApiError(400, `Malformed request: ${err.message}`);
  }
  const status = err.statusCode;
  if (status && status >= 400 && status < 500)
    return new ApiError(status, err.message || ERROR_CATEGORY[status] || 'Bad request');
  return null;
}

/**
 * PostgreSQL class 22 "data exception" (bad text encoding, numeric overflow, value too
 * long...) can only come from a value the client sent: a 400, never a 500.
 */
function fromDatabase(err: unknown): ApiError | null {
  // A lost or refused database connection: the server goes on, and answers again once the database does.
  if (err instanceof DatabaseUnavailableError) {
    return err.inDoubt
      ? new ApiError(
          503,
          'The database connection was lost while this change was being committed: it may or may not be stored; ' +
            'read it back before retrying',
          { code: 'COMMIT_OUTCOME_UNKNOWN', headers: { 'retry-after': '1' } },
        )
      : new ApiError(503, 'The database is unavailable or too busy to answer: retry shortly', {
          code: 'DATABASE_UNAVAILABLE',
          headers: { 'retry-after': '1' },
        });
  }
  const code = (err as { code?: unknown })?.code;
  const severity = (err as { severity?: unknown })?.severity;
  // Still a deadlock or serialization failure after every retry (storage/pg.ts): contention, not a bug.
  if (isRetryable(err) && severity !== undefined) {
    return new ApiError(503, 'Too many concurrent changes to the same resources: retry shortly', {
      code: 'SERVER_BUSY',
      headers: { 'retry-after': '1' },
    });
  }
  if (typeof code === 'string' && /^22[0-9A-Z]{3}$/.test(code) && severity !== undefined) {
    return new ApiError(400, 'A value in the request cannot be stored', { code: 'INVALID_VALUE' });
  }
  return null;
}

/**
 * One line per 5xx answer: status, method, path, request id (the x-request-id header of
 * the answer) and the cause. The bearer key never appears in it, even where a cause quotes it.
 */
export function serverErrorLine(request: FastifyRequest, status: number, cause: unknown): string {
  const e = cause as { name?: string; message?: string; code?: string } | null;
  const what = `${e?.name ?? 'Error'}${e?.code ? ` ${e.code}` : ''}: ${e?.message ?? String(cause)}`;
  let line =
    `conform reference: ${status} ${request.method} ${request.url.split('?')[0]} request ${request.id}: ${what}`.replace(
      /[\r\n]+/g,
      ' ',
    );
  const key = BEARER_VALUE.exec(request.headers.authorization ?? '')?.[1];
  if (key) line = line.split(key).join('[redacted]');
  return line.replace(/\b(sk_[A-Za-z0-9_]{6})[A-Za-z0-9_]+/g, '$1[redacted]');
}

const BEARER_VALUE = /^\s*Bearer\s+(\S+)/i;

/** The one place errors become responses: Error or ValidationError shape, never a stack. */
export function installErrorHandler(app: FastifyInstance, log: (line: string) => void): void {
  app.setErrorHandler((raw: FastifyError, request, reply) => {
    const err = raw instanceof ApiError ? raw : (fromDatabase(raw) ?? fromFastify(raw));
    if (!err) {
      log(serverErrorLine(request, 500, raw));
      request.log.error({ err: raw, operationId: request.routeOptions.config?.operationId }, 'unhandled error');
      return reply
        .code(500)
        .type('application/json')
        .send({ error: 'internal_error', message: 'Internal server error' });
    }
    if (err.statusCode >= 500) log(serverErrorLine(request, err.statusCode, raw));
    if (err.headers) reply.headers(err.headers);
    return reply.code(err.statusCode).type('application/json').send(err.toBody());
  });

  app.setNotFoundHandler((request, reply) => {
    reply
      .code(404)
      .type('application/json')
      .send({ error: 'not_found', message: `No route for ${request.method} ${request.url.split('?')[0]}` });
  });
}
