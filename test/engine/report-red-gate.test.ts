/**
 * report.html and junit.xml for the person whose gate went red: failed rules linked at the
 * very top, then what was not judged and why; failed cells highlighted; advisory notes counted
 * apart; a rate-limit failure replayed as its whole request sequence; real testcase times.
 */
import { beforeAll, expect, test } from 'vitest';
import { parseRules, type RuleIndex } from '../../src/contract/rules.ts';
import { buildReport, narrative, renderHtml, renderJunit, type Report } from '../../src/engine/reporters/index.ts';
import { RequestSequence } from '../../src/engine/http/replay-script.ts';
import type { ScenarioResult } from '../../src/engine/runner/types.ts';
import { ex } from './helpers/exchange.ts';

const RULES_YAML = `
version: 1
source: billing-service-interface.md
rules:
  - { id: CUSTOMERS.GET.BY_ID, family: CUSTOMERS, statement: "A customer reads back.", section: "Endpoints > Customers", operations: [getCustomer], kind: contract }
  - { id: RATE.CUSTOMERS_LIST.LIMIT, family: RATE, statement: "GET /v0/customers: 60 per 6 seconds.", section: Limits, operations: [listCustomers], kind: contract }
  - { id: WEBHOOKS.404.NEVER_ENABLED, family: WEBHOOKS, statement: "404 when never enabled.", section: "Endpoints > Webhooks", operations: [updateWebhooks], kind: contract }
`;

let rules: RuleIndex;
beforeAll(async () => {
  rules = await parseRules(RULES_YAML);
});

