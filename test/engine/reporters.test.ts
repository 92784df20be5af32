import { beforeAll, describe, expect, test } from 'vitest';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { parseRules, type RuleIndex } from '../../src/spec/rules.ts';
import { buildReport, mergeReports, renderHtml, renderJunit, renderMarkdown, writeReports, type Report } from '../../src/engine/reporters/index.ts';
import { computeVerdicts } from '../../src/engine/runner/verdicts.ts';
import type { ScenarioResult } from '../../src/engine/runner/types.ts';
import { clearSecrets, registerSecret } from '../../src/engine/redact.ts';
import { ex } from './helpers/exchange.ts';

const RULES_YAML = `
version: 1
source: billing-service-interface.md
rules:
  - { id: AUTH.401.SHAPE, family: AUTH, statement: "401 in Error shape.", section: Authentication, operations: [], kind: contract }
  - { id: AUTH.KEYS.REFERENCE, family: AUTH, statement: "Reference keys.", section: Authentication, operations: [], kind: reference }
  - { id: CUSTOMERS.GET.BY_ID, family: CUSTOMERS, statement: "A customer reads back.", section: "Endpoints > Customers", operations: [getCustomer], kind: contract }
  - { id: CUSTOMERS.TAX_ID.NULL_CLEARS, family: CUSTOMERS, statement: "null clears taxId.", section: "Endpoints > Customers", operations: [updateCustomer], kind: contract }
  - { id: SCHEMA.REQUIRED.PRESENT, family: SCHEMA, statement: "Required fields <present> & typed.", section: Resources and their fields, operations: [], kind: contract }
  - { id: WEBHOOKS.404.NEVER_ENABLED, family: WEBHOOKS, statement: "404 when never enabled.", section: "Endpoints > Webhooks", operations: [updateWebhooks], kind: contract }
`;

const SECRET = 'sk_live_reporter_secret_123456';
let rules: RuleIndex;
let schemaValidate: ReturnType<Ajv2020['compile']>;

beforeAll(async () => {
  rules = await parseRules(RULES_YAML);
  const ajv = new Ajv2020({ strict: true, allErrors: true });
  (addFormats as unknown as (a: Ajv2020) => void)(ajv);
  schemaValidate = ajv.compile(JSON.parse(await readFile(new URL('../../schemas/report.schema.json', import.meta.url), 'utf8')));
});

function scenario(partial: Partial<ScenarioResult>): ScenarioResult {
  return { id: 'x', suite: 'demo', file: 'suites/demo.suite.ts', title: 't', fullName: 't', state: 'passed', durationMs: 3.4, ruleIds: [], judged: {}, findings: [], notes: [], exchanges: 1, ...partial };
}

function results(): ScenarioResult[] {
  const broken = ex('GET', '/v0/customers/cus_1', 200, { id: 'cus_1', object: 'customer', note: `<script>${SECRET}</script>` });
  broken.requestHeaders.authorization = `Bearer ${SECRET}`;
  return [
    scenario({ id: 'a', title: 'reads back', ruleIds: ['CUSTOMERS.GET.BY_ID'], judged: { 'CUSTOMERS.GET.BY_ID': 2, 'SCHEMA.REQUIRED.PRESENT': 1 } }),
    scenario({
      id: 'b',
      title: 'shape of a read',
      state: 'failed',
      ruleIds: ['CUSTOMERS.GET.BY_ID'],
      judged: { 'SCHEMA.REQUIRED.PRESENT': 1 },
      findings: [{ source: 'check:response-schema', ruleIds: ['SCHEMA.REQUIRED.PRESENT'], title: 'Required field missing', message: '/validTaxAddress missing', exchange: broken, replay: `curl -H "Authorization: Bearer ${SECRET}"` }],
    }),
    scenario({ id: 'c', title: 'never enabled', state: 'skipped', ruleIds: ['WEBHOOKS.404.NEVER_ENABLED'], skipReason: "fixture 'merchantWithoutWebhooks' unavailable: no strategy" }),
    scenario({ id: 'd', title: 'keys', state: 'failed', ruleIds: ['AUTH.KEYS.REFERENCE'], error: 'TypeError: cannot read id' }),
  ];
}

