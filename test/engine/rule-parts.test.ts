/**
 * Rules have parts: a rule passes only when every condition its statement makes was judged on
 * the target and none failed. A part one source left unjudged stays a gap unless another source
 * judged that same part.
 */
import { beforeAll, describe, expect, test } from 'vitest';
import {
  judgedPart,
  judgementKey,
  parseRules,
  partsOf,
  unjudgedKeys,
  type RuleIndex,
} from '../../src/contract/rules.ts';
import { computeVerdicts, type JudgementSource } from '../../src/engine/reporters/verdicts.ts';
import { mergeReports, buildReport, type Report } from '../../src/engine/reporters/index.ts';
import type { ScenarioResult } from '../../src/engine/runner/types.ts';

const RULES_YAML = `
version: 1
rules:
  - id: CUSTOMERS.GET.BY_ID
    family: CUSTOMERS
    statement: "GET answers the customer with that id; an unknown id gets 404."
    section: "Endpoints > Customers"
    operations: [getCustomer]
    kind: contract
    parts:
      - { id: answers-resource, statement: "GET of an existing customer answers that customer." }
      - { id: unknown-404, statement: "GET of an unknown id gets 404 in Error shape." }
  - { id: AUTH.401.SHAPE, family: AUTH, statement: "401 in Error shape.", section: Authentication, operations: [], kind: contract }
`;

let rules: RuleIndex;
beforeAll(async () => {
  rules = await parseRules(RULES_YAML);
});

const verdicts = (sources: JudgementSource[]) =>
  Object.fromEntries(computeVerdicts(rules, sources, { bundled: false }).map((r) => [r.id, r]));

describe('rules.yaml parts', () => {
  test('a rule lists its parts, or its statement is its one part', () => {
    expect(partsOf(rules.byId('CUSTOMERS.GET.BY_ID')!).map((p) => p.id)).toEqual(['answers-resource', 'unknown-404']);
    expect(partsOf(rules.byId('AUTH.401.SHAPE')!)).toEqual([{ id: 'whole', statement: '401 in Error shape.' }]);
  });

  test('a judgement of a rule with several parts must name one that exists', () => {
    expect(judgedPart(rules, 'CUSTOMERS.GET.BY_ID')).toEqual({ error: expect.stringMatching(/names no part/) });
    expect(judgedPart(rules, 'CUSTOMERS.GET.BY_ID#nope')).toEqual({ error: expect.stringMatching(/no part nope/) });
    expect(judgementKey(rules, 'CUSTOMERS.GET.BY_ID#unknown-404')).toBe('CUSTOMERS.GET.BY_ID#unknown-404');
    expect(judgementKey(rules, 'AUTH.401.SHAPE')).toBe('AUTH.401.SHAPE');
    expect(() => judgementKey(rules, 'CUSTOMERS.GET.BY_ID')).toThrow(/names no part/);
  });

  test('a repeated part id is refused when the rules load', async () => {
    const doubled = RULES_YAML.replace('id: unknown-404', 'id: answers-resource');
    await expect(parseRules(doubled)).rejects.toThrow(/repeats the part answers-resource/);
  });

  test('the parts a scenario cites and has not judged', () => {
    const record = {
      ruleIds: ['CUSTOMERS.GET.BY_ID', 'AUTH.401.SHAPE'],
      judged: { 'CUSTOMERS.GET.BY_ID#unknown-404': 1 },
    };
    expect(unjudgedKeys(rules, record)).toEqual(['CUSTOMERS.GET.BY_ID#answers-resource', 'AUTH.401.SHAPE']);
  });
});

