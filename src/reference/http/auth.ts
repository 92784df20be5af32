import type { FastifyReply, FastifyRequest } from 'fastify';
import { authenticate, refusedKeyInfo } from '../auth/keys.ts';
import { forbidden, unauthorized } from '../errors.ts';
import type { Db } from '../storage/db.ts';

const BEARER = /^Bearer +([\x21-\x7e]{1,512}) *$/i;

/** onRequest: resolves `Authorization: Bearer <key>` to `request.auth`, or answers 401. */
export function authHook(db: Db) {
  return async function auth(request: FastifyRequest, _reply: FastifyReply): Promise<void> {
    const config = request.routeOptions.config;
    if (!config?.operationId || config.public) return; // 404s and public routes
    const header = request.headers.authorization;
    if (!header) throw unauthorized('Missing API key: send Authorization: Bearer <API_KEY>');
    const key = presentedKey(request);
    if (!key) throw unauthorized('Malformed Authorization header: expected Bearer <API_KEY>');
    const ctx = await authenticate(db, key);
    if (!ctx) {
      // The log names the refused key (revoked when, or unknown): a 401 a client did not expect can be traced.
      if (logsInfo(request)) request.log.info({ refusedKey: await refusedKeyInfo(db, key) }, 'api key refused');
      throw unauthorized('Invalid or revoked API key');
    }
    request.auth = ctx;
  };
}

/** The bearer key the request carries, when well-formed (the auth hook has checked it before any handler). */
export function presentedKey(request: FastifyRequest): string | undefined {
  return BEARER.exec(request.headers.authorization ?? '')?.[1];
}

/** True when the server logs (`conform serve --log`); without a logger the lookup is skipped. */
export function logsInfo(request: FastifyRequest): boolean {
  const log = request.log as { isLevelEnabled?: (level: string) => boolean };
  return typeof log.isLevelEnabled === 'function' && log.isLevelEnabled('info');
}

const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** onRequest, after rate limiting: a `read_only` key may only read (the reference's forbidden action). */
export async function scopeHook(request: FastifyRequest): Promise<void> {
  if (request.auth?.scope === 'read_only' && !READ_METHODS.has(request.method)) {
    throw forbidden('This API key is read-only: it may not perform write requests');
  }
}

/** The merchant a request acts for: `requested` when the key may act for it, else 403. */
export function merchantOf(request: FastifyRequest, requested?: string | null): string {
  const own = request.auth?.merchantId;
  if (!own) throw unauthorized();
  if (requested !== undefined && requested !== null && requested !== own) {
    throw forbidden(`This API key belongs to merchant ${own} and may not act for merchant ${requested}`);
  }
  return own;
}
