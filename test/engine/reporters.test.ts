import { beforeAll, describe, expect, test } from 'vitest';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { parseRules, type RuleIndex } from '../../src/contract/rules.ts';
import {
  buildReport,
  mergeReports,
  renderHtml,
  renderJunit,
  renderMarkdown,
  writeReports,
  type Acceptance,
  type Report,
} from '../../src/engine/reporters/index.ts';
import { computeVerdicts } from '../../src/engine/reporters/verdicts.ts';
import type { ScenarioResult } from '../../src/engine/runner/types.ts';
import { clearSecrets, registerSecret } from '../../src/engine/http/redact.ts';
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
  schemaValidate = ajv.compile(
    JSON.parse(await readFile(new URL('../../schemas/report.schema.json', import.meta.url), 'utf8')),
  );
});

function scenario(partial: Partial<ScenarioResult>): ScenarioResult {
  return {
    id: 'x',
    suite: 'demo',
    file: 'suites/demo.suite.ts',
    title: 't',
    fullName: 't',
    state: 'passed',
    durationMs: 3.4,
    ruleIds: [],
    judged: {},
    failed: {},
    findings: [],
    findingCount: 0,
    notes: [],
    exchanges: 1,
    notJudged: [],
    engineErrors: [],
    ...partial,
  };
}

const fixtureGap = (ruleIds: string[], reason = "fixture 'merchantWithoutWebhooks' unavailable: no strategy") => [
  { reason, category: 'fixture' as const, ruleIds, endedScenario: true },
];

function results(): ScenarioResult[] {
  const broken = ex('GET', '/v0/customers/cus_1', 200, {
    id: 'cus_1',
    object: 'customer',
    note: `<script>${SECRET}</script>`,
  });
  broken.requestHeaders.authorization = `Bearer ${SECRET}`;
  return [
    scenario({
      id: 'a',
      title: 'reads back',
      ruleIds: ['CUSTOMERS.GET.BY_ID'],
      judged: { 'CUSTOMERS.GET.BY_ID': 2, 'SCHEMA.REQUIRED.PRESENT': 1 },
    }),
    scenario({
      id: 'b',
      title: 'shape of a read',
      state: 'failed',
      ruleIds: ['CUSTOMERS.GET.BY_ID'],
      judged: { 'SCHEMA.REQUIRED.PRESENT': 1 },
      failed: { 'SCHEMA.REQUIRED.PRESENT': 1 },
      findingCount: 1,
      findings: [
        {
          source: 'check:response-schema',
          ruleIds: ['SCHEMA.REQUIRED.PRESENT'],
          title: 'Required field missing',
          message: '/validTaxAddress missing',
          exchange: broken,
          replay: `curl -H "Authorization: Bearer ${SECRET}"`,
        },
      ],
    }),
    scenario({
      id: 'c',
      title: 'never enabled',
      state: 'skipped',
      ruleIds: ['WEBHOOKS.404.NEVER_ENABLED'],
      skipReason: "fixture 'merchantWithoutWebhooks' unavailable: no strategy",
      notJudged: fixtureGap(['WEBHOOKS.404.NEVER_ENABLED']),
    }),
    scenario({
      id: 'd',
      title: 'keys',
      state: 'error',
      ruleIds: ['AUTH.KEYS.REFERENCE'],
      error: 'TypeError: cannot read id',
      engineErrors: [
        {
          source: 'scenario',
          message: 'TypeError: cannot read id',
          stack: 'TypeError: cannot read id\n    at keys (suites/auth.suite.ts:1:1)',
          ruleIds: ['AUTH.KEYS.REFERENCE'],
        },
      ],
    }),
  ];
}

function report(bundled = false, acceptance?: Acceptance): Report {
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
    acceptance,
  });
}

const verdictOf = (list: ScenarioResult[], bundled = false) =>
  Object.fromEntries(computeVerdicts(rules, list, { bundled }).map((r) => [r.id, r]));

