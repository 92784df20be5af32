import { createMerchant, canManageMerchant, getMerchant } from '../auth/merchants.ts';
import { notFound } from '../domain/errors.ts';
import type { ResourcePlugin } from '../http/plugin.ts';
import { created } from './common.ts';

const MERCHANT_FIELDS = [
  'name',
  'email',
  'description',
  'metadata',
  'vatNumber',
  'address',
  'billingAddress',
  'phone',
  'organizationId',
] as const;

/**
 * POST /v0/merchants creates a merchant organization recorded as created by the
 * caller's merchant; GET /v0/merchants/{id} reads the caller's own merchant or one it
 * created (any other id is 404).
 *
 * The pattern every plugin follows: `config.operationId` names the spec operation, so
 * auth, rate limits and validation (path, query, body) happen before the handler runs;
 * the handler reads `request.auth.merchantId` and throws errors from ../domain/errors.ts.
 */
export const merchantsPlugin: ResourcePlugin = {
  name: 'merchants',
  async register(app, { db, now }) {
    app.post('/v0/merchants', { config: { operationId: 'createMerchant' } }, async (request, reply) => {
      const body = (request.body ?? {}) as Record<string, unknown>;
      const fields: Record<string, unknown> = {};
      for (const k of MERCHANT_FIELDS) if (body[k] !== undefined) fields[k] = body[k];
      fields.name ??= 'Unnamed merchant';
      const merchant = await createMerchant(db, fields, request.auth!.merchantId, now());
      return created(reply, merchant);
    });

    app.get('/v0/merchants/:id', { config: { operationId: 'getMerchant' } }, async (request) => {
      const { id } = request.params as { id: string };
      const merchant = (await canManageMerchant(db, request.auth!.merchantId, id)) ? await getMerchant(db, id) : null;
      if (!merchant) throw notFound('Merchant', id);
      return merchant;
    });
  },
};
