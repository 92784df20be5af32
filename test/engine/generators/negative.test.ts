import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import {
  describeNegative,
  negativeRequests,
  PATH_EXPECTATION_WHY,
  positiveEdgeExamples,
  requestPath,
  type GenOperation,
  type NegativeCase,
} from '../../../src/engine/generators/index.ts';
import { breaksExactly, errorsOf } from './ajv.ts';
import { byId, corpus } from './corpus.ts';

const SEED = 77;
const idsFor = (op: GenOperation) =>
  Object.fromEntries(
    Object.keys(op.inputs.path?.properties ?? {}).map((name) => [
      name,
      op.inputs.path!.properties![name].type === 'integer' ? 3 : `${name === 'thingId' ? 'thg_' : ''}abc1`,
    ]),
  );
const ids: Record<string, Record<string, unknown>> = {
  updateCustomer: { id: 'cus_abc' },
  updateItem: { id: 'itm_abc' },
};

describe('negative generation', () => {
  test.each(corpus.map((op) => [op.operationId, op] as const))(
    '%s: every negative breaks exactly the constraint it names',
    (_, op) => {
      const plans = negativeRequests(op, ids[op.operationId] ?? idsFor(op));
      expect(plans.length).toBeGreaterThan(0);
      for (const plan of plans) {
        fc.assert(
          fc.property(plan.arbitrary, (c) => {
            const values = { path: c.pathParams, query: c.query, body: c.body };
            for (const location of ['path', 'query', 'body'] as const) {
              const schema = op.inputs[location];
              if (!schema) continue;
              const errors = errorsOf(schema, values[location]);
              if (location === c.location) breaksExactly(c, errors);
              else expect(errors, `${location} stays valid`).toEqual([]);
            }
          }),
          { seed: SEED, numRuns: 60 },
        );
      }
    },
  );

  test('the documented bounds are broken with the documented edge values first', () => {
    const minimal = (op: GenOperation, pointer: string, kind: string) => {
      const plan = negativeRequests(op, idsFor(op)).find(
        (p) => p.constraint.pointer === pointer && p.constraint.kind === kind,
      )!;
      expect(plan, `${pointer} ${kind}`).toBeDefined();
      // The property "fails" on every value, so fast-check shrinks to the smallest breaking value.
      const details = fc.check(
        fc.property(plan.arbitrary, () => false),
        { seed: SEED },
      );
      return (details.counterexample![0] as NegativeCase).value;
    };
    expect(minimal(byId('updateCustomer'), '/externalId', 'maxLength')).toHaveLength(256);
    expect(minimal(byId('updateCustomer'), '/taxRates', 'minimum')).toBe(-0.01);
    expect(minimal(byId('updateCustomer'), '/taxRates', 'maximum')).toBe(100.01);
    expect(minimal(byId('listAlerts'), '/limit', 'minimum')).toBe(0);
    expect(minimal(byId('listAlerts'), '/limit', 'maximum')).toBe(101);
    expect(minimal(byId('listAlerts'), '/offset', 'minimum')).toBe(-1);
    expect(minimal(byId('migrateSubscriptionVersion'), '/targetVersionNumber', 'minimum')).toBe(0);
    expect(minimal(byId('migrateSubscriptionVersion'), '/targetVersionNumber', 'maximum')).toBe(2147483648);
    expect(minimal(byId('synthetic'), '/ratio', 'exclusiveMinimum')).toBe(0);
    expect(minimal(byId('synthetic'), '/ratio', 'exclusiveMaximum')).toBe(1);
  });

  test('a bound breaker reaches the other edge values too (-1 for 0..100)', () => {
    const plan = negativeRequests(byId('updateCustomer'), { id: 'cus_a' }).find(
      (p) => p.constraint.pointer === '/taxRates' && p.constraint.kind === 'minimum',
    )!;
    const values = fc.sample(plan.arbitrary, { seed: SEED, numRuns: 2000 }).map((c) => c.value as number);
    expect(values.every((v) => v < 0)).toBe(true);
    expect(values.some((v) => Number.isInteger(v))).toBe(true);
  });

  test('each case records operation, location, pointer, constraint, value and expected statuses', () => {
    const plans = negativeRequests(byId('updateItem'), { id: 'itm_abc' });
    const summary = plans.map((p) => `${p.constraint.location} ${p.constraint.pointer} ${p.constraint.kind}`);
    expect(summary).toEqual([
      'path /id pattern',
      'body /name type',
      'body /catalogId type',
      'body /catalogId pattern',
      'body /archived type',
      'body /metadata type',
    ]);
    const [pathCase] = fc.sample(plans[0].arbitrary, { seed: SEED, numRuns: 1 });
    expect(pathCase).toMatchObject({
      operationId: 'updateItem',
      location: 'path',
      pointer: '/id',
      constraint: 'pattern',
      expected: [400, 404],
      why: PATH_EXPECTATION_WHY,
    });
    expect(pathCase.value).not.toMatch(/^itm_[a-zA-Z0-9]+$/);
    expect(requestPath(pathCase)).toBe(`/v0/items/${encodeURIComponent(String(pathCase.value))}`);
    const [bodyCase] = fc.sample(plans[3].arbitrary, { seed: SEED, numRuns: 1 });
    expect(bodyCase).toMatchObject({
      location: 'body',
      pointer: '/catalogId',
      expected: [400],
      pathParams: { id: 'itm_abc' },
    });
    expect(bodyCase.why).toBeUndefined();
  });

  test('required: a required query parameter or body property is left out, the rest kept', () => {
    const alerts = negativeRequests(byId('listAlerts'), {}, { query: { pin: { '/resourceId': 'wal_1' } } });
    const required = alerts.find((p) => p.constraint.kind === 'required')!;
    for (const c of fc.sample(required.arbitrary, { seed: SEED, numRuns: 30 })) {
      expect(c.query).not.toHaveProperty('resourceId');
      expect(c.value).toBeUndefined();
      expect(describeNegative(c)).toBe('query /resourceId breaks required: left out');
    }
    // The pinned id stays in every other negative, so the 400 can only come from the broken input.
    for (const p of alerts.filter((p) => p.constraint.kind !== 'required'))
      for (const c of fc.sample(p.arbitrary, { seed: SEED, numRuns: 10 })) expect(c.query.resourceId).toBe('wal_1');
    const product = negativeRequests(byId('createProduct'), {})
      .filter((p) => p.constraint.kind === 'required')
      .map((p) => p.constraint.pointer);
    expect(product).toEqual(['/name', '/description', '/merchantId']);
  });

  test('enum: a value outside it, of the right type', () => {
    const plan = negativeRequests(byId('updateAlert'), { id: 'alr_1' }).find((p) => p.constraint.kind === 'enum')!;
    const values = fc.sample(plan.arbitrary, { seed: SEED, numRuns: 100 }).map((c) => c.value);
    expect(values.every((v) => typeof v === 'string' && v !== 'wallet')).toBe(true);
    expect(values).toContain('wallets');
  });

  test('type: wrong JSON types in bodies; in a query only values no parser reads as the type', () => {
    const body = negativeRequests(byId('updateCustomer'), { id: 'cus_a' }).find(
      (p) => p.constraint.pointer === '/taxRates' && p.constraint.kind === 'type',
    )!;
    const kinds = new Set(
      fc
        .sample(body.arbitrary, { seed: SEED, numRuns: 200 })
        .map((c) => (Array.isArray(c.value) ? 'array' : c.value === null ? 'null' : typeof c.value)),
    );
    expect([...kinds].sort()).toEqual(['array', 'boolean', 'object', 'string']);
    const query = negativeRequests(byId('listAlerts'), {}).find(
      (p) => p.constraint.pointer === '/limit' && p.constraint.kind === 'type',
    )!;
    for (const c of fc.sample(query.arbitrary, { seed: SEED, numRuns: 200 })) {
      const raw = new URLSearchParams(requestPath(c).split('?')[1]).get('limit')!;
      expect(Number.isInteger(Number(raw)), raw).toBe(false);
      expect(['true', 'false', 'null', '']).not.toContain(raw);
    }
  });

  test('edge examples: the documented values, on a minimal base, for negatives and positives', () => {
    const customer = negativeRequests(byId('updateCustomer'), { id: 'cus_a' });
    const at = (plans: typeof customer, pointer: string, kind: string) =>
      plans.find((p) => p.constraint.pointer === pointer && p.constraint.kind === kind)!;
    expect(
      at(customer, '/taxRates', 'maximum')
        .examples(3)
        .map((c) => c.body),
    ).toEqual([{ taxRates: 100.01 }, { taxRates: 101 }]);
    expect(
      at(customer, '/taxRates', 'minimum')
        .examples(3)
        .map((c) => c.value),
    ).toEqual([-0.01, -1]);
    expect(
      at(customer, '/externalId', 'maxLength')
        .examples(3)
        .map((c) => (c.value as string).length),
    ).toEqual([256]);
    expect(at(customer, '/taxRates', 'type').examples(3)).toEqual([]);
    const alerts = negativeRequests(byId('listAlerts'), {}, { query: { pin: { '/resourceId': 'wal_1' } } });
    expect(
      at(alerts, '/limit', 'minimum')
        .examples(3)
        .map((c) => c.query),
    ).toEqual([{ resourceId: 'wal_1', limit: 0 }]);
    expect(
      at(alerts, '/limit', 'maximum')
        .examples(3)
        .map((c) => c.query),
    ).toEqual([{ resourceId: 'wal_1', limit: 101 }]);
    expect(
      at(alerts, '/offset', 'minimum')
        .examples(3)
        .map((c) => c.value),
    ).toEqual([-1]);
    const migration = negativeRequests(byId('migrateSubscriptionVersion'), { id: 'sub_1' });
    expect(
      at(migration, '/targetVersionNumber', 'minimum')
        .examples(3)
        .map((c) => c.body),
    ).toEqual([{ targetVersionNumber: 0 }]);
    expect(
      at(migration, '/targetVersionNumber', 'maximum')
        .examples(3)
        .map((c) => c.body),
    ).toEqual([{ targetVersionNumber: 2147483648 }]);
    for (const c of at(customer, '/taxRates', 'maximum').examples(3))
      breaksExactly(c, errorsOf(byId('updateCustomer').inputs.body!, c.body));

    expect(positiveEdgeExamples(byId('updateCustomer'), { id: 'cus_a' }, {}, 3).map((p) => p.body)).toEqual([
      { externalId: 'a'.repeat(255) },
      { taxRates: 0 },
      { taxRates: 100 },
    ]);
    expect(
      positiveEdgeExamples(byId('listAlerts'), {}, { query: { pin: { '/resourceId': 'wal_1' } } }, 3).map(
        (p) => p.query,
      ),
    ).toEqual([
      { resourceId: 'wal_1', limit: 1 },
      { resourceId: 'wal_1', limit: 100 },
      { resourceId: 'wal_1', offset: 0 },
    ]);
  });
});