describe('verdicts', () => {
  test('passed needs a judgement; failed; not judged with its reason and category; not applicable', () => {
    const v = verdictOf(results());
    expect(v['SCHEMA.REQUIRED.PRESENT'].verdict).toBe('failed');
    expect(v['SCHEMA.REQUIRED.PRESENT'].failures[0].exchange?.status).toBe(200);
    expect(v['CUSTOMERS.GET.BY_ID']).toMatchObject({ verdict: 'passed', judgements: 2 });
    expect(v['WEBHOOKS.404.NEVER_ENABLED']).toMatchObject({
      verdict: 'not_judged',
      reasons: ["fixture 'merchantWithoutWebhooks' unavailable: no strategy"],
      notJudged: [{ category: 'fixture' }],
    });
    expect(v['CUSTOMERS.TAX_ID.NULL_CLEARS']).toMatchObject({
      verdict: 'not_judged',
      notJudged: [{ category: 'not-run' }],
    });
    expect(v['AUTH.KEYS.REFERENCE']).toMatchObject({
      verdict: 'not_judged',
      notJudged: [{ category: 'not-applicable' }],
    });
    expect(verdictOf(results(), true)['AUTH.KEYS.REFERENCE']).toMatchObject({
      verdict: 'engine_error',
      engineErrors: [{ message: 'TypeError: cannot read id', stack: expect.stringContaining('auth.suite.ts') }],
    });
  });

  test('citation never passes a rule: a passing scenario that judged nothing of a rule it cites leaves it not judged', () => {
    const v = verdictOf([
      scenario({
        title: 'cites only',
        ruleIds: ['CUSTOMERS.GET.BY_ID', 'AUTH.401.SHAPE'],
        judged: { 'AUTH.401.SHAPE': 1 },
      }),
    ]);
    expect(v['AUTH.401.SHAPE'].verdict).toBe('passed');
    expect(v['CUSTOMERS.GET.BY_ID']).toMatchObject({
      verdict: 'not_judged',
      reasons: ["scenario 'cites only' ended without judging it"],
      notJudged: [{ category: 'target' }],
    });
  });

  test('a scenario stopped by a failure leaves its other rules not judged, not passed', () => {
    const v = verdictOf([
      scenario({
        title: 'stops',
        state: 'failed',
        ruleIds: ['CUSTOMERS.GET.BY_ID', 'CUSTOMERS.TAX_ID.NULL_CLEARS'],
        judged: { 'CUSTOMERS.GET.BY_ID': 1 },
        failed: { 'CUSTOMERS.GET.BY_ID': 1 },
        findingCount: 1,
      }),
    ]);
    expect(v['CUSTOMERS.GET.BY_ID'].verdict).toBe('failed');
    expect(v['CUSTOMERS.TAX_ID.NULL_CLEARS']).toMatchObject({
      verdict: 'not_judged',
      reasons: ["scenario 'stops' stopped when CUSTOMERS.GET.BY_ID failed, before judging it"],
    });
  });

  test('a not-judged end keeps what was judged before it', () => {
    const v = verdictOf([
      scenario({
        state: 'skipped',
        ruleIds: ['CUSTOMERS.GET.BY_ID', 'CUSTOMERS.TAX_ID.NULL_CLEARS'],
        judged: { 'CUSTOMERS.GET.BY_ID': 3 },
        notJudged: [
          {
            reason: 'no second customer',
            category: 'target',
            ruleIds: ['CUSTOMERS.TAX_ID.NULL_CLEARS'],
            endedScenario: true,
          },
        ],
      }),
    ]);
    expect(v['CUSTOMERS.GET.BY_ID'].verdict).toBe('passed');
    expect(v['CUSTOMERS.TAX_ID.NULL_CLEARS']).toMatchObject({ verdict: 'not_judged', reasons: ['no second customer'] });
  });

  test('verdicts count every finding, not only the evidence kept', () => {
    const v = verdictOf([
      scenario({
        state: 'failed',
        ruleIds: ['AUTH.401.SHAPE'],
        judged: { 'AUTH.401.SHAPE': 80 },
        failed: { 'AUTH.401.SHAPE': 80 },
        findingCount: 80,
        findings: [],
      }),
    ]);
    expect(v['AUTH.401.SHAPE']).toMatchObject({ verdict: 'failed', failureCount: 80 });
  });

  test("an engine error is never the target's failure, and beats a pass elsewhere", () => {
    const crash = scenario({
      state: 'error',
      ruleIds: ['CUSTOMERS.GET.BY_ID'],
      engineErrors: [{ source: 'check:money', message: 'check money crashed', ruleIds: ['CUSTOMERS.GET.BY_ID'] }],
    });
    const v = verdictOf([crash, scenario({ ruleIds: ['CUSTOMERS.GET.BY_ID'], judged: { 'CUSTOMERS.GET.BY_ID': 1 } })]);
    expect(v['CUSTOMERS.GET.BY_ID']).toMatchObject({ verdict: 'engine_error', failureCount: 0 });
  });

  test('computeVerdicts takes plain judgement sources (no vitest run needed)', () => {
    const v = Object.fromEntries(
      computeVerdicts(
        rules,
        [
          {
            title: 'live traffic',
            ruleIds: [],
            judged: { 'AUTH.401.SHAPE': 3 },
            findings: [{ source: 'proxy', ruleIds: ['AUTH.401.SHAPE'], title: 'not an Error', message: 'x' }],
          },
        ],
        { bundled: false },
      ).map((r) => [r.id, r]),
    );
    expect(v['AUTH.401.SHAPE']).toMatchObject({ verdict: 'failed', failureCount: 1 });
  });

  test('run errors without failures exit 2; engine errors exit 2', () => {
    expect(buildReport({ ...baseInput(), errors: [{ suite: 'auth', message: 'SyntaxError' }] }).summary).toMatchObject({
      exitCode: 2,
      verdict: 'error',
    });
    expect(
      buildReport({
        ...baseInput(),
        target: { baseUrl: 'http://x', bundled: true, sandbox: false },
        results: [results()[3]],
      }).summary,
    ).toMatchObject({ exitCode: 2, verdict: 'error' });
  });

  test('a failure exits 1 even with gaps and engine errors', () => {
    expect(report(true).summary).toMatchObject({ exitCode: 1, verdict: 'failed' });
  });
});

