/** Edge values (src/engine/generators/edges.ts): what the document neither allows nor forbids, told from what it makes valid. */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { loadSpec } from '../../../src/contract/index.ts';
import {
  edgeValues,
  fromSpec,
  positiveEdgeExamples,
  positiveRequests,
  undocumentedEdgeRequests,
} from '../../../src/engine/generators/index.ts';
import { byId } from './corpus.ts';

const spec = await loadSpec();
const documented = [...spec.operations.values()].filter((o) => !o.extension).map((o) => fromSpec(spec, o.operationId));
const plan = (body: unknown, query: Record<string, unknown> = {}) => ({
  operationId: 'x',
  method: 'PATCH',
  pathTemplate: '/x',
  pathParams: {},
  query,
  body,
});

describe('edge values', () => {
  const alert = fromSpec(spec, 'updateAlert');
  const customer = fromSpec(spec, 'updateCustomer');

  test('a value the document gives only a type for is an edge when empty, zero, negative, long or unusual', () => {
    const pointers = (body: unknown, op = alert) => edgeValues(op, plan(body)).map((e) => e.pointer);
    expect(pointers({ notifyPeriod: -1 })).toEqual(['/notifyPeriod']);
    expect(pointers({ notifyPeriod: 0 })).toEqual(['/notifyPeriod']);
    expect(pointers({ notifyPeriod: 30 })).toEqual([]);
    expect(pointers({ recipients: [] })).toEqual(['/recipients']);
    expect(pointers({ taxId: '' }, customer)).toEqual(['/taxId']);
    expect(pointers({ taxId: ' x' }, customer)).toEqual(['/taxId']);
    expect(pointers({ taxId: 'x'.repeat(500) }, customer)).toEqual(['/taxId']);
    expect(pointers({ taxId: 'Grüße' }, customer)).toEqual(['/taxId']);
    expect(pointers({ taxId: 'DE 123' }, customer)).toEqual([]);
    expect(edgeValues(customer, plan({ taxId: '' }))[0].why).toMatch(
      /empty string where the document gives no minimum length/,
    );
  });

  test('what the document states is never an edge: its bounds, enums, patterns, null where it clears', () => {
    const none = (body: unknown, op = customer) => expect(edgeValues(op, plan(body))).toEqual([]);
    none({ taxRates: 0 });
    none({ taxRates: 100 });
    none({ externalId: 'a'.repeat(255) });
    none({ externalId: null, taxId: null });
    none({ notificationSettings: { invoiceIssued: false } });
    const alerts = fromSpec(spec, 'listAlerts');
    expect(edgeValues(alerts, plan(undefined, { resourceId: 'wal_1', limit: 1, offset: 0 }))).toEqual([]);
    expect(edgeValues(alerts, plan(undefined, { resourceId: 'wal_1', limit: 100 }))).toEqual([]);
  });

  test('zero or negative amounts written as decimal strings, and free-form map values other than words, are edges', () => {
    const topup = fromSpec(spec, 'updateAutoTopupConfig');
    expect(edgeValues(topup, plan({ amount: '0.00' })).map((e) => e.pointer)).toEqual(['/amount']);
    expect(
      edgeValues(topup, plan({ amount: '12.50', limit: { amount: 0, period: 'day' } })).map((e) => e.pointer),
    ).toEqual(['/limit/amount']);
    const item = fromSpec(spec, 'updateItem');
    expect(edgeValues(item, plan({ metadata: { a: 'word', b: 3 } })).map((e) => e.pointer)).toEqual(['/metadata/b']);
    expect(edgeValues(item, plan({ metadata: { a: 'two words' } }))).toEqual([]);
  });

  test('generated valid requests of every documented operation carry no edge value (seeded, 200 each)', () => {
    for (const op of documented) {
      const ids = Object.fromEntries(Object.keys(op.inputs.path?.properties ?? {}).map((k) => [k, 'x']));
      for (const p of fc.sample(positiveRequests(op, ids), { seed: 11, numRuns: 200 }))
        expect(edgeValues(op, p), `${op.operationId} ${JSON.stringify(p.body ?? p.query)}`).toEqual([]);
      for (const p of positiveEdgeExamples(op, ids, {}, 3)) expect(edgeValues(op, p), op.operationId).toEqual([]);
    }
  });

  test('edge requests: one edge each, on free fields only, every one classified as an edge', () => {
    const cases = undocumentedEdgeRequests(alert, { id: 'al_1' }, { query: { pin: { '/resource': 'wallet' } } }, 5);
    const where = new Set(cases.map((c) => c.edge.pointer));
    expect(where).toEqual(new Set(['/notifyPeriod', '/recipients', '/organizationId']));
    for (const c of cases) {
      expect(edgeValues(alert, c.plan).map((e) => e.pointer)).toEqual([c.edge.pointer]);
      expect(c.plan.query).toEqual({ resource: 'wallet' });
    }
    // A shaped field is left alone.
    const shaped = undocumentedEdgeRequests(
      alert,
      { id: 'al_1' },
      { body: { omit: ['/organizationId'] }, query: { pin: { '/resource': 'wallet' } } },
      5,
    );
    expect(shaped.some((c) => c.edge.pointer === '/organizationId')).toBe(false);
    // Fields whose bounds the document states get none.
    expect(
      undocumentedEdgeRequests(byId('updateCustomer'), { id: 'cus_1' }, {}, 1).map((c) => c.edge.pointer),
    ).not.toContain('/taxRates');
  });
});

test('a free-form map gets an edge request of its own: values other than words inside it', () => {
  const item = fromSpec(spec, 'updateItem');
  const cases = undocumentedEdgeRequests(item, { id: 'itm_1' }, { body: { omit: ['/archived'] } }, 2);
  const map = cases.find((c) => c.edge.pointer.startsWith('/metadata/'));
  expect(map?.plan.body).toMatchObject({ metadata: { count: 3, flag: true } });
});
