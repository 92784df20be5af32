import { createHash } from 'node:crypto';
import type { Db } from '../storage/db.ts';
import { newId, randomAlphanumeric } from '../storage/ids.ts';

export type KeyScope = 'full' | 'read_only';

/** The caller, once its bearer key is known. */
export interface AuthContext {
  merchantId: string;
  keyId: string;
  scope: KeyScope;
}

/** Only this digest is stored; the secret itself is shown once, at creation. */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/** `sk_test_` + 32 alphanumerics. */
export function newSecret(): string {
  return `sk_test_${randomAlphanumeric(32)}`;
}

/** First characters, enough to recognise a key in a list without revealing it. */
function hint(secret: string): string {
  return `${secret.slice(0, 12)}...`;
}

interface KeyRow {
  id: string;
  merchant_id: string;
  name: string | null;
  scope: KeyScope;
  secret_hint: string;
  created_at: Date | string;
  revoked_at: Date | string | null;
}

const iso = (v: Date | string | null) => (v === null ? null : new Date(v).toISOString());

/** The `api_key` representation; `secret` only right after creation. */
export function apiKeyView(row: KeyRow, secret?: string): Record<string, unknown> {
  const view: Record<string, unknown> = {
    id: row.id,
    object: 'api_key',
    merchantId: row.merchant_id,
    name: row.name,
    scope: row.scope,
    secretHint: row.secret_hint,
    createdAt: iso(row.created_at),
    revokedAt: iso(row.revoked_at),
  };
  if (secret) view.secret = secret;
  return view;
}

/** Stores a key for `merchantId`; `secret` defaults to a fresh random one. */
export async function createApiKey(
  db: Db,
  input: { merchantId: string; name?: string | null; scope?: KeyScope; secret?: string },
): Promise<{ key: Record<string, unknown>; secret: string }> {
  const secret = input.secret ?? newSecret();
  const { rows } = await db.query<KeyRow>(
    `INSERT INTO api_keys (id, merchant_id, name, scope, secret_sha256, secret_hint) VALUES ($1, $2, $3, $4, $5, $6)
     RETURNING id, merchant_id, name, scope, secret_hint, created_at, revoked_at`,
    [newId('key'), input.merchantId, input.name ?? null, input.scope ?? 'full', hashSecret(secret), hint(secret)],
  );
  return { key: apiKeyView(rows[0], secret), secret };
}

/**
 * Live keys by digest, for databases only this process can open (PGlite): there every
 * revocation goes through `revokeApiKey` below, which evicts. On PostgreSQL another
 * process may revoke a key, so every request asks the database.
 */
const caches = new WeakMap<Db, Map<string, AuthContext>>();
const CACHE_MAX = 10_000;

/** The live key with this secret, or null (unknown or revoked). */
export async function authenticate(db: Db, secret: string): Promise<AuthContext | null> {
  const digest = hashSecret(secret);
  const cache = db.kind === 'postgres' ? undefined : (caches.get(db) ?? caches.set(db, new Map()).get(db)!);
  const hit = cache?.get(digest);
  if (hit) return hit;
  const ctx = await lookup(db, digest);
  if (ctx && cache) {
    if (cache.size >= CACHE_MAX) cache.clear();
    cache.set(digest, ctx);
  }
  return ctx;
}

async function lookup(db: Db, digest: string): Promise<AuthContext | null> {
  const { rows } = await db.query<{ id: string; merchant_id: string; scope: KeyScope }>(
    'SELECT id, merchant_id, scope FROM api_keys WHERE secret_sha256 = $1 AND revoked_at IS NULL',
    [digest],
  );
  const r = rows[0];
  return r ? { keyId: r.id, merchantId: r.merchant_id, scope: r.scope } : null;
}

/**
 * What a refused bearer key was, for the operator's log (`conform serve --log`): the key it
 * names and when that key was revoked, or unknown. Never the secret.
 */
export async function refusedKeyInfo(
  db: Db,
  secret: string,
): Promise<{ keyId: string; revokedAt: string | null } | 'unknown'> {
  const { rows } = await db.query<{ id: string; revoked_at: Date | string | null }>(
    'SELECT id, revoked_at FROM api_keys WHERE secret_sha256 = $1',
    [hashSecret(secret)],
  );
  return rows[0] ? { keyId: rows[0].id, revokedAt: iso(rows[0].revoked_at) } : 'unknown';
}

/** Revokes key `id` if it belongs to one of `merchantIds`; returns its view, or null when not found. */
export async function revokeApiKey(db: Db, id: string, merchantIds: string[]): Promise<Record<string, unknown> | null> {
  const { rows } = await db.query<KeyRow>(
    `UPDATE api_keys SET revoked_at = COALESCE(revoked_at, now()) WHERE id = $1 AND merchant_id = ANY($2::text[])
     RETURNING id, merchant_id, name, scope, secret_hint, created_at, revoked_at`,
    [id, merchantIds],
  );
  const cache = caches.get(db);
  if (cache) for (const [digest, ctx] of cache) if (ctx.keyId === id) cache.delete(digest);
  return rows[0] ? apiKeyView(rows[0]) : null;
}
