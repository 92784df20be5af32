/**
 * What a red gate prints, so that a team can act on it: a failed scenario's line names the rules
 * that failed in it (never only the ones it cites that passed), the normal console keeps quiet
 * about what passed and says how far the run is, and a gap the target's own answers cause is
 * said plainly, without pointing at fixtures or at accepting it.
 */
import { describe, expect, test } from 'vitest';
import { outputStyle, progressLine, ProgressCounter, worthALine } from '../../src/engine/runner/progress.ts';
import type { ScenarioResult } from '../../src/engine/runner/types.ts';
import { detailOf } from '../../src/engine/messages/finding-text.ts';

const base: ScenarioResult = {
  id: '1',
  suite: 'customers',
  file: 'f',
  title: 'reads a customer',
  fullName: 'reads a customer',
  state: 'passed',
  durationMs: 10,
  ruleIds: ['CUSTOMERS.GET.BY_ID#answers-resource'],
  judged: {},
  failed: {},
  findings: [],
  findingCount: 0,
  notes: [],
  exchanges: 1,
  notJudged: [],
  engineErrors: [],
};

const failedScenario: ScenarioResult = {
  ...base,
  state: 'failed',
  failed: { 'SCHEMA.REQUIRED.PRESENT': 1 },
  findingCount: 1,
  findings: [
    {
      source: 'check:response-schema',
      ruleIds: ['SCHEMA.REQUIRED.PRESENT'],
      title: 'Required field validTaxAddress missing in getCustomer response',
      message: "GET /v0/customers/cus_1 → 200: /validTaxAddress must have required property 'validTaxAddress'",
    },
  ],
};

describe('a scenario line', () => {
  const style = outputStyle({ env: { CI: 'true' }, write: () => undefined });

  test('of a failed scenario names the rules that failed in it and what the finding found', () => {
    const [head, finding] = progressLine(style, failedScenario);
    expect(head).toMatch(/^FAIL customers > reads a customer \[failed: SCHEMA\.REQUIRED\.PRESENT\]/);
    expect(head).not.toContain('CUSTOMERS.GET.BY_ID');
    expect(finding).toBe(
      "    [SCHEMA.REQUIRED.PRESENT] Required field validTaxAddress missing in getCustomer response: /validTaxAddress must have required property 'validTaxAddress'",
    );
  });

  test('is printed, at normal detail, only when it needs a reader', () => {
    const ended = (category: 'profile' | 'fixture') => ({
      ...base,
      state: 'skipped' as const,
      notJudged: [{ reason: 'r', category, ruleIds: base.ruleIds, endedScenario: true }],
    });
    expect(worthALine(style, base)).toBe(false);
    expect(worthALine(style, failedScenario)).toBe(true);
    expect(worthALine(style, ended('profile'))).toBe(false);
    expect(worthALine(style, ended('fixture'))).toBe(true);
    expect(worthALine({ ...style, detail: 'verbose' }, base)).toBe(true);
    expect(worthALine({ ...style, detail: 'quiet' }, failedScenario)).toBe(false);
  });
});

describe('the progress line', () => {
  test('says how far the run is at each quarter, with the failures so far and the time left', () => {
    const lines: string[] = [];
    const counter = new ProgressCounter(outputStyle({ env: { CI: 'true' }, write: () => undefined }), 8);
    const t0 = Date.now();
    for (let i = 0; i < 8; i++) {
      const line = counter.ended(i === 1 ? failedScenario : base, t0 + (i + 1) * 1000);
      if (line) lines.push(line);
    }
    expect(lines).toEqual([
      expect.stringMatching(/^… 2 of 8 scenarios done, 1 failed, about \d+ s left$/),
      expect.stringMatching(/^… 4 of 8 scenarios done, 1 failed/),
      expect.stringMatching(/^… 6 of 8 scenarios done, 1 failed/),
    ]);
  });

  test('is silent when asked for quiet or verbose output', () => {
    for (const detail of ['quiet', 'verbose'] as const) {
      const counter = new ProgressCounter({ ...outputStyle({ write: () => undefined }), detail }, 4);
      expect([1, 2, 3, 4].map(() => counter.ended(base)).filter(Boolean)).toEqual([]);
    }
  });
});

describe('a finding on one line', () => {
  test('drops the exchange lead and keeps the field', () => {
    expect(detailOf('PATCH /v0/items/itm_1 → 200: name sent "a", answered "b" (name: another value)')).toBe(
      'name sent "a", answered "b" (name: another value)',
    );
    expect(detailOf(`x${'y'.repeat(400)}`)).toHaveLength(220);
  });
});