describe('gaps and exit code 3', () => {
  // Every rule about the target judged but one, left unjudged for a missing fixture.
  const ALL = ['AUTH.401.SHAPE', 'CUSTOMERS.GET.BY_ID', 'CUSTOMERS.TAX_ID.NULL_CLEARS', 'SCHEMA.REQUIRED.PRESENT'];
  const gapOnly = () => [
    scenario({ ruleIds: ALL, judged: Object.fromEntries(ALL.map((id) => [id, 1])) }),
    results()[2],
  ];
  const exit = (acceptance?: Acceptance) => buildReport({ ...baseInput(), results: gapOnly(), acceptance }).summary;

  test('an applicable rule not judged exits 3 and is named', () => {
    expect(exit()).toMatchObject({
      exitCode: 3,
      verdict: 'unjudged',
      gaps: { unaccepted: ['WEBHOOKS.404.NEVER_ENABLED'], accepted: [] },
    });
  });

  test('--allow-unjudged, allowUnjudged by id or family, and minJudged accept the gap', () => {
    expect(exit({ allowUnjudged: true }).exitCode).toBe(0);
    expect(exit({ allowUnjudged: ['WEBHOOKS'] })).toMatchObject({
      exitCode: 0,
      gaps: { accepted: ['WEBHOOKS.404.NEVER_ENABLED'] },
    });
    expect(exit({ allowUnjudged: ['WEBHOOKS.404.NEVER_ENABLED'] }).exitCode).toBe(0);
    expect(exit({ allowUnjudged: ['AUTH'] }).exitCode).toBe(3);
    expect(exit({ minJudged: 4 }).exitCode).toBe(0);
    expect(exit({ minJudged: 5 }).exitCode).toBe(3);
  });

  const ended = (category: 'profile' | 'target' | 'destructive') =>
    scenario({
      state: 'skipped',
      ruleIds: ['CUSTOMERS.GET.BY_ID'],
      notJudged: [{ reason: `ended: ${category}`, category, ruleIds: ['CUSTOMERS.GET.BY_ID'], endedScenario: true }],
    });
  const othersJudged = () =>
    scenario({
      ruleIds: [],
      judged: {
        'AUTH.401.SHAPE': 1,
        'CUSTOMERS.TAX_ID.NULL_CLEARS': 1,
        'SCHEMA.REQUIRED.PRESENT': 1,
        'WEBHOOKS.404.NEVER_ENABLED': 1,
      },
    });

  test('rules not judged for the profile, the target or the destructive setting are gaps too: exit 0 is proof', () => {
    for (const category of ['profile', 'target', 'destructive'] as const) {
      const s = buildReport({ ...baseInput(), results: [othersJudged(), ended(category)] }).summary;
      expect(s, category).toMatchObject({ exitCode: 3, gaps: { unaccepted: ['CUSTOMERS.GET.BY_ID'] } });
    }
  });

  test('a target declared production accepts the destructive gaps, and only those', () => {
    const accepted = { destructive: 'the configuration declares a production target (sandbox: false)' };
    const s = buildReport({
      ...baseInput(),
      results: [othersJudged(), ended('destructive')],
      acceptance: { accepted },
    }).summary;
    expect(s).toMatchObject({ exitCode: 0, gaps: { unaccepted: [], accepted: ['CUSTOMERS.GET.BY_ID'] } });
    const t = buildReport({
      ...baseInput(),
      results: [othersJudged(), ended('target')],
      acceptance: { accepted },
    }).summary;
    expect(t.exitCode).toBe(3);
  });

  test('a narrowed run accepts the rules it left out and says so in its headline; nothing judged is never exit 0', () => {
    const narrowed = { suites: ['customers'] };
    const one = scenario({ ruleIds: ['CUSTOMERS.GET.BY_ID'], judged: { 'CUSTOMERS.GET.BY_ID': 1 } });
    const s = buildReport({ ...baseInput(), results: [one], acceptance: { narrowed } }).summary;
    expect(s).toMatchObject({ exitCode: 0, rules: { judged: 1, total: 5 } });
    expect(s.headline).toBe('judged 1 of 5 rules (1 passed, 0 failed; 4 not judged) — narrowed run: suites customers');
    for (const acceptance of [
      { narrowed: { shard: { index: 2, count: 2 } } },
      { allowUnjudged: true },
      { minJudged: 0 },
    ]) {
      const empty = buildReport({ ...baseInput(), results: [], acceptance }).summary;
      expect(empty, JSON.stringify(acceptance)).toMatchObject({ exitCode: 3, rules: { judged: 0 } });
    }
  });

  test("a judgement under a rule id spec/rules.yaml lacks is the tool's own error: exit 2, never dropped", () => {
    const stray = scenario({ ruleIds: [], judged: { 'VALIDATION.CLIENT.NOT_IN_RULES': 3 } });
    const r = buildReport({ ...baseInput(), results: [...gapOnly(), stray], acceptance: { allowUnjudged: true } });
    expect(r.unknownRuleIds).toEqual(['VALIDATION.CLIENT.NOT_IN_RULES']);
    expect(r.summary).toMatchObject({ exitCode: 2, verdict: 'error' });
    expect(renderMarkdown(r)).toContain('judgements under rule ids spec/rules.yaml lacks');
  });

  test('--fail-on-skip: a scenario that ended early exits 3, and the summary says so', () => {
    const s = buildReport({
      ...baseInput(),
      results: [...gapOnly(), ended('target')],
      acceptance: { allowUnjudged: true, failOnSkip: true },
    }).summary;
    expect(s.exitCode).toBe(3);
    expect(
      buildReport({ ...baseInput(), results: gapOnly(), acceptance: { allowUnjudged: true } }).summary.exitCode,
    ).toBe(0);
  });
});