describe('verdicts over parts', () => {
  test('half a statement judged is not a pass: the open part is named with its reason', () => {
    const v = verdicts([
      {
        title: 'an unknown customer gets 404',
        ruleIds: ['CUSTOMERS.GET.BY_ID#unknown-404'],
        judged: { 'CUSTOMERS.GET.BY_ID#unknown-404': 1 },
      },
      {
        title: 'a customer reads back',
        ruleIds: ['CUSTOMERS.GET.BY_ID'],
        judged: {},
        notJudged: [
          { reason: "fixture 'customer' unavailable", category: 'fixture', ruleIds: ['CUSTOMERS.GET.BY_ID'] },
        ],
      },
    ])['CUSTOMERS.GET.BY_ID'];
    expect(v.verdict).toBe('not_judged');
    expect(v.reasons).toEqual(["part answers-resource: fixture 'customer' unavailable"]);
    expect(v.notJudged).toEqual([
      expect.objectContaining({ part: 'answers-resource', category: 'fixture', scenario: 'a customer reads back' }),
    ]);
    expect(v.parts.map((p) => [p.id, p.verdict])).toEqual([
      ['answers-resource', 'not_judged'],
      ['unknown-404', 'passed'],
    ]);
  });

  test('every part judged and none failed passes; a failure of any part fails the rule', () => {
    const both: JudgementSource = {
      title: 's',
      ruleIds: ['CUSTOMERS.GET.BY_ID'],
      judged: { 'CUSTOMERS.GET.BY_ID#unknown-404': 2, 'CUSTOMERS.GET.BY_ID#answers-resource': 1 },
    };
    expect(verdicts([both])['CUSTOMERS.GET.BY_ID'].verdict).toBe('passed');
    const broken: JudgementSource = {
      ...both,
      failed: { 'CUSTOMERS.GET.BY_ID#unknown-404': 1 },
      findings: [{ source: 'scenario', ruleIds: ['CUSTOMERS.GET.BY_ID#unknown-404'], title: 'got 200', message: 'x' }],
    };
    const v = verdicts([broken])['CUSTOMERS.GET.BY_ID'];
    expect(v.verdict).toBe('failed');
    expect(v.failures[0].part).toBe('unknown-404');
    expect(v.parts.find((p) => p.id === 'unknown-404')?.verdict).toBe('failed');
  });

  test('a part left unjudged by one scenario is judged by another: the rule passes', () => {
    const v = verdicts([
      {
        title: 'first',
        ruleIds: ['CUSTOMERS.GET.BY_ID'],
        judged: { 'CUSTOMERS.GET.BY_ID#unknown-404': 1 },
        notJudged: [
          { reason: 'no second key', category: 'credential', ruleIds: ['CUSTOMERS.GET.BY_ID#answers-resource'] },
        ],
      },
      { title: 'second', ruleIds: [], judged: { 'CUSTOMERS.GET.BY_ID#answers-resource': 1 } },
    ]);
    expect(v['CUSTOMERS.GET.BY_ID'].verdict).toBe('passed');
  });

  test('a scenario that cites a part and ends without judging it or saying why leaves it open', () => {
    const v = verdicts([
      { title: 'quiet', ruleIds: ['CUSTOMERS.GET.BY_ID'], judged: { 'CUSTOMERS.GET.BY_ID#unknown-404': 1 } },
    ])['CUSTOMERS.GET.BY_ID'];
    expect(v.verdict).toBe('not_judged');
    expect(v.reasons).toEqual(["part answers-resource: scenario 'quiet' ended without judging it"]);
  });

  test('a judgement naming no part of a rule of several is an engine error, never a pass', () => {
    const v = verdicts([{ title: 'old', ruleIds: [], judged: { 'CUSTOMERS.GET.BY_ID': 3 } }])['CUSTOMERS.GET.BY_ID'];
    expect(v.verdict).toBe('engine_error');
    expect(v.reasons[0]).toMatch(/names no part/);
  });

  test('shard reports merge part by part', () => {
    const report = (judged: Record<string, number>): Report =>
      buildReport({
        runId: 'r',
        toolVersion: '0.0.0',
        startedAt: new Date(0).toISOString(),
        durationMs: 1000,
        target: { baseUrl: 'http://127.0.0.1:1', bundled: false, sandbox: true },
        profile: 'quick',
        seed: 1,
        suites: ['customers'],
        fixtures: { strategy: 'none', reason: 'test' },
        destructive: true,
        rules,
        results: [result({ ruleIds: ['CUSTOMERS.GET.BY_ID', 'AUTH.401.SHAPE'], judged })],
        errors: [],
      });
    const a = report({ 'CUSTOMERS.GET.BY_ID#unknown-404': 1, 'AUTH.401.SHAPE': 1 });
    const b = report({ 'CUSTOMERS.GET.BY_ID#answers-resource': 1 });
    expect(a.rules.find((r) => r.id === 'CUSTOMERS.GET.BY_ID')?.verdict).toBe('not_judged');
    const merged = mergeReports([a, b]).rules.find((r) => r.id === 'CUSTOMERS.GET.BY_ID')!;
    expect(merged.verdict).toBe('passed');
    expect(merged.parts.map((p) => p.judgements)).toEqual([1, 1]);
  });
});

function result(partial: Partial<ScenarioResult>): ScenarioResult {
  return {
    id: 'x',
    suite: 'customers',
    file: 'suites/customers.suite.ts',
    title: 't',
    fullName: 't',
    state: 'passed',
    durationMs: 1,
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
