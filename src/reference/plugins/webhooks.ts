/**
 * Webhook delivery configuration, one per merchant: first enablement (extension), PATCH
 * toggling delivery (404 when never enabled; endpoints and subscriptions are kept), and
 * the kept endpoints (extension).
 */
import type { FastifyRequest } from 'fastify';
import { canManageMerchant } from '../auth/merchants.ts';
import { DomainError } from '../domain/errors.ts';
import { newId, PREFIX } from '../domain/ids.ts';
import { listAll, TYPES, type Stored } from '../domain/services/store.ts';
import { forbidden } from '../errors.ts';
import type { ResourcePlugin } from '../http/plugin.ts';
import type { Db } from '../storage/db.ts';
import { listEnvelope, lockKey } from './common.ts';

interface WebhooksConfig {
  object: 'webhooks';
  applicationId: string;
  enabled: boolean;
  merchantId: string;
  createdAt: string;
  updatedAt: string;
}

interface Endpoint {
  id: string;
  object: 'webhook_endpoint';
  url: string;
  eventTypes: string[];
  createdAt: string;
}

export const WEBHOOK_CODES = { neverEnabled: 'WEBHOOKS_NOT_ENABLED' } as const;

/** One configuration per merchant, under an id derived from the merchant id. */
export function configId(merchantId: string): string {
  return `whcfg_${merchantId.replace(/[^a-zA-Z0-9]/g, '')}`;
}

/** The documented representation: no storage id. */
function configView(c: Stored<WebhooksConfig>) {
  return {
    object: 'webhooks',
    applicationId: c.applicationId,
    createdAt: c.createdAt,
    enabled: c.enabled,
    merchantId: c.merchantId,
    updatedAt: c.updatedAt,
  };
}

function endpointView(e: Stored<Endpoint>) {
  return { object: 'webhook_endpoint', id: e.id, url: e.url, eventTypes: e.eventTypes, createdAt: e.createdAt };
}

/** merchantId defaults to the key's merchant; another one must be a merchant it created, else 403. */
async function targetMerchant(db: Db, request: FastifyRequest, requested?: string): Promise<string> {
  const own = request.auth!.merchantId;
  if (!requested || requested === own) return own;
  if (await canManageMerchant(db, own, requested)) return requested;
  throw forbidden(`This API key belongs to merchant ${own} and may not manage webhooks of merchant ${requested}`);
}

const neverEnabled = (m: string) =>
  new DomainError(404, WEBHOOK_CODES.neverEnabled, `Webhooks were never enabled for merchant ${m}`);

export const webhooksPlugin: ResourcePlugin = {
  name: 'webhooks',
  async register(app, { repo, db }) {
    app.post('/v0/webhooks', { config: { operationId: 'enableWebhooks' } }, async (request, reply) => {
      const body = request.body as { merchantId?: string; endpoints: Array<{ url: string; eventTypes: string[] }> };
      const m = await targetMerchant(db, request, body.merchantId);
      const id = configId(m);
      const { config, created } = await repo.transaction(async (tx) => {
        await lockKey(tx, id);
        const existing = await tx.getForUpdate<Stored<WebhooksConfig>>(TYPES.webhooks, id, m);
        const kept = await listAll<Endpoint>(tx, TYPES.webhookEndpoint, m);
        const urls = new Set(kept.map((e) => e.url));
        for (const e of body.endpoints) {
          if (urls.has(e.url)) continue;
          urls.add(e.url);
          await tx.insert(
            TYPES.webhookEndpoint,
            m,
            { object: 'webhook_endpoint', url: e.url, eventTypes: [...e.eventTypes] },
            { prefix: PREFIX.webhookEndpoint, id: newId(PREFIX.webhookEndpoint) },
          );
        }
        if (existing) {
          const updated = existing.enabled
            ? existing
            : await tx.update<Stored<WebhooksConfig>>(TYPES.webhooks, id, m, { enabled: true });
          return { config: updated!, created: false };
        }
        const config = await tx.insert<Stored<WebhooksConfig>>(
          TYPES.webhooks,
          m,
          {
            object: 'webhooks',
            applicationId: newId(PREFIX.webhookApplication),
            enabled: true,
            merchantId: m,
          },
          { prefix: 'whcfg', id },
        );
        return { config, created: true };
      });
      reply.code(created ? 201 : 200);
      return configView(config);
    });

    app.patch('/v0/webhooks', { config: { operationId: 'updateWebhooks' } }, async (request) => {
      const { merchantId } = request.query as { merchantId?: string };
      const m = await targetMerchant(db, request, merchantId);
      const { enabled } = request.body as { enabled: boolean };
      const updated = await repo.update<Stored<WebhooksConfig>>(TYPES.webhooks, configId(m), m, { enabled });
      if (!updated) throw neverEnabled(m);
      return configView(updated);
    });

    app.get('/v0/webhooks/endpoints', { config: { operationId: 'listWebhookEndpoints' } }, async (request) => {
      const { merchantId } = request.query as { merchantId?: string };
      const m = await targetMerchant(db, request, merchantId);
      if (!(await repo.get(TYPES.webhooks, configId(m), m))) throw neverEnabled(m);
      const endpoints = (await listAll<Endpoint>(repo, TYPES.webhookEndpoint, m)).map(endpointView);
      return listEnvelope(endpoints, Math.max(endpoints.length, 1), 0, endpoints.length);
    });
  },
};
