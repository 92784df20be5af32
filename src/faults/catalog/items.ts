/** Items: archiving, anchors that block it, primary external references. */
import type { FaultContext, ProxyRequest, ProxyResponse } from '../fault-proxy.ts';
import { bodyOf, expectAll, fault, got, is4xx, isObj, json, on, R, req, stateMap, T0, type Json } from './helpers.ts';
import type { CatalogFault, DemoStep } from './types.ts';

const SUITES = ['items'];

const ref = (id: string, isPrimary: boolean): Json => ({
  id,
  object: 'externalReference',
  entityType: 'item',
  entityId: 'itm_demo1',
  provider: 'crm',
  externalId: `ext_${id}`,
  isPrimary,
});
const item = (archivedAt: string | null, refs: Json[] = [ref('xref_1', true)]): Json => ({
  object: 'item',
  id: 'itm_demo1',
  merchantId: 'org_demo1',
  name: 'Seat',
  catalogId: 'prod_demo1',
  metadata: {},
  externalReferences: refs,
  archivedAt,
  createdAt: T0,
  updatedAt: T0,
});
const read = (archivedAt: string | null, refs?: Json[]): DemoStep => ({
  req: req('GET', '/v0/items/itm_demo1'),
  res: json(200, item(archivedAt, refs)),
});
const archive = (archived: boolean, refs?: Json[]): DemoStep => ({
  req: req('PATCH', '/v0/items/itm_demo1', { archived }),
  res: json(200, item(archived ? T0 : null, refs)),
});

/** The item in an item answer (GET or PATCH /v0/items/{id}), or undefined. */
function itemOf(r: ProxyRequest, res: ProxyResponse): Json | undefined {
  const b = bodyOf(res);
  return R.item.test(r.path.split('?')[0]) &&
    (r.method === 'GET' || r.method === 'PATCH') &&
    res.status === 200 &&
    b?.object === 'item' &&
    typeof b.id === 'string'
    ? b
    : undefined;
}
const refsOf = (it: Json): Json[] => (Array.isArray(it.externalReferences) ? it.externalReferences.filter(isObj) : []);

/** Remembers, per item, which references were primary while it was active and never archived. */
function track(ctx: FaultContext, it: Json): { primaries: Set<string>; archivedOnce: boolean } {
  const all = stateMap<string, { primaries: Set<string>; archivedOnce: boolean }>(ctx, 'items');
  const t = all.get(it.id) ?? { primaries: new Set<string>(), archivedOnce: false };
  all.set(it.id, t);
  if (it.archivedAt) t.archivedOnce = true;
  else if (!t.archivedOnce) for (const r of refsOf(it)) if (r.isPrimary === true) t.primaries.add(r.id);
  return t;
}

function setPrimary(ctx: FaultContext, it: Json, ids: Set<string>): void {
  let changed = false;
  for (const r of refsOf(it)) {
    if (ids.has(r.id) && r.isPrimary !== true) {
      r.isPrimary = true;
      changed = true;
    }
  }
  if (changed) ctx.applied();
}

