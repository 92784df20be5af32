/** The generators on the real spec/openapi.yaml. */
import fc from 'fast-check';
import { beforeAll, describe, expect, test } from 'vitest';
import { loadSpec, type Spec } from '../../../src/contract/index.ts';
import {
  DOCUMENT_STATES,
  documentedConstraints,
  statedFor,
  fromSpec,
  negativeRequests,
  positiveRequests,
  segmentsOf,
  type GenOperation,
  type JsonSchema,
} from '../../../src/engine/generators/index.ts';
import { breaksExactly, errorsOf } from './ajv.ts';

let spec: Spec;
let ops: GenOperation[];
beforeAll(async () => {
  spec = await loadSpec();
  ops = [...spec.operations.keys()].map((id) => fromSpec(spec, id));
});

const SEED = 4242;
/** A well-formed id per path parameter (patterns honoured); values do not matter offline. */
function idsFor(op: GenOperation): Record<string, unknown> {
  const props = op.inputs.path?.properties ?? {};
  return Object.fromEntries(
    Object.entries(props).map(([k, s]) => [
      k,
      s.pattern ? fc.sample(fc.stringMatching(new RegExp(s.pattern)), { seed: 1, numRuns: 1 })[0] : 'x1',
    ]),
  );
}
const documented = () => ops.filter((op) => !op.extension);
const constraintsOf = (op: GenOperation) => negativeRequests(op, idsFor(op)).map((p) => p.constraint);
const all = () => documented().flatMap((op) => constraintsOf(op).map((c) => ({ op: op.operationId, ...c })));
const where = (c: { op: string; location: string; pointer: string; kind: string }) =>
  `${c.op} ${c.location} ${c.pointer} ${c.kind}`;

