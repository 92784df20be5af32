/** Products (create, read), items (create, read, update/archive) and external references. */
import { badRequest, conflict, notFound } from '../domain/errors.ts';
import { newId, PREFIX } from '../domain/ids.ts';
import {
  applyItemPatch,
  assertArchivable,
  assertPrimaryAvailable,
  ITEM_CODES,
  type ItemPatch,
} from '../domain/items.ts';
import { listAll, TYPES, type Stored } from '../domain/services/store.ts';
import type { BillableMetric, ExternalReference, Fee, Item } from '../domain/types.ts';
import { merchantOf } from '../http/auth.ts';
import type { ResourcePlugin } from '../http/plugin.ts';
import type { Repository } from '../storage/repository.ts';
import { created, lockKey, merchant } from './common.ts';

export interface Product {
  id: string;
  object: 'product';
  name: string;
  description: string;
  merchantId: string;
  metadata: Record<string, unknown>;
  createdAt: string;
  updatedAt: string;
}

/**
 * The product a write is about to point at, locked FOR SHARE until the request's
 * transaction ends (write requests run in one; see server.ts).
 */
export async function requireProduct(repo: Repository, merchantId: string, id: string): Promise<Stored<Product>> {
  const p = await repo.getForShare<Stored<Product>>(TYPES.product, id, merchantId);
  if (!p) throw notFound('Product', id, 'PRODUCT_NOT_FOUND');
  return p;
}

/** The item a write is about to point at, locked FOR SHARE (see requireProduct). */
export async function requireItem(repo: Repository, merchantId: string, id: string): Promise<Stored<Item>> {
  const i = await repo.getForShare<Stored<Item>>(TYPES.item, id, merchantId);
  if (!i) throw notFound('Item', id, 'ITEM_NOT_FOUND');
  return i;
}

/** The item with its external references (archived items stay readable). */
async function itemView(repo: Repository, item: Item) {
  const refs = await listAll<ExternalReference>(repo, TYPES.externalReference, item.merchantId, {
    entityType: 'item',
    entityId: item.id,
  });
  return { ...item, externalReferences: refs };
}

export const productsItemsPlugin: ResourcePlugin = {
  name: 'products-items',
  async register(app, { repo, now }) {
    app.post('/v0/products', { config: { operationId: 'createProduct' } }, async (request, reply) => {
      const body = request.body as {
        name: string;
        description: string;
        merchantId: string;
        metadata?: Record<string, unknown>;
      };
      // The owner must be the key's merchant: another one is 403.
      const m = merchantOf(request, body.merchantId);
      const product = await repo.insert(
        TYPES.product,
        m,
        {
          object: 'product',
          name: body.name,
          description: body.description,
          merchantId: m,
          metadata: body.metadata ?? {},
        },
        { prefix: PREFIX.product, id: newId(PREFIX.product) },
      );
      return created(reply, product);
    });

    app.get('/v0/products/:id', { config: { operationId: 'getProduct' } }, async (request) => {
      const { id } = request.params as { id: string };
      const p = await repo.get<Stored<Product>>(TYPES.product, id, merchant(request));
      if (!p) throw notFound('Product', id, 'PRODUCT_NOT_FOUND');
      return p;
    });

    app.post('/v0/items', { config: { operationId: 'createItem' } }, async (request, reply) => {
      const m = merchant(request);
      const body = request.body as { name: string; catalogId: string; metadata?: Record<string, unknown> };
      await requireProduct(repo, m, body.catalogId);
      const item = await repo.insert<Stored<Item>>(
        TYPES.item,
        m,
        {
          object: 'item',
          merchantId: m,
          name: body.name,
          metadata: body.metadata ?? {},
          catalogId: body.catalogId,
          archivedAt: null,
        },
        { prefix: PREFIX.item, id: newId(PREFIX.item) },
      );
      return created(reply, await itemView(repo, item));
    });

    app.get('/v0/items/:id', { config: { operationId: 'getItem' } }, async (request) => {
      const { id } = request.params as { id: string };
      const item = await repo.get<Stored<Item>>(TYPES.item, id, merchant(request));
      if (!item) throw notFound('Item', id, 'ITEM_NOT_FOUND');
      return itemView(repo, item);
    });

    app.patch('/v0/items/:id', { config: { operationId: 'updateItem' } }, async (request) => {
      const { id } = request.params as { id: string };
      const m = merchant(request);
      const patch = (request.body ?? {}) as ItemPatch;
      const item = await repo.transaction(async (tx) => {
        await lockKey(tx, `item:${m}`);
        const current = await tx.getForUpdate<Stored<Item>>(TYPES.item, id, m);
        if (!current) throw notFound('Item', id, 'ITEM_NOT_FOUND');
        if (patch.catalogId !== undefined) await requireProduct(tx, m, patch.catalogId);
        if (patch.archived === true && current.archivedAt === null) {
          const metrics = await listAll<BillableMetric>(tx, TYPES.billableMetric, m, { itemId: id, status: 'live' });
          const fees = await listAll<Fee>(tx, TYPES.fee, m, { itemId: id });
          assertArchivable(current, metrics, fees);
        }
        const refs = await listAll<ExternalReference>(tx, TYPES.externalReference, m, {
          entityType: 'item',
          entityId: id,
        });
        const at = now().toISOString();
        const { item: next, demoted } = applyItemPatch(current, patch, refs, at);
        for (const refId of demoted) await tx.update(TYPES.externalReference, refId, m, { isPrimary: false });
        return tx.update<Stored<Item>>(TYPES.item, id, m, () => next as Stored<Item>);
      });
      return itemView(repo, item!);
    });

    app.post(
      '/v0/externalReferences',
      { config: { operationId: 'createExternalReference' } },
      async (request, reply) => {
        const m = merchant(request);
        const body = request.body as {
          entityType: 'item';
          entityId: string;
          provider: string;
          externalId: string;
          isPrimary?: boolean;
          isDefault?: boolean;
          externalLabel?: string;
          metadata?: Record<string, unknown>;
        };
        const ref = await repo.transaction(async (tx) => {
          await lockKey(tx, `item:${m}`);
          const item = await requireItem(tx, m, body.entityId);
          const isPrimary = body.isPrimary === true;
          if (isPrimary) {
            if (item.archivedAt !== null) {
              throw conflict(
                ITEM_CODES.itemArchived,
                `item ${item.id} is archived: it cannot take a primary external reference`,
              );
            }
            const holders = await listAll<ExternalReference>(tx, TYPES.externalReference, m, {
              externalId: body.externalId,
              provider: body.provider,
              isPrimary: true,
            });
            assertPrimaryAvailable({ externalId: body.externalId, entityId: item.id }, holders);
          }
          if (body.externalId.length > 1000)
            throw badRequest('EXTERNAL_ID_TOO_LONG', 'externalId: at most 1000 characters');
          const data: Record<string, unknown> = {
            object: 'externalReference',
            merchantId: m,
            entityType: 'item',
            entityId: item.id,
            provider: body.provider,
            externalId: body.externalId,
            metadata: body.metadata ?? {},
            isPrimary,
            isDefault: body.isDefault === true,
          };
          if (body.externalLabel !== undefined) data.externalLabel = body.externalLabel;
          return tx.insert(TYPES.externalReference, m, data, {
            prefix: PREFIX.externalReference,
            id: newId(PREFIX.externalReference),
          });
        });
        return created(reply, ref);
      },
    );
  },
};