function scenario(partial: Partial<ScenarioResult>): ScenarioResult {
  return {
    id: 'x',
    suite: 'demo',
    file: 'suites/demo.suite.ts',
    title: 't',
    fullName: 't',
    state: 'passed',
    durationMs: 0,
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

/** A report of a run on a sandbox through a fixtures module, holding `results`. */
function sandboxReport(runId: string, results: ScenarioResult[]): Report {
  return buildReport({
    runId,
    toolVersion: '0',
    startedAt: new Date(0).toISOString(),
    durationMs: 1,
    target: { baseUrl: 'https://sandbox.example.com', bundled: false, sandbox: true },
    profile: 'quick',
    seed: 1,
    suites: ['demo'],
    fixtures: { strategy: 'module', reason: 'config' },
    destructive: true,
    rules,
    results,
    errors: [],
  });
}

function report(): Report {
  const seq = new RequestSequence();
  for (let i = 0; i < 61; i++)
    seq.add(
      {
        method: 'GET',
        url: 'https://sandbox.example.com/v0/customers',
        requestHeaders: { authorization: 'Bearer $CONFORM_API_KEY' },
      },
      i,
    );
  const last = ex('GET', '/v0/customers', 200, { object: 'list', data: [] });
  const results = [
    scenario({
      id: 'a',
      title: 'reads back',
      durationMs: 1250,
      ruleIds: ['CUSTOMERS.GET.BY_ID'],
      judged: { 'CUSTOMERS.GET.BY_ID': 2 },
      notes: ['the target answered with extra fields'],
    }),
    scenario({
      id: 'b',
      title: 'reads another',
      durationMs: 750,
      ruleIds: ['CUSTOMERS.GET.BY_ID'],
      judged: { 'CUSTOMERS.GET.BY_ID': 1 },
      notes: ['second note'],
    }),
    scenario({
      id: 'c',
      suite: 'rate-limits',
      title: 'GET /v0/customers: 60 per 6 s',
      state: 'failed',
      durationMs: 6400,
      ruleIds: ['RATE.CUSTOMERS_LIST.LIMIT'],
      judged: { 'RATE.CUSTOMERS_LIST.LIMIT': 1 },
      failed: { 'RATE.CUSTOMERS_LIST.LIMIT': 1 },
      findingCount: 1,
      findings: [
        {
          source: 'scenario',
          ruleIds: ['RATE.CUSTOMERS_LIST.LIMIT'],
          title: 'request 61 of a window whose x-ratelimit-limit is 60 was admitted',
          message: 'request 61 admitted',
          exchange: last,
          replay: 'curl -X GET https://sandbox.example.com/v0/customers',
          replaySequence: seq.script('GET /v0/customers: 60 per 6 s'),
        },
      ],
    }),
    scenario({
      id: 'd',
      suite: 'webhooks',
      title: 'never enabled',
      state: 'skipped',
      ruleIds: ['WEBHOOKS.404.NEVER_ENABLED'],
      notJudged: [
        {
          reason: "fixture 'merchantWithoutWebhooks' unavailable: not in fixtures file",
          category: 'fixture',
          ruleIds: ['WEBHOOKS.404.NEVER_ENABLED'],
          endedScenario: true,
        },
      ],
    }),
  ];
  return buildReport({
    runId: 'run-red',
    toolVersion: '0.1.0',
    startedAt: '2024-05-01T10:00:00.000Z',
    durationMs: 9000,
    target: { baseUrl: 'https://sandbox.example.com', bundled: false, sandbox: true },
    profile: 'quick',
    seed: 1,
    suites: ['demo', 'rate-limits', 'webhooks'],
    fixtures: { strategy: 'file', reason: 'test' },
    destructive: true,
    rules,
    results,
    errors: [],
  });
}

test('report.html: failed rules linked at the very top, then the not-judged ones with their reasons, then the overview', () => {
  const html = renderHtml(report());
  const main = html.slice(html.indexOf('<main>'));
  const at = (s: string) => main.indexOf(s);
  expect(at('<section id="failed-rules">')).toBeGreaterThan(-1);
  expect(at('<section id="failed-rules">')).toBeLessThan(at('<section id="not-judged">'));
  expect(at('<section id="not-judged">')).toBeLessThan(at('<section id="overview">'));
  const failed = main.slice(at('<section id="failed-rules">'), at('</section>'));
  expect(failed).toContain('<a href="#RATE.CUSTOMERS_LIST.LIMIT">');
  expect(failed).toContain('request 61 of a window whose x-ratelimit-limit is 60 was admitted');
  expect(failed).not.toContain('CUSTOMERS.GET.BY_ID');
  expect(main.slice(at('<section id="not-judged">'))).toMatch(
    /missing fixture<\/td><td>fixture &#39;merchantWithoutWebhooks&#39; unavailable: not in fixtures file<\/td><td><a href="#WEBHOOKS.404.NEVER_ENABLED">/,
  );
  // The rule itself, where the link leads.
  expect(html).toContain('<div class="rule" id="RATE.CUSTOMERS_LIST.LIMIT">');
});

test('report.html: failed cells highlighted in the family table; notes counted apart from failures', () => {
  const html = renderHtml(report());
  expect(html).toMatch(
    /<tr><td><a href="#RATE\.CUSTOMERS_LIST\.LIMIT">RATE<\/a><\/td><td class="n">0<\/td><td class="n hot">1<\/td>/,
  );
  expect(html).toMatch(/<tr><td>CUSTOMERS<\/td><td class="n">1<\/td><td class="n">0<\/td>/);
  expect(html).toMatch(/<a href="#notes">2 advisory notes<\/a>, counted apart: never failures/);
  expect(html).toContain('<span class="badge failed">1 failed</span>');
});

test('a rate-limit failure carries the replay of its whole sequence, in report.html and junit.xml', () => {
  const r = report();
  const failure = r.rules.find((x) => x.id === 'RATE.CUSTOMERS_LIST.LIMIT')!.failures[0];
  expect(failure.replaySequence).toMatch(/for _ in \$\(seq 61\); do curl/);
  expect(renderHtml(r)).toMatch(
    /replay the whole sequence[\s\S]*for _ in \$\(seq 61\); do curl -sS -o \/dev\/null -w &quot;\$show&quot; -X GET &#39;https:\/\/sandbox\.example\.com\/v0\/customers&#39;/,
  );
  expect(renderJunit(r)).toMatch(
    /replay \(the whole sequence\):\n    #!\/usr\/bin\/env bash\n[\s\S]*    for _ in \$\(seq 61\); do curl/,
  );
});

test('junit.xml: each testcase takes the time of the scenarios that judged its rule', () => {
  const xml = renderJunit(report());
  expect(xml).toContain('<testcase name="CUSTOMERS.GET.BY_ID" classname="conformance.CUSTOMERS" time="2.000">');
  expect(xml).toContain('<testcase name="RATE.CUSTOMERS_LIST.LIMIT" classname="conformance.RATE" time="6.400">');
  expect(xml).toMatch(/<testsuite name="RATE" tests="1" failures="1" errors="0" skipped="0" time="6\.400"/);
});

test('a gap the target cannot support is said plainly: no fixture advice, no invitation to accept it', () => {
  const r = sandboxReport('gap', [
    scenario({ ruleIds: ['CUSTOMERS.GET.BY_ID'], judged: { 'CUSTOMERS.GET.BY_ID': 1 } }),
    scenario({
      state: 'skipped',
      ruleIds: ['WEBHOOKS.404.NEVER_ENABLED'],
      notJudged: [
        {
          reason: 'the answer does not show the field whose shape the document does not show',
          category: 'target',
          ruleIds: ['WEBHOOKS.404.NEVER_ENABLED'],
          endedScenario: true,
        },
      ],
    }),
    scenario({
      state: 'skipped',
      ruleIds: ['RATE.CUSTOMERS_LIST.LIMIT'],
      notJudged: [
        {
          reason: 'no second key',
          category: 'credential',
          ruleIds: ['RATE.CUSTOMERS_LIST.LIMIT'],
          endedScenario: true,
        },
      ],
    }),
  ]);
  const line = narrative(r).gapLine ?? '';
  expect(renderJunit(r)).toContain('could not be judged because the target');
  expect(line).toMatch(
    /for 1: give the keys they ask for \(docs\/config\.md\); or accept the gap knowingly: --allow-unjudged=RATE\.CUSTOMERS_LIST\.LIMIT/,
  );
  expect(line).toMatch(
    /1 could not be judged because the target's answers do not show what they need \(WEBHOOKS\.404\.NEVER_ENABLED/,
  );
  expect(line).not.toMatch(/allow-unjudged=[^ ]*WEBHOOKS/);
  expect(line).not.toMatch(/fixtures/);
});

test('fixtures unavailable for one cause read as one line naming them', () => {
  const cause = 'no call reached the back office at CONFORM_ADMIN_URL (http://x) (HTTP 404): is it your base URL?';
  const ended = (fixture: string, rule: string) =>
    scenario({
      state: 'skipped',
      ruleIds: [rule],
      notJudged: [
        {
          reason: `fixture '${fixture}' unavailable: ${cause}`,
          category: 'fixture',
          ruleIds: [rule],
          endedScenario: true,
        },
      ],
    });
  const r = sandboxReport('cause', [
    ended('customer', 'CUSTOMERS.GET.BY_ID'),
    ended('webhooksEnabled', 'WEBHOOKS.404.NEVER_ENABLED'),
    ended('subscriptions', 'RATE.CUSTOMERS_LIST.LIMIT'),
  ]);
  const lines = narrative(r).unjudged.filter((u) => u.category === 'fixture');
  expect(lines).toHaveLength(1);
  expect(lines[0].reason).toMatch(/^fixtures '\w+', '\w+' and 1 more unavailable: no call reached the back office/);
  expect(lines[0].reason.endsWith(cause)).toBe(true);
  expect(lines[0].keys.sort()).toEqual([
    'CUSTOMERS.GET.BY_ID',
    'RATE.CUSTOMERS_LIST.LIMIT',
    'WEBHOOKS.404.NEVER_ENABLED',
  ]);
});