function report(bundled = false): Report {
  return buildReport({
    runId: 'run-1',
    toolVersion: '0.1.0',
    startedAt: '2024-05-01T10:00:00.000Z',
    durationMs: 1234,
    target: { baseUrl: 'https://sandbox.example.com', bundled, sandbox: true },
    profile: 'quick',
    seed: 42,
    suites: ['demo'],
    fixtures: { strategy: 'none', reason: 'test' },
    destructive: false,
    rules,
    results: results(),
    errors: [],
  });
}

describe('verdicts', () => {
  test('failed, passed, skipped with reason, not exercised, informational', () => {
    const v = Object.fromEntries(computeVerdicts(rules, results(), { bundled: false }).map((r) => [r.id, r]));
    expect(v['SCHEMA.REQUIRED.PRESENT'].verdict).toBe('failed');
    expect(v['SCHEMA.REQUIRED.PRESENT'].failures[0].exchange?.status).toBe(200);
    expect(v['CUSTOMERS.GET.BY_ID'].verdict).toBe('passed');
    expect(v['WEBHOOKS.404.NEVER_ENABLED']).toMatchObject({ verdict: 'skipped', reasons: ["fixture 'merchantWithoutWebhooks' unavailable: no strategy"] });
    expect(v['CUSTOMERS.TAX_ID.NULL_CLEARS'].verdict).toBe('not_exercised');
    expect(v['AUTH.401.SHAPE'].verdict).toBe('not_exercised');
    expect(v['AUTH.KEYS.REFERENCE']).toMatchObject({ verdict: 'failed', informational: true });
  });

  test('a scenario that stops on an error fails the rules it cites', () => {
    const v = computeVerdicts(rules, [scenario({ state: 'failed', ruleIds: ['CUSTOMERS.GET.BY_ID'], error: 'connection reset' })], { bundled: false });
    expect(v.find((r) => r.id === 'CUSTOMERS.GET.BY_ID')).toMatchObject({ verdict: 'failed', reasons: ['scenario stopped on an error'] });
  });

  test('a passing scenario does not hide a finding from another one', () => {
    const r = report();
    expect(r.summary.exitCode).toBe(1);
    expect(r.summary.rules).toMatchObject({ failed: 2, passed: 1, skipped: 1, notExercised: 2, informationalFailed: 1 });
  });

  test('reference rules fail the run only on the bundled reference', () => {
    const only = (bundled: boolean) =>
      buildReport({ ...baseInput(), target: { baseUrl: 'http://x', bundled, sandbox: false }, results: [scenario({ state: 'failed', ruleIds: ['AUTH.KEYS.REFERENCE'], error: 'boom' })] }).summary.exitCode;
    expect(only(false)).toBe(0);
    expect(only(true)).toBe(1);
  });

  test('run errors without failures exit 2', () => {
    expect(buildReport({ ...baseInput(), errors: [{ suite: 'auth', message: 'SyntaxError' }] }).summary).toMatchObject({ exitCode: 2, verdict: 'error' });
  });
});

function baseInput() {
  return { runId: 'r', toolVersion: '0', startedAt: '2024-05-01T10:00:00.000Z', durationMs: 1, target: { baseUrl: 'http://x', bundled: false, sandbox: false }, profile: 'quick' as const, seed: 1, suites: [], fixtures: { strategy: 'none', reason: '' }, destructive: false, rules, results: [] as ScenarioResult[], errors: [] };
}

