import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import {
  arbitraryFromSchema,
  positiveRequests,
  requestPath,
  type GenOperation,
  type JsonSchema,
} from '../../../src/engine/generators/index.ts';
import { errorsOf } from './ajv.ts';
import { byId, corpus } from './corpus.ts';

const SEED = 20240611;
const idsFor = (op: GenOperation) =>
  Object.fromEntries(
    Object.entries(op.inputs.path?.properties ?? {}).map(([name, s]) => [
      name,
      s.type === 'integer' ? 7 : s.pattern ? `${s.pattern.slice(1, s.pattern.indexOf('_') + 1)}abc1` : 'real_1',
    ]),
  );

describe('positive generation', () => {
  test.each(corpus.map((op) => [op.operationId, op] as const))(
    '%s: every generated request validates against its schemas',
    (_, op) => {
      fc.assert(
        fc.property(positiveRequests(op, idsFor(op)), (plan) => {
          for (const [location, value] of [
            ['path', plan.pathParams],
            ['query', plan.query],
            ['body', plan.body],
          ] as const) {
            const schema = op.inputs[location];
            if (schema) expect(errorsOf(schema, value), `${location} ${JSON.stringify(value)}`).toEqual([]);
          }
        }),
        { seed: SEED, numRuns: 200 },
      );
    },
  );

  const schemas: [string, JsonSchema][] = [
    ['nullable string with maxLength', { type: ['string', 'null'], maxLength: 255 }],
    ['integer 1..2147483647', { type: 'integer', minimum: 1, maximum: 2147483647 }],
    ['number 0..100', { type: 'number', minimum: 0, maximum: 100 }],
    ['exclusive number bounds', { type: 'number', exclusiveMinimum: -1, exclusiveMaximum: 1 }],
    ['exclusive integer bounds', { type: 'integer', exclusiveMinimum: 0, exclusiveMaximum: 3 }],
    ['only a maximum', { type: 'integer', maximum: -50 }],
    ['id pattern', { type: 'string', pattern: '^price_[a-zA-Z0-9]+$' }],
    ['pattern with lengths', { type: 'string', pattern: '^[a-z]+$', minLength: 3, maxLength: 5 }],
    ['enum', { enum: ['standard', 'volume'] }],
    ['const', { const: 'wallet' }],
    ['date-time', { type: 'string', format: 'date-time' }],
    ['email', { type: 'string', format: 'email' }],
    ['uri', { type: 'string', format: 'uri' }],
    ['array bounds', { type: 'array', items: { type: 'integer' }, minItems: 2, maxItems: 3 }],
    ['free-form object', { type: 'object' }],
    [
      'closed object',
      { type: 'object', properties: { a: { type: 'string' } }, required: ['a'], additionalProperties: false },
    ],
    [
      'oneOf',
      {
        oneOf: [
          { type: 'string', pattern: '^a+$' },
          { type: 'integer', minimum: 0 },
        ],
      },
    ],
    [
      'allOf',
      {
        allOf: [
          { type: 'object', properties: { a: { type: 'integer' } }, required: ['a'] },
          { properties: { b: { type: 'boolean' } }, required: ['b'] },
        ],
      },
    ],
  ];
  test.each(schemas)('%s: generated values validate', (_, schema) => {
    fc.assert(
      fc.property(arbitraryFromSchema(schema), (v) => {
        expect(errorsOf(schema, v)).toEqual([]);
      }),
      { seed: SEED, numRuns: 300 },
    );
  });

  test('string sizes stay small, with the maxLength boundary sent now and then', () => {
    const values = fc.sample(arbitraryFromSchema({ type: 'string', maxLength: 255 }), {
      seed: SEED,
      numRuns: 300,
    }) as string[];
    expect(values.filter((v) => v.length === 255).length).toBeGreaterThan(0);
    expect(values.filter((v) => v.length <= 12).length).toBeGreaterThan(200);
  });

  test('nullable fields get null sometimes; optional properties are sometimes absent', () => {
    const op = byId('updateCustomer');
    const bodies = fc
      .sample(positiveRequests(op, { id: 'cus_1' }), { seed: SEED, numRuns: 200 })
      .map((p) => p.body as Record<string, unknown>);
    expect(bodies.some((b) => b.taxId === null)).toBe(true);
    expect(bodies.some((b) => typeof b.taxId === 'string')).toBe(true);
    expect(bodies.some((b) => !('taxRates' in b))).toBe(true);
  });

  test('ids fill the path; pins, custom arbitraries and omissions shape the rest', () => {
    const op = byId('createBillingSchedule');
    const plans = fc.sample(
      positiveRequests(
        op,
        {},
        {
          body: {
            pin: { '/orderId': 'ord_1' },
            arbitraries: { '/paymentTermDays': fc.constantFrom(15, 30) },
            omit: ['/subscriptionId'],
          },
        },
      ),
      { seed: SEED, numRuns: 100 },
    );
    for (const p of plans) {
      const body = p.body as Record<string, unknown>;
      expect(body.orderId).toBe('ord_1');
      expect([15, 30]).toContain(body.paymentTermDays);
      expect(body).not.toHaveProperty('subscriptionId');
      // x-not-shown: the element shape is unknown, so positives leave it out.
      expect(body).not.toHaveProperty('customPeriodWindows');
    }
    const item = fc.sample(positiveRequests(byId('updateItem'), { id: 'itm_real' }), { seed: SEED, numRuns: 5 });
    for (const p of item) expect(requestPath(p)).toBe('/v0/items/itm_real');
  });

  test('a missing path id is refused, and extensions are never generated', () => {
    expect(() => positiveRequests(byId('updateItem'), {})).toThrow(/no id for path parameter/);
    expect(() => positiveRequests({ ...byId('createProduct'), extension: true }, {})).toThrow(/reference extension/);
  });

  test('query values are sent as strings in a query string', () => {
    const op = byId('listAlerts');
    const [plan] = fc.sample(
      positiveRequests(
        op,
        {},
        { query: { pin: { '/resourceId': 'wal 1&x' }, arbitraries: { '/limit': fc.constant(5) } } },
      ),
      { seed: SEED, numRuns: 1 },
    );
    expect(requestPath(plan)).toMatch(/^\/v0\/alerts\?resourceId=wal\+1%26x&limit=5/);
  });
});