describe('generation from spec/openapi.yaml', () => {
  test('positives of every documented operation validate against the spec (own ajv and the loader)', () => {
    for (const op of documented()) {
      fc.assert(
        fc.property(positiveRequests(op, idsFor(op)), (plan) => {
          for (const [location, value] of [
            ['path', plan.pathParams],
            ['query', plan.query],
            ['body', plan.body],
          ] as const) {
            const schema = op.inputs[location];
            if (schema)
              expect(errorsOf(schema, value), `${op.operationId} ${location} ${JSON.stringify(value)}`).toEqual([]);
          }
          if (op.inputs.body)
            expect(
              spec.validateRequestBody(op.operationId, plan.body).valid,
              `${op.operationId} ${JSON.stringify(plan.body)}`,
            ).toBe(true);
          if (op.inputs.query) {
            const wire = Object.fromEntries(Object.entries(plan.query).map(([k, v]) => [k, String(v)]));
            expect(
              spec.validateParameters(op.operationId, 'query', wire).valid,
              `${op.operationId} ${JSON.stringify(wire)}`,
            ).toBe(true);
          }
        }),
        { seed: SEED, numRuns: 60 },
      );
    }
  });

  test('every negative of every documented operation breaks exactly its constraint, and the loader refuses it', () => {
    let cases = 0;
    for (const op of documented()) {
      for (const plan of negativeRequests(op, idsFor(op))) {
        fc.assert(
          fc.property(plan.arbitrary, (c) => {
            cases++;
            const values = { path: c.pathParams, query: c.query, body: c.body };
            for (const location of ['path', 'query', 'body'] as const) {
              const schema = op.inputs[location];
              if (!schema) continue;
              const errors = errorsOf(schema, values[location]);
              if (location === c.location) breaksExactly(c, errors);
              else expect(errors).toEqual([]);
            }
            if (c.location === 'body') expect(spec.validateRequestBody(op.operationId, c.body).valid).toBe(false);
            if (c.location === 'query') {
              const wire = Object.fromEntries(Object.entries(c.query).map(([k, v]) => [k, String(v)]));
              expect(spec.validateParameters(op.operationId, 'query', wire).valid, JSON.stringify(wire)).toBe(false);
            }
          }),
          { seed: SEED, numRuns: 25 },
        );
      }
    }
    expect(cases).toBeGreaterThan(500);
  });

  test('every bound, pattern, enum, required input and field type the document states is generated', () => {
    const got = new Set(all().map(where));
    const expected = [
      'updateCustomer body /externalId maxLength',
      'updateCustomer body /taxRates minimum',
      'updateCustomer body /taxRates maximum',
      'updateCustomer path /id pattern',
      'getCustomer path /id pattern',
      'deleteCustomer path /id pattern',
      'getPrice path /id pattern',
      'updateItem path /id pattern',
      'updateItem body /catalogId pattern',
      'listAlerts query /resourceId required',
      'listAlerts query /limit minimum',
      'listAlerts query /limit maximum',
      'listAlerts query /offset minimum',
      'updateAlert query /resource required',
      'updateAlert query /resource enum',
      'migrateSubscriptionVersion body /targetVersionNumber minimum',
      'migrateSubscriptionVersion body /targetVersionNumber maximum',
      'migrateSubscriptionVersion body /targetVersionNumber type',
      'createProduct body /name required',
      'createProduct body /description required',
      'createProduct body /merchantId required',
      'updateWebhooks body /enabled required',
      // Types the document gives field by field.
      'updateWebhooks body /enabled type',
      'updateItem body /name type',
      'updateItem body /archived type',
      'updateItem body /metadata type',
      'updateCustomer body /taxRates type',
      'updateCustomer body /notificationSettings/invoicePaid type',
      'updateSourceRule body /conditions type',
      'updateSourceRule body /order type',
      'createInvoiceRefund body /reason type',
      'createProduct body /metadata type',
      'listAlerts query /limit type',
      'listAlerts query /offset type',
      'updateAlert body /enabled type',
      'updateAlert body /notifyPeriod type',
      'updateAlert body /recipients type',
      'updateAlert body /organizationId type',
      'updateAutoTopupConfig body /amount type',
      'updateAutoTopupConfig body /threshold type',
      'updateAutoTopupConfig body /paymentMethod type',
      'updateAutoTopupConfig body /limit type',
      'updateAutoTopupConfig body /limit/amount type',
      'updateAutoTopupConfig body /limit/period type',
      'createBillingSchedule body /startDate type',
      'createBillingSchedule body /paymentTermDays type',
      'createBillingSchedule body /customPeriodWindows type',
    ];
    for (const e of expected) expect(got, e).toContain(e);
  });

  test('nothing the document does not state: no extensions, no noted parts, bounds only where documented', () => {
    for (const op of ops.filter((o) => o.extension)) expect(negativeRequests(op, idsFor(op))).toEqual([]);
    for (const c of all()) {
      const op = ops.find((o) => o.operationId === c.op)!;
      // Places the document states under a note are listed, with quotes, in DOCUMENT_STATES.
      if (statedFor(c.op, c.location).some((p) => c.pointer === p || c.pointer.startsWith(`${p}/`))) continue;
      // No schema node on the way to the constraint carries a note.
      let node: JsonSchema | undefined = op.inputs[c.location];
      const nodes: JsonSchema[] = [node!];
      for (const seg of segmentsOf(c.pointer)) {
        node = seg === '0' && node?.items ? node.items : node?.properties?.[seg];
        if (node) nodes.push(node);
      }
      for (const n of nodes) {
        expect(n['x-not-shown'], where(c)).toBeUndefined();
        expect(n['x-reference-choice'], where(c)).toBeUndefined();
        expect(n['x-extension'], where(c)).toBeUndefined();
      }
    }
    const bounds = all()
      .filter((c) => !['type', 'required', 'enum', 'pattern'].includes(c.kind))
      .map(where)
      .sort();
    expect(bounds).toEqual(
      [
        'listAlerts query /limit maximum',
        'listAlerts query /limit minimum',
        'listAlerts query /offset minimum',
        'migrateSubscriptionVersion body /targetVersionNumber maximum',
        'migrateSubscriptionVersion body /targetVersionNumber minimum',
        'updateCustomer body /externalId maxLength',
        'updateCustomer body /taxRates maximum',
        'updateCustomer body /taxRates minimum',
      ].sort(),
    );
    const generated = new Set(all().map((c) => c.op));
    for (const silent of [
      'createMerchant',
      'updateSubscription',
      'listScheduleIntervals',
      'listCustomers',
      'createInvoiceLineItems',
      'getCostsReport',
    ])
      expect(generated, silent).not.toContain(silent);
  });

  test('stated: what the document states under a note (billing schedule field types, taxRates 0..100) is generated', () => {
    const op = fromSpec(spec, 'createBillingSchedule');
    expect(documentedConstraints(op.inputs.body, 'body')).toEqual([]);
    const stated = DOCUMENT_STATES.createBillingSchedule.body!;
    const plans = negativeRequests(op, {}, { body: { pin: { '/orderId': 'ord_1' } } });
    expect(plans.map((p) => `${p.constraint.pointer} ${p.constraint.kind}`)).toEqual(stated.map((s) => `${s} type`));
    for (const plan of plans)
      for (const c of fc.sample(plan.arbitrary, { seed: SEED, numRuns: 20 }))
        breaksExactly(c, errorsOf(op.inputs.body!, c.body));
    // Every stated pointer exists in the spec (a renamed field would silently drop it otherwise).
    for (const [operationId, locations] of Object.entries(DOCUMENT_STATES)) {
      const o = fromSpec(spec, operationId);
      for (const [location, pointers] of Object.entries(locations))
        for (const p of pointers!)
          expect(
            segmentsOf(p).reduce<JsonSchema | undefined>(
              (n, seg) => n?.properties?.[seg],
              o.inputs[location as 'body'],
            ),
            `${operationId} ${p}`,
          ).toBeDefined();
    }
  });
});