describe('report files', () => {
  test('report.json validates against schemas/report.schema.json', () => {
    const r = report();
    const ok = schemaValidate(JSON.parse(JSON.stringify(r)));
    expect(schemaValidate.errors ?? []).toEqual([]);
    expect(ok).toBe(true);
  });

  test('the schema rejects a failed rule without evidence and an unknown verdict', () => {
    const r = JSON.parse(JSON.stringify(report()));
    r.rules.find((x: { verdict: string }) => x.verdict === 'failed').failures = [];
    expect(schemaValidate(r)).toBe(false);
    const s = JSON.parse(JSON.stringify(report()));
    s.rules[0].verdict = 'maybe';
    expect(schemaValidate(s)).toBe(false);
  });

  test('junit.xml: a testsuite per family, a testcase per rule, failures and skips', () => {
    const xml = renderJunit(report());
    expect(xml).toMatch(/^<\?xml version="1.0" encoding="UTF-8"\?>/);
    expect(xml.match(/<testsuite /g)).toHaveLength(4);
    expect(xml.match(/<testcase /g)).toHaveLength(6);
    expect(xml).toMatch(/<testcase name="SCHEMA.REQUIRED.PRESENT"[^>]*>\s*<failure message="Required field missing"/);
    expect(xml).toContain('<skipped message="fixture &apos;merchantWithoutWebhooks&apos; unavailable: no strategy"/>');
    expect(xml).toContain('Required fields &lt;present&gt; &amp; typed.');
    expect(xml).not.toMatch(/<script>/);
  });

  test('report.html is self-contained, grouped by section, with evidence and a coverage matrix', () => {
    const html = renderHtml(report());
    expect(html).not.toMatch(/<(link|script)\b|src=["']http/);
    expect(html).toContain('<h2>Endpoints &gt; Customers</h2>');
    expect(html).toMatch(/<details open><summary>1 failure: evidence<\/summary>/);
    expect(html).toContain('Requirements coverage');
    expect(html).toContain('&lt;script&gt;');
  });

  test('summary.md names the failed rules', () => {
    const md = renderMarkdown(report());
    expect(md).toMatch(/^## ❌ Conformance: failed/);
    expect(md).toContain('- **SCHEMA.REQUIRED.PRESENT**: Required field missing — `GET /v0/customers/cus_1` → 200');
    expect(md).toContain('| CUSTOMERS | 1 | 0 | 0 | 1 |');
  });

  test('written files never contain a registered key', async () => {
    clearSecrets();
    registerSecret(SECRET, 'CONFORM_API_KEY');
    const dir = await mkdtemp(join(tmpdir(), 'conform-report-'));
    const files = await writeReports(report(), dir);
    expect(files.map((f) => f.slice(dir.length + 1))).toEqual(['report.json', 'junit.xml', 'report.html', 'summary.md']);
    for (const f of files) {
      const text = await readFile(f, 'utf8');
      expect(text, f).not.toContain(SECRET);
    }
    expect(await readFile(join(dir, 'report.json'), 'utf8')).toContain('Bearer $CONFORM_API_KEY');
  });
});

describe('merge', () => {
  test('shards merge: failed anywhere fails, passed beats skipped, scenarios add up', () => {
    const a = buildReport({ ...baseInput(), runId: 'r-shard1of2', shard: { index: 1, count: 2 }, results: [scenario({ ruleIds: ['CUSTOMERS.GET.BY_ID'] }), scenario({ state: 'skipped', ruleIds: ['WEBHOOKS.404.NEVER_ENABLED'], skipReason: 'no fixture' })] });
    const b = buildReport({ ...baseInput(), runId: 'r-shard2of2', shard: { index: 2, count: 2 }, results: [scenario({ ruleIds: ['WEBHOOKS.404.NEVER_ENABLED'] }), scenario({ state: 'failed', ruleIds: ['AUTH.401.SHAPE'], error: 'x' })] });
    const m = mergeReports([a, b]);
    const v = Object.fromEntries(m.rules.map((r) => [r.id, r.verdict]));
    expect(v).toMatchObject({ 'CUSTOMERS.GET.BY_ID': 'passed', 'WEBHOOKS.404.NEVER_ENABLED': 'passed', 'AUTH.401.SHAPE': 'failed', 'CUSTOMERS.TAX_ID.NULL_CLEARS': 'not_exercised' });
    expect(m.scenarios).toHaveLength(4);
    expect(m.run.shard).toBeUndefined();
    expect(m.run.id).toBe('r-merged');
    expect(m.summary.exitCode).toBe(1);
    expect(schemaValidate(JSON.parse(JSON.stringify(m)))).toBe(true);
  });

  test('reports of different targets do not merge', () => {
    const a = buildReport(baseInput());
    const b = buildReport({ ...baseInput(), target: { baseUrl: 'http://y', bundled: false, sandbox: false } });
    expect(() => mergeReports([a, b])).toThrow(/different base URLs/);
  });
});
