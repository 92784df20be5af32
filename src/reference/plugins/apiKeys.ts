import { createApiKey, revokeApiKey, type KeyScope } from '../auth/keys.ts';
import { canManageMerchant } from '../auth/merchants.ts';
import { HANDSHAKE_ALGORITHM, HANDSHAKE_PATH, handshakeSignature } from '../../contract/handshake.ts';
import { forbidden, unauthorized } from '../errors.ts';
import { presentedKey } from '../http/auth.ts';
import { notFound } from '../domain/errors.ts';
import type { ResourcePlugin } from '../http/plugin.ts';
import { created, noContent } from './common.ts';

/**
 * Reference extension: API keys. POST creates a key for the caller's merchant or for a
 * merchant it created (`merchantId`), returning the secret once; DELETE revokes a key
 * of either, after which requests with it get 401. The handshake signs a challenge with the
 * key the request carries, so that a run can tell this server from a mock of its document.
 */
export const apiKeysPlugin: ResourcePlugin = {
  name: 'apiKeys',
  async register(app, { db }) {
    app.post('/v0/apiKeys', { config: { operationId: 'createApiKey' } }, async (request, reply) => {
      const body = (request.body ?? {}) as { name?: string; scope?: KeyScope; merchantId?: string };
      const own = request.auth!.merchantId;
      const merchantId = body.merchantId ?? own;
      if (!(await canManageMerchant(db, own, merchantId))) {
        throw forbidden(`This API key may not create keys for merchant ${merchantId}`);
      }
      const { key } = await createApiKey(db, { merchantId, name: body.name ?? null, scope: body.scope ?? 'full' });
      request.log.info({ apiKey: { keyId: key.id, name: key.name, merchantId, scope: key.scope } }, 'api key created');
      return created(reply, key);
    });

    app.delete('/v0/apiKeys/:id', { config: { operationId: 'revokeApiKey' } }, async (request, reply) => {
      const { id } = request.params as { id: string };
      const own = request.auth!.merchantId;
      const { rows } = await db.query<{ id: string }>('SELECT id FROM merchants WHERE id = $1 OR parent_id = $1', [
        own,
      ]);
      const key = await revokeApiKey(
        db,
        id,
        rows.map((r) => r.id),
      );
      if (!key) throw notFound('API key', id);
      request.log.info({ apiKey: { keyId: key.id, name: key.name, revokedAt: key.revokedAt } }, 'api key revoked');
      return noContent(reply);
    });

    app.post(HANDSHAKE_PATH, { config: { operationId: 'referenceHandshake' } }, async (request) => {
      const { challenge } = request.body as { challenge: string };
      const key = presentedKey(request);
      if (!key) throw unauthorized();
      return {
        object: 'reference_handshake',
        challenge,
        algorithm: HANDSHAKE_ALGORITHM,
        signature: handshakeSignature(key, challenge),
      };
    });
  },
};