function baseInput() {
  return {
    runId: 'r',
    toolVersion: '0',
    startedAt: '2024-05-01T10:00:00.000Z',
    durationMs: 1,
    target: { baseUrl: 'http://x', bundled: false, sandbox: false },
    profile: 'quick' as const,
    seed: 1,
    suites: [],
    fixtures: { strategy: 'none', reason: '' },
    destructive: false,
    rules,
    results: [] as ScenarioResult[],
    errors: [],
  };
}

describe('report files', () => {
  test('report.json validates against schemas/report.schema.json', () => {
    const passive = report();
    passive.run = { ...passive.run, traffic: { source: 'the HAR file t.har', exchanges: 3, clients: 1 } };
    for (const r of [report(), report(true), report(false, { allowUnjudged: ['WEBHOOKS'], minJudged: 3 }), passive]) {
      const ok = schemaValidate(JSON.parse(JSON.stringify(r)));
      expect(schemaValidate.errors ?? []).toEqual([]);
      expect(ok).toBe(true);
    }
  });

  test('the schema rejects a failed rule without evidence, a passed rule without a judgement and an unknown verdict', () => {
    const r = JSON.parse(JSON.stringify(report()));
    r.rules.find((x: { verdict: string }) => x.verdict === 'failed').failures = [];
    expect(schemaValidate(r)).toBe(false);
    const p = JSON.parse(JSON.stringify(report()));
    p.rules.find((x: { verdict: string }) => x.verdict === 'passed').judgements = 0;
    expect(schemaValidate(p)).toBe(false);
    const s = JSON.parse(JSON.stringify(report()));
    s.rules[0].verdict = 'skipped';
    expect(schemaValidate(s)).toBe(false);
  });

  test('junit.xml leads with the headline; a testsuite per family, a testcase per rule; failures, skips and engine errors', () => {
    const xml = renderJunit(report(true));
    expect(xml).toMatch(/^<\?xml version="1.0" encoding="UTF-8"\?>/);
    expect(xml).toMatch(/<testsuites name="billing-conform run-1: FAILED \(exit 1\): judged 2 of 6 rules/);
    expect(xml).toMatch(
      /<testsuite name="summary"[^>]*>\s*<testcase name="FAILED \(exit 1\): judged 2 of 6 rules[^"]*" classname="conformance.summary"[^>]*>\s*<system-out>FAILED \(exit 1\)[^\n]*\nfailed SCHEMA.REQUIRED.PRESENT: Required field missing/,
    );
    expect(xml.match(/<testsuite /g)).toHaveLength(5);
    expect(xml.match(/<testcase /g)).toHaveLength(7);
    expect(xml).toMatch(/<testcase name="SCHEMA.REQUIRED.PRESENT"[^>]*>\s*<failure message="Required field missing: /);
    expect(xml).toContain(
      '<skipped message="not judged (fixture): fixture &apos;merchantWithoutWebhooks&apos; unavailable: no strategy"/>',
    );
    expect(xml).toMatch(
      /<testcase name="AUTH.KEYS.REFERENCE"[^>]*>\s*<error message="engine error \(the tool broke, not the target\)/,
    );
    expect(xml).toContain('Required fields &lt;present&gt; &amp; typed.');
    expect(xml).not.toMatch(/<script>/);
  });

  test('report.html leads with the headline, names what was not judged and why, keeps evidence and a coverage matrix', () => {
    const html = renderHtml(report());
    expect(html).not.toMatch(/<(link|script)\b|src=["']http/);
    expect(html).toMatch(/<h1>Conformance: judged 2 of 5 rules/);
    expect(html).toMatch(/<section id="not-judged"><h2>Not judged \(3 rules\)<\/h2>/);
    expect(html).toContain(
      '<td>missing fixture</td><td>fixture &#39;merchantWithoutWebhooks&#39; unavailable: no strategy</td><td><a href="#WEBHOOKS.404.NEVER_ENABLED">',
    );
    expect(html).toContain('<h2>Endpoints &gt; Customers</h2>');
    expect(html).toMatch(/<details open><summary>1 finding<\/summary>/);
    expect(html).toContain('Requirements coverage');
    expect(html).toContain('&lt;script&gt;');
  });

  test('summary.md leads and ends with the verdict, the failed rules first, then one line per reason not judged', () => {
    const md = renderMarkdown(report());
    expect(md).toMatch(
      /^## ❌ Conformance: FAILED \(exit 1\): judged 2 of 5 rules \(1 passed, 1 failed; 3 not judged\)/,
    );
    expect(md.trimEnd()).toMatch(/\*\*FAILED \(exit 1\): judged 2 of 5 rules[^*]*\*\*$/);
    // The failed rule, then its finding's fields, each on its own line.
    const failed = md.indexOf(
      '- **SCHEMA.REQUIRED.PRESENT**: Required field missing\n    - request: `GET /v0/customers/cus_1 → 200`',
    );
    const reason = md.indexOf(
      "- **missing fixture**: fixture 'merchantWithoutWebhooks' unavailable: no strategy — `WEBHOOKS.404.NEVER_ENABLED`",
    );
    expect(failed).toBeGreaterThan(0);
    expect(reason).toBeGreaterThan(failed);
    expect(md).toContain('applicable rule(s) not judged and not accepted (exit 3)');
    expect(md).toContain('| CUSTOMERS | 1 | 0 | 1 | 0 |');
    expect(md).toContain('1 reference-server rule(s) not applicable to this target');
  });

  test('written files never contain a registered key', async () => {
    clearSecrets();
    registerSecret(SECRET, 'CONFORM_API_KEY');
    const dir = await mkdtemp(join(tmpdir(), 'conform-report-'));
    const files = await writeReports(report(), dir);
    expect(files.map((f) => f.slice(dir.length + 1))).toEqual([
      'report.json',
      'junit.xml',
      'report.html',
      'summary.md',
    ]);
    for (const f of files) {
      const text = await readFile(f, 'utf8');
      expect(text, f).not.toContain(SECRET);
    }
    expect(await readFile(join(dir, 'report.json'), 'utf8')).toContain('Bearer $CONFORM_API_KEY');
  });
});

describe('merge', () => {
  test('shards merge: failed anywhere fails, a judgement beats not judged, findings and scenarios add up', () => {
    const a = buildReport({
      ...baseInput(),
      runId: 'r-shard1of2',
      shard: { index: 1, count: 2 },
      results: [
        scenario({ ruleIds: ['CUSTOMERS.GET.BY_ID'], judged: { 'CUSTOMERS.GET.BY_ID': 1 } }),
        scenario({
          state: 'skipped',
          ruleIds: ['WEBHOOKS.404.NEVER_ENABLED'],
          notJudged: fixtureGap(['WEBHOOKS.404.NEVER_ENABLED'], 'no fixture'),
        }),
        scenario({
          state: 'failed',
          ruleIds: ['AUTH.401.SHAPE'],
          judged: { 'AUTH.401.SHAPE': 2 },
          failed: { 'AUTH.401.SHAPE': 2 },
          findingCount: 2,
          findings: [{ source: 's', ruleIds: ['AUTH.401.SHAPE'], title: 'not 401', message: 'x' }],
        }),
      ],
    });
    const b = buildReport({
      ...baseInput(),
      runId: 'r-shard2of2',
      shard: { index: 2, count: 2 },
      results: [
        scenario({ ruleIds: ['WEBHOOKS.404.NEVER_ENABLED'], judged: { 'WEBHOOKS.404.NEVER_ENABLED': 1 } }),
        scenario({
          state: 'failed',
          ruleIds: ['AUTH.401.SHAPE'],
          judged: { 'AUTH.401.SHAPE': 1 },
          failed: { 'AUTH.401.SHAPE': 1 },
          findingCount: 1,
          findings: [{ source: 's', ruleIds: ['AUTH.401.SHAPE'], title: 'not 401', message: 'y' }],
        }),
      ],
    });
    const m = mergeReports([a, b]);
    const v = Object.fromEntries(m.rules.map((r) => [r.id, r]));
    expect(v['CUSTOMERS.GET.BY_ID'].verdict).toBe('passed');
    expect(v['WEBHOOKS.404.NEVER_ENABLED'].verdict).toBe('passed');
    expect(v['AUTH.401.SHAPE']).toMatchObject({ verdict: 'failed', failureCount: 3, judgements: 3 });
    expect(v['CUSTOMERS.TAX_ID.NULL_CLEARS']).toMatchObject({
      verdict: 'not_judged',
      notJudged: [{ category: 'not-run' }],
    });
    expect(v['AUTH.KEYS.REFERENCE']).toMatchObject({
      verdict: 'not_judged',
      notJudged: [{ category: 'not-applicable' }],
    });
    expect(m.scenarios).toHaveLength(5);
    expect(m.run.shard).toBeUndefined();
    expect(m.run.id).toBe('r-merged');
    expect(m.summary).toMatchObject({
      exitCode: 1,
      headline: 'judged 3 of 5 rules (2 passed, 1 failed; 2 not judged)',
    });
    expect(schemaValidate(JSON.parse(JSON.stringify(m)))).toBe(true);
  });

  test('a gap in one shard that another shard judged is no gap; the acceptance of the run carries over', () => {
    const gap = (shard: number, acceptance?: Acceptance) =>
      buildReport({
        ...baseInput(),
        runId: `r-shard${shard}of2`,
        shard: { index: shard, count: 2 },
        acceptance,
        results: [
          scenario({
            state: 'skipped',
            ruleIds: ['WEBHOOKS.404.NEVER_ENABLED'],
            notJudged: fixtureGap(['WEBHOOKS.404.NEVER_ENABLED'], 'no fixture'),
          }),
          ...(shard === 1
            ? [
                scenario({
                  ruleIds: [],
                  judged: { 'AUTH.401.SHAPE': 1, 'CUSTOMERS.GET.BY_ID': 1, 'SCHEMA.REQUIRED.PRESENT': 1 },
                }),
              ]
            : [scenario({ ruleIds: [], judged: { 'CUSTOMERS.TAX_ID.NULL_CLEARS': 1 } })]),
        ],
      });
    // Each shard alone is narrowed: the rules the other judged are accepted there, never in the merge.
    expect(gap(2).summary.headline).toMatch(/narrowed run: shard 2\/2$/);
    expect(mergeReports([gap(1), gap(2)]).summary.headline).not.toMatch(/narrowed/);
    expect(mergeReports([gap(1), gap(2)]).summary).toMatchObject({
      exitCode: 3,
      gaps: { unaccepted: ['WEBHOOKS.404.NEVER_ENABLED'] },
    });
    expect(mergeReports([gap(1, { allowUnjudged: true }), gap(2, { allowUnjudged: true })]).summary.exitCode).toBe(0);
  });

  test('reports of different targets do not merge', () => {
    const a = buildReport(baseInput());
    const b = buildReport({ ...baseInput(), target: { baseUrl: 'http://y', bundled: false, sandbox: false } });
    expect(() => mergeReports([a, b])).toThrow(/different base URLs/);
  });
});
