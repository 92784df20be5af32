import type { Db } from '../storage/db.ts';
import { newId } from '../storage/ids.ts';
import { createApiKey, hashSecret } from './keys.ts';

export type MerchantView = Record<string, unknown> & { id: string };

/** Creates a merchant organization (`org_` id); `parentId` is the merchant whose key created it. */
export async function createMerchant(
  db: Db,
  fields: Record<string, unknown>,
  parentId: string | null,
  now = new Date(),
): Promise<MerchantView> {
  const id = newId('org');
  const at = now.toISOString();
  const view: MerchantView = { metadata: {}, ...fields, id, object: 'merchant', createdAt: at, updatedAt: at };
  await db.query('INSERT INTO merchants (id, parent_id, data, created_at, updated_at) VALUES ($1, $2, $3, $4, $4)', [
    id,
    parentId,
    JSON.stringify(view),
    now,
  ]);
  return view;
}

export async function getMerchant(db: Db, id: string): Promise<MerchantView | null> {
  const { rows } = await db.query<{ data: MerchantView }>('SELECT data FROM merchants WHERE id = $1', [id]);
  return rows[0]?.data ?? null;
}

/**
 * True when a key of `callerId` may act on merchant `targetId`: its own merchant, or
 * one that its merchant created through POST /v0/merchants.
 */
export async function canManageMerchant(db: Db, callerId: string, targetId: string): Promise<boolean> {
  if (callerId === targetId) return true;
  const { rows } = await db.query('SELECT 1 FROM merchants WHERE id = $1 AND parent_id = $2', [targetId, callerId]);
  return rows.length > 0;
}

export const SANDBOX_MERCHANT_NAME = 'Conform sandbox merchant';

/**
 * Makes sure the bootstrap key exists and returns its merchant. Idempotent: on a
 * persistent database the key found by its digest keeps its merchant; a new key
 * gets a new sandbox merchant. Safe when several processes start at once.
 */
export async function ensureSandboxMerchant(db: Db, apiKey: string): Promise<string> {
  return db.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock($1)', [7_301_452_119]);
    const { rows } = await tx.query<{ merchant_id: string; revoked: boolean }>(
      'SELECT merchant_id, revoked_at IS NOT NULL AS revoked FROM api_keys WHERE secret_sha256 = $1',
      [hashSecret(apiKey)],
    );
    if (rows[0]) {
      // The operator's key is the way in: a bootstrap key revoked through the API comes back.
      if (rows[0].revoked)
        await tx.query('UPDATE api_keys SET revoked_at = NULL WHERE secret_sha256 = $1', [hashSecret(apiKey)]);
      return rows[0].merchant_id;
    }
    const merchant = await createMerchant(
      tx,
      {
        name: SANDBOX_MERCHANT_NAME,
        email: 'sandbox@example.com',
        description: 'Bootstrapped by conform serve',
        metadata: {},
      },
      null,
    );
    await createApiKey(tx, { merchantId: merchant.id, name: 'bootstrap', scope: 'full', secret: apiKey });
    return merchant.id;
  });
}
