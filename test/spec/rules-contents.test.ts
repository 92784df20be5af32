/**
 * What spec/rules.yaml holds: every family, the stable ids other code relies on, machine-readable
 * rate-limit params, operations that exist in spec/openapi.yaml. Whether each rule is judged is
 * test/suites/rule-coverage.test.ts.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';
import { parse } from 'yaml';
import { loadRules, RULE_FAMILIES, type RateLimitParams } from '../../src/contract/rules.ts';

const specPath = fileURLToPath(new URL('../../spec/openapi.yaml', import.meta.url));
const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'];

function openapiOperations(): Map<string, { method: string; path: string; extension: boolean }> {
  const doc = parse(readFileSync(specPath, 'utf8'));
  const out = new Map<string, { method: string; path: string; extension: boolean }>();
  for (const [path, item] of Object.entries<any>(doc.paths ?? {})) {
    for (const method of METHODS) {
      const op = item?.[method];
      if (op?.operationId) out.set(op.operationId, { method, path, extension: op['x-extension'] === 'reference' });
    }
  }
  return out;
}

describe('rules.yaml contents: families, stable ids, rate-limit params, operations that exist', () => {
  test('at least 60 rules, and every family has at least one', async () => {
    const index = await loadRules();
    expect(index.rules.length).toBeGreaterThanOrEqual(60);
    const families = index.byFamily();
    for (const f of RULE_FAMILIES) expect(families.get(f)?.length ?? 0, f).toBeGreaterThan(0);
  });

  test('the rules of the limits, the retry rule, migrations, delete blockers, schedules, refunds, payments and auth exist under their stable ids', async () => {
    const index = await loadRules();
    const required = [
      'RATE.CUSTOMERS_LIST.LIMIT',
      'RATE.LIMIT_HEADER.NOT_BELOW_PUBLISHED',
      'RATE.FAILED_AUTH.NO_HEADERS',
      'RATE.DASHBOARD.EXEMPT',
      'RATE.UNLISTED.NOT_JUDGED',
      'RETRY.CLIENT.WAIT',
      'RETRY.CLIENT.MAX_ATTEMPTS',
      'MIGRATION.404.ARCHIVED_VERSION',
      'MIGRATION.404.MISSING_VERSION',
      'MIGRATION.409.NOT_LIVE',
      'MIGRATION.409.ENDS_BEFORE_BOUNDARY',
      'MIGRATION.409.OVERRIDE_RATE',
      'MIGRATION.409.FEATURE_CHANGE',
      'MIGRATION.409.INTERVAL_COVERED',
      'CUSTOMERS.DELETE.BLOCKED',
      'FEES.DELETE.BLOCKED',
      'SCHEDULES.OWNER.EXACTLY_ONE',
      'SCHEDULES.CREATE.SUBSCRIPTION_UNSUPPORTED',
      'REFUNDS.TOTAL.SUM',
      'REFUNDS.ID.PREFIX',
      'PAYMENTS.ID.PREFIX',
      'AUTH.MERCHANT.DEFAULT',
      'AUTH.401.SHAPE',
      'AUTH.403.SHAPE',
    ];
    for (const id of required) expect(index.byId(id), id).toBeDefined();
  });

  test('each rate-limited operation has LIMIT and BUCKET rules with machine-readable params', async () => {
    const { rules } = await loadRules();
    const limits = rules.filter((r) => /^RATE\.[A-Z_]+\.LIMIT$/.test(r.id));
    expect(limits).toHaveLength(6);
    for (const r of limits) {
      const p = r.params as unknown as RateLimitParams;
      expect(p.limit, r.id).toBeGreaterThan(0);
      expect(p.windowSeconds, r.id).toBeGreaterThan(0);
      expect(['merchant', 'subscription'], r.id).toContain(p.bucket);
      expect(r.operations, r.id).toHaveLength(1);
      const bucket = rules.find((b) => b.id === r.id.replace(/\.LIMIT$/, '.BUCKET'));
      expect(bucket?.params?.bucket, r.id).toBe(p.bucket);
    }
  });

  test('every operation a rule names exists in spec/openapi.yaml', async () => {
    const ops = openapiOperations();
    const { rules } = await loadRules();
    const missing = rules.flatMap((r) => r.operations.filter((o) => !ops.has(o)).map((o) => `${r.id}: ${o}`));
    expect(missing).toEqual([]);
  });

  test('contract rules are about documented operations; reference-extension operations only appear in reference rules', async () => {
    const ops = openapiOperations();
    const { rules } = await loadRules();
    const offenders = rules
      .filter((r) => r.kind === 'contract' && r.operations.some((o) => ops.get(o)?.extension))
      .map((r) => r.id);
    expect(offenders).toEqual([]);
  });

  test('rate-limit params name the method and path of their operation', async () => {
    const ops = openapiOperations();
    const { rules } = await loadRules();
    for (const r of rules.filter((x) => /^RATE\.[A-Z_]+\.LIMIT$/.test(x.id))) {
      const p = r.params as unknown as RateLimitParams;
      const op = ops.get(r.operations[0]);
      expect(op, r.id).toBeDefined();
      expect(`${p.method.toLowerCase()} ${p.path}`, r.id).toBe(`${op!.method} ${op!.path}`);
    }
  });
});
