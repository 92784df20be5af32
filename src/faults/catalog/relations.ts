/**
 * Relations, shapes by a field, numbered things, and answers that disagree: a field naming the
 * wrong resource, a price whose properties lose their model's shape, versions numbered from 0,
 * and a create answering an id that then reads 404. Each is an instance of a property the
 * suites judge for every resource (x-resource relations, the schema's if/then by model, the
 * bounds the document states, created means there), not of one field.
 */
import type { ProxyRequest } from '../fault-proxy.ts';
import { bodyOf, expectAll, fault, got, is2xx, isObj, json, R, req, stateMap, T0, type Json } from './helpers.ts';
import { MERCHANTS_PRODUCTS_SUITES, type CatalogFault } from './types.ts';

const pathOnly = (r: ProxyRequest) => r.path.split('?')[0];

const item: Json = {
  object: 'item',
  id: 'itm_demo1',
  merchantId: 'org_demo1',
  name: 'Seat',
  catalogId: 'prod_demo1',
  metadata: {},
  externalReferences: [
    { id: 'xref_1', object: 'externalReference', entityType: 'item', entityId: 'itm_demo1', isPrimary: true },
  ],
  archivedAt: null,
  createdAt: T0,
  updatedAt: T0,
};

const standardPrice: Json = {
  object: 'price',
  id: 'price_demo1',
  merchantId: 'org_demo1',
  model: 'standard',
  paymentTerm: 'in_arrears',
  currency: 'USD',
  properties: { unitPrice: '12.50' },
  createdAt: T0,
  updatedAt: T0,
};

const migration = (to: number): Json => ({
  subscription: {
    object: 'subscription',
    id: 'sub_demo1',
    versionPolicy: 'pinned',
    versionNumber: 3,
    planVersionId: 'pv_3',
  },
  migration: { fromVersionNumber: 3, toVersionNumber: to, effectiveAt: T0, changed: to !== 3 },
  lineItems: { syncFailed: false },
});

/** Every subscription representation in an answer: the body itself, or the migration answer's `subscription`. */
function subscriptionsIn(b: Json | undefined): Json[] {
  if (!b) return [];
  if (b.object === 'subscription') return [b];
  return isObj(b.subscription) && b.subscription.object === 'subscription' ? [b.subscription] : [];
}

export const relationFaults: CatalogFault[] = [
  fault({
    name: 'items-references-name-product',
    area: 'items',
    description:
      "an item's external references name its product (entityType product, entityId the item's catalogId) instead of the item holding them",
    rules: ['CONV.RELATIONS.NAME_RIGHT'],
    suites: ['items'],
    onResponse(r, res, ctx) {
      const b = bodyOf(res);
      if (!R.item.test(pathOnly(r)) || !is2xx(res) || b?.object !== 'item' || !Array.isArray(b.externalReferences))
        return;
      for (const x of b.externalReferences.filter(isObj)) {
        x.entityType = 'product';
        x.entityId = b.catalogId;
      }
      if (b.externalReferences.length) ctx.applied();
    },
    demo: {
      steps: [{ req: req('GET', '/v0/items/itm_demo1'), res: json(200, structuredClone(item)) }],
      verify: (o) => {
        const x = got(o)?.externalReferences?.[0];
        return expectAll([
          x?.entityId === 'prod_demo1' && x?.entityType === 'product',
          `reference ${JSON.stringify(x)}`,
        ]);
      },
    },
  }),
  fault({
    name: 'prices-standard-without-unit-price',
    area: 'merchants-products',
    description:
      "a standard price's properties hold its unit price under `amount` instead of `unitPrice` " +
      "(the document: 'Also unitPrice for standard')",
    rules: ['SCHEMA.RESPONSE.MATCHES'],
    suites: ['prices'],
    onResponse(r, res, ctx) {
      const b = bodyOf(res);
      if (!R.price.test(pathOnly(r)) || !is2xx(res) || b?.model !== 'standard' || !isObj(b.properties)) return;
      if (b.properties.unitPrice === undefined) return;
      b.properties.amount = b.properties.unitPrice;
      delete b.properties.unitPrice;
      ctx.applied();
    },
    demo: {
      steps: [{ req: req('GET', '/v0/prices/price_demo1'), res: json(200, structuredClone(standardPrice)) }],
      verify: (o) =>
        expectAll([
          got(o)?.properties?.unitPrice === undefined && got(o)?.properties?.amount === '12.50',
          `properties ${JSON.stringify(got(o)?.properties)}`,
        ]),
    },
  }),
  fault({
    name: 'subscriptions-versions-from-zero',
    area: 'version-migration',
    description:
      'every subscription answer numbers versions from 0 (version 1 shown as 0): the migration answer and the reads alike',
    rules: ['MIGRATION.RESPONSE.VERSION_NUMBERS', 'SUBSCRIPTIONS.VERSION.NUMBERED', 'SCHEMA.RESPONSE.MATCHES'],
    suites: ['version-migration'],
    onResponse(r, res, ctx) {
      const b = bodyOf(res);
      if (!is2xx(res) || !(R.migrate.test(pathOnly(r)) || R.subscription.test(pathOnly(r)))) return;
      let changed = false;
      for (const s of subscriptionsIn(b))
        if (typeof s.versionNumber === 'number') {
          s.versionNumber -= 1;
          changed = true;
        }
      if (isObj(b?.migration))
        for (const k of ['fromVersionNumber', 'toVersionNumber'])
          if (typeof b.migration[k] === 'number') {
            b.migration[k] -= 1;
            changed = true;
          }
      if (changed) ctx.applied();
    },
    demo: {
      steps: [
        {
          req: req('POST', '/v0/subscriptions/sub_demo1/versionMigration', { targetVersionNumber: 1 }),
          res: json(200, migration(1)),
        },
      ],
      verify: (o) =>
        expectAll([
          got(o)?.migration?.toVersionNumber === 0 && got(o)?.subscription?.versionNumber === 2,
          `migration ${JSON.stringify(got(o)?.migration)}`,
        ]),
    },
  }),
  fault({
    name: 'merchants-create-answers-previous-id',
    area: 'merchants-products',
    description:
      'POST /v0/merchants answers an id other than the one it made: the merchant it created before this one ' +
      '(for the first, a well-formed id of no merchant)',
    rules: ['CONV.CREATE.READABLE', 'MERCHANTS.GET.ROUND_TRIP'],
    suites: MERCHANTS_PRODUCTS_SUITES,
    onResponse(r, res, ctx) {
      const b = bodyOf(res);
      if (r.method !== 'POST' || !R.merchants.test(pathOnly(r)) || !is2xx(res) || typeof b?.id !== 'string') return;
      const last = stateMap<string, string>(ctx, 'merchants');
      const previous = last.get('id');
      last.set('id', b.id);
      // An id off by one create: the one before, or for the first one no merchant was made under.
      b.id = previous ?? `org_${b.id.slice(4).split('').reverse().join('')}x`;
      ctx.applied();
    },
    demo: {
      steps: [
        { req: req('POST', '/v0/merchants', { name: 'A' }), res: json(201, { object: 'merchant', id: 'org_first1' }) },
        { req: req('POST', '/v0/merchants', { name: 'B' }), res: json(201, { object: 'merchant', id: 'org_second1' }) },
      ],
      verify: (o, all) =>
        expectAll(
          [got(o)?.id === 'org_first1', `id ${String(got(o)?.id)}`],
          [got(all[0])?.id === 'org_1tsrifx', `first id ${String(got(all[0])?.id)}`],
        ),
    },
  }),
];