export const itemFaults: CatalogFault[] = [
  ...(['name', 'catalogId'] as const).map((field) =>
    fault({
      name: field === 'name' ? 'items-update-ignores-name' : 'items-update-ignores-catalog',
      area: 'items',
      description: `PATCH /v0/items/{id} drops the ${field} it is sent (the rest applies)`,
      rules: ['ITEMS.UPDATE.APPLIED'],
      suites: SUITES,
      onRequest(r, ctx) {
        const b = bodyOf(r);
        if (r.method !== 'PATCH' || !R.item.test(r.path.split('?')[0]) || !b || !(field in b)) return;
        const { [field]: _dropped, ...rest } = b;
        ctx.applied();
        return { ...r, body: Buffer.from(JSON.stringify(rest)), json: rest };
      },
      demo: {
        steps: [
          {
            req: req('PATCH', '/v0/items/itm_demo1', { name: 'Renamed', catalogId: 'prod_demo2', metadata: {} }),
            res: json(200, item(null)),
          },
        ],
        verify: (o) =>
          expectAll([
            o.forwarded !== undefined && !(field in (bodyOf(o.forwarded) ?? {})),
            `the ${field} still reached the target`,
          ]),
      },
    }),
  ),
  fault({
    name: 'items-archive-not-blocked',
    area: 'items',
    description:
      'archiving an item with a fee or live metric anchored to it answers 200 (archivedAt set) instead of refusing',
    rules: ['ITEMS.ARCHIVE.BLOCKED'],
    suites: SUITES,
    async onResponse(r, res, ctx) {
      const hit = on(r, 'PATCH', R.item);
      if (!hit || bodyOf(r)?.archived !== true || !is4xx(res) || res.status === 404) return;
      const { 'content-type': _ct, ...headers } = r.headers;
      const current = await ctx.upstream({ method: 'GET', path: r.path, headers, body: Buffer.alloc(0) });
      const it = bodyOf(current);
      if (current.status !== 200 || !it) return;
      ctx.applied();
      return json(200, { ...it, archivedAt: new Date().toISOString() });
    },
    demo: {
      steps: [
        {
          req: req('PATCH', '/v0/items/itm_demo1', { archived: true }),
          res: (f) =>
            f.method === 'GET' ? json(200, item(null)) : json(409, { error: 'conflict', message: 'anchored' }),
        },
      ],
      verify: (o) =>
        expectAll([o.response.status === 200 && typeof got(o)?.archivedAt === 'string', `got ${o.response.status}`]),
    },
  }),
  fault({
    name: 'items-archive-keeps-primary',
    area: 'items',
    description: 'archiving leaves the primary external references primary',
    rules: ['ITEMS.ARCHIVE.DEMOTES_PRIMARY'],
    suites: SUITES,
    onResponse(r, res, ctx) {
      const it = itemOf(r, res);
      if (!it) return;
      const t = track(ctx, it);
      if (it.archivedAt) setPrimary(ctx, it, t.primaries);
    },
    demo: {
      steps: [read(null), archive(true, [ref('xref_1', false)])],
      verify: (o) =>
        expectAll([refsOf(got(o) ?? {})[0]?.isPrimary === true, 'the archived item has no primary reference']),
    },
  }),
  fault({
    name: 'items-unarchive-reclaims-primary',
    area: 'items',
    description: 'unarchiving makes the references primary again',
    rules: ['ITEMS.UNARCHIVE.NO_RECLAIM'],
    suites: SUITES,
    onResponse(r, res, ctx) {
      const it = itemOf(r, res);
      if (!it) return;
      const t = track(ctx, it);
      if (!it.archivedAt && t.archivedOnce) setPrimary(ctx, it, t.primaries);
    },
    demo: {
      steps: [read(null), archive(true, [ref('xref_1', false)]), archive(false, [ref('xref_1', false)])],
      verify: (o) => expectAll([refsOf(got(o) ?? {})[0]?.isPrimary === true, 'primary status not reclaimed']),
    },
  }),
  fault({
    name: 'items-archivedAt-omitted',
    area: 'items',
    description: 'an active item omits archivedAt instead of carrying null',
    rules: ['ITEMS.ARCHIVED_AT.STATE'],
    suites: SUITES,
    onResponse(r, res, ctx) {
      const it = itemOf(r, res);
      if (!it || it.archivedAt !== null) return;
      delete it.archivedAt;
      ctx.applied();
    },
    demo: {
      steps: [read(null)],
      verify: (o) => expectAll([got(o) !== undefined && !('archivedAt' in got(o)!), 'archivedAt still there']),
    },
  }),
  fault({
    name: 'items-archive-drops-references',
    area: 'items',
    description: 'an archived item loses its external references',
    rules: ['ITEMS.ARCHIVE.DEMOTES_PRIMARY'],
    suites: SUITES,
    onResponse(r, res, ctx) {
      const it = itemOf(r, res);
      if (!it?.archivedAt || !refsOf(it).length) return;
      it.externalReferences = [];
      ctx.applied();
    },
    demo: {
      steps: [archive(true, [ref('xref_1', false)])],
      verify: (o) =>
        expectAll([
          Array.isArray(got(o)?.externalReferences) && got(o)!.externalReferences.length === 0,
          'references still attached',
        ]),
    },
  }),
  fault({
    name: 'items-archived-unreadable',
    area: 'items',
    description: 'an archived item reads 404',
    rules: ['ITEMS.ARCHIVED.READABLE'],
    suites: SUITES,
    onResponse(r, res, ctx) {
      const it = itemOf(r, res);
      if (r.method !== 'GET' || !it?.archivedAt) return;
      ctx.applied();
      return json(404, { error: 'not_found', message: `item ${it.id} not found` });
    },
    demo: { steps: [read(T0)], verify: (o) => expectAll([o.response.status === 404, `got ${o.response.status}`]) },
  }),
  fault({
    name: 'items-external-id-primary-twice',
    area: 'items',
    description:
      'an active item lists its primary external id twice, both primary (two references claim one external id)',
    rules: ['ITEMS.EXTERNAL_ID.ONE_PRIMARY'],
    suites: SUITES,
    onResponse(r, res, ctx) {
      const it = itemOf(r, res);
      const primary = it && !it.archivedAt ? refsOf(it).find((x) => x.isPrimary === true) : undefined;
      if (!it || !primary) return;
      it.externalReferences.push({ ...primary, id: `${primary.id}x0copy` });
      ctx.applied();
    },
    demo: {
      steps: [read(null)],
      verify: (o) =>
        expectAll([
          refsOf(got(o) ?? {}).filter((x) => x.isPrimary === true && x.externalId === 'ext_xref_1').length === 2,
          'one primary only',
        ]),
    },
  }),
  fault({
    name: 'items-second-primary-accepted',
    area: 'items',
    description:
      'a second item takes an external id as primary while another item still holds it (the claim is not refused and demotes nothing)',
    rules: ['ITEMS.EXTERNAL_ID.ONE_PRIMARY'],
    suites: SUITES,
    onRequest(r, ctx) {
      const b = bodyOf(r);
      if (r.method !== 'POST' || !R.externalReferences.test(r.path.split('?')[0]) || b?.isPrimary !== true) return;
      const key = `${b.provider}\u0000${b.externalId}`;
      const holders = stateMap<string, string>(ctx, 'primaryHolders');
      const holder = holders.get(key);
      if (holder === undefined || holder === b.entityId) return void holders.set(key, String(b.entityId));
      // The target only sees a non-primary claim; the reads of the second item then show it primary.
      stateMap<string, string>(ctx, 'secondClaims').set(String(b.entityId), String(b.externalId));
      const rest = { ...b, isPrimary: false };
      return { ...r, body: Buffer.from(JSON.stringify(rest)), json: rest };
    },
    onResponse(r, res, ctx) {
      const it = itemOf(r, res);
      const externalId = it && stateMap<string, string>(ctx, 'secondClaims').get(it.id);
      if (!it || externalId === undefined) return;
      for (const x of refsOf(it)) {
        if (x.externalId !== externalId || x.isPrimary === true) continue;
        x.isPrimary = true;
        ctx.applied();
      }
    },
    demo: {
      steps: [
        {
          req: req('POST', '/v0/externalReferences', {
            entityType: 'item',
            entityId: 'itm_a',
            provider: 'crm',
            externalId: 'ext_1',
            isPrimary: true,
          }),
          res: json(201, ref('xref_a', true)),
        },
        {
          req: req('POST', '/v0/externalReferences', {
            entityType: 'item',
            entityId: 'itm_demo1',
            provider: 'crm',
            externalId: 'ext_1',
            isPrimary: true,
          }),
          res: (f) => json(201, ref('xref_1', bodyOf(f)?.isPrimary === true)),
        },
        {
          req: req('GET', '/v0/items/itm_demo1'),
          res: json(200, item(null, [{ ...ref('xref_1', false), externalId: 'ext_1' }])),
        },
      ],
      verify: (o, all) =>
        expectAll(
          [bodyOf(all[1].forwarded ?? {})?.isPrimary === false, 'the second claim reached the target as primary'],
          [refsOf(got(o) ?? {})[0]?.isPrimary === true, 'the second item does not show the external id primary'],
        ),
    },
  }),
  fault({
    name: 'items-archive-wipes-fields',
    area: 'items',
    description:
      'PATCH /v0/items/{id} {"archived": true} wipes what it did not send: ' +
      'the item loses its name and catalogId, and its metadata is emptied',
    rules: ['ITEMS.UPDATE.PARTIAL'],
    suites: SUITES,
    onRequest(r, ctx) {
      const hit = on(r, 'PATCH', R.item);
      if (hit && bodyOf(r)?.archived === true)
        stateMap<string, boolean>(ctx, 'wiped').set(decodeURIComponent(hit[1]), true);
    },
    onResponse(r, res, ctx) {
      const it = itemOf(r, res);
      if (!it || !stateMap<string, boolean>(ctx, 'wiped').get(it.id)) return;
      const sent = r.method === 'PATCH' ? (bodyOf(r) ?? {}) : {};
      let changed = false;
      for (const k of ['name', 'catalogId'] as const) {
        if (k in sent || !(k in it)) continue;
        delete it[k];
        changed = true;
      }
      if (!('metadata' in sent) && isObj(it.metadata) && Object.keys(it.metadata).length) {
        it.metadata = {};
        changed = true;
      }
      if (changed) ctx.applied();
    },
    demo: {
      steps: [
        {
          req: req('PATCH', '/v0/items/itm_demo1', { archived: true }),
          res: json(200, { ...item(T0), metadata: { tier: 'gold' } }),
        },
        read(T0),
      ],
      verify: (o, all) =>
        expectAll(
          [
            got(all[0])?.name === undefined &&
              got(all[0])?.catalogId === undefined &&
              JSON.stringify(got(all[0])?.metadata) === '{}',
            'the archive answer keeps its fields',
          ],
          [got(o)?.name === undefined, 'the later read keeps the name'],
        ),
    },
  }),
];
