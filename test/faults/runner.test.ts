/** How runs are judged, summarised and printed, and how `conform faults` reads its flags (no server). */
import { describe, expect, test } from 'vitest';
import { CATALOG, faultByName, type CatalogFault } from '../../src/faults/catalog/index.ts';
import { judge, summarize } from '../../src/faults/results.ts';
import { suitesFor, type Applied, type FaultResult, type RunRecord } from '../../src/faults/runner.ts';
import { catalogMarkdown, firedShort, markdown, resultTable, summaryLines } from '../../src/faults/report.ts';
import { parseFaultsArgs, selectFaults } from '../../src/cli/commands/faults.ts';
import { CliError } from '../../src/cli/command.ts';

const fault = faultByName('rate-missing-retry-after')!;
const benign = faultByName('benign-extra-properties')!;

function run(over: Partial<RunRecord & Applied> = {}) {
  return {
    exitCode: 1,
    failedRules: ['RATE.RETRY_AFTER.ON_429'],
    informationalFailed: [],
    durationMs: 1500,
    suites: ['rate-limits'],
    reportDir: '/tmp/x',
    applied: 3,
    appliedSetup: 0,
    exchanges: 40,
    ...over,
  };
}
const baseline = (failedRules: string[] = [], exitCode = failedRules.length ? 1 : 0): RunRecord => ({
  exitCode,
  failedRules,
  informationalFailed: [],
  durationMs: 9000,
  suites: [],
  reportDir: '/tmp/b',
});

describe('judging one run', () => {
  test('a failed run through a fault that applied is caught, citing the rules it fired', () => {
    const r = judge(fault, run(), baseline());
    expect(r).toMatchObject({
      outcome: 'caught',
      rulesFired: ['RATE.RETRY_AFTER.ON_429'],
      expectedFired: ['RATE.RETRY_AFTER.ON_429'],
      applied: 3,
    });
  });

  test('a fault that never applied is not exercised, even when the run failed', () => {
    expect(judge(fault, run({ applied: 0 }), baseline()).outcome).toBe('not-exercised');
  });

  test('a fault that changed only setup requests (no check judges them) is not exercised, unless the run failed anew', () => {
    const setupOnly = { applied: 0, appliedSetup: 2 };
    expect(judge(fault, run({ ...setupOnly, exitCode: 0, failedRules: [] }), baseline())).toMatchObject({
      outcome: 'not-exercised',
      appliedSetup: 2,
    });
    expect(judge(fault, run(setupOnly), baseline()).outcome).toBe('caught');
    // A suite exchange changed as well: a passing run missed it.
    expect(judge(fault, run({ applied: 1, appliedSetup: 2, exitCode: 0, failedRules: [] }), baseline()).outcome).toBe(
      'missed',
    );
  });

  test('a passing run misses the fault; a run that could not complete is an error', () => {
    expect(judge(fault, run({ exitCode: 0, failedRules: [] }), baseline()).outcome).toBe('missed');
    expect(judge(fault, run({ exitCode: 2, failedRules: [], error: 'exit 2' }), baseline()).outcome).toBe('error');
    expect(judge(fault, run({ exitCode: null, failedRules: [], error: 'timed out' }), baseline()).outcome).toBe(
      'error',
    );
  });

  test('rules the baseline already fails do not count: only new ones catch a fault', () => {
    const known = baseline(['RATE.RETRY_AFTER.ON_429']);
    expect(judge(fault, run(), known)).toMatchObject({ outcome: 'missed', rulesFired: [] });
    expect(judge(fault, run({ failedRules: ['RATE.RETRY_AFTER.ON_429', 'RATE.EXCEEDED.BODY'] }), known)).toMatchObject({
      outcome: 'caught',
      rulesFired: ['RATE.EXCEEDED.BODY'],
    });
  });

  test('a benign variant is flagged when the run fails, and passes otherwise', () => {
    expect(judge(benign, run({ failedRules: ['CONV.EXTRA_FIELDS.ALLOWED'] }), baseline()).outcome).toBe('flagged');
    expect(judge(benign, run({ exitCode: 0, failedRules: [] }), baseline()).outcome).toBe('passed');
  });
});

describe('summary and exit code', () => {
  const results = (outcomes: Array<[CatalogFault, FaultResult['outcome']]>): FaultResult[] =>
    outcomes.map(([f, outcome]) => ({ ...judge(f, run(), undefined), outcome }));

  test('rates: caught / faults and flagged / benign; exit 0 only when all caught and none flagged', () => {
    const other = faultByName('conv-wrong-id-prefix')!;
    const s = summarize(
      results([
        [fault, 'caught'],
        [other, 'missed'],
        [benign, 'passed'],
      ]),
      1000,
      baseline(),
    );
    expect(s).toMatchObject({
      faults: 2,
      caught: 1,
      missed: 1,
      detectionRate: 0.5,
      benign: 1,
      flagged: 0,
      falseAlarmRate: 0,
      exitCode: 1,
    });
    expect(
      summarize(
        results([
          [fault, 'caught'],
          [benign, 'passed'],
        ]),
        1000,
        baseline(),
      ).exitCode,
    ).toBe(0);
    expect(
      summarize(
        results([
          [fault, 'caught'],
          [benign, 'flagged'],
        ]),
        1000,
        baseline(),
      ),
    ).toMatchObject({ falseAlarmRate: 1, exitCode: 1 });
    expect(summarize(results([[fault, 'not-exercised']]), 1000, baseline())).toMatchObject({
      caught: 0,
      notExercised: 1,
      exitCode: 1,
    });
    expect(summarize(results([[fault, 'caught']]), 1000, baseline([], 2)).exitCode).toBe(2);
  });

  test('indeterminate cases are judged like benign variants but counted in neither rate; faults that never applied leave the applied rate', () => {
    const open: CatalogFault = {
      ...fault,
      name: 'open-case',
      indeterminate: 'the document does not say whether the field is always there',
    };
    const flagged = judge(open, run(), baseline());
    expect(flagged).toMatchObject({ outcome: 'flagged', indeterminate: open.indeterminate });
    const other = faultByName('conv-wrong-id-prefix')!;
    const s = summarize(
      [
        flagged,
        { ...judge(fault, run(), undefined), outcome: 'caught' },
        { ...judge(other, run(), undefined), outcome: 'not-exercised' },
      ],
      1000,
      baseline(),
    );
    expect(s).toMatchObject({
      faults: 2,
      caught: 1,
      detectionRate: 0.5,
      detectionRateApplied: 1,
      indeterminate: 1,
      indeterminateFlagged: 1,
      benign: 0,
      exitCode: 1,
    });
  });

  test("the suites of a run: the override, else the fault's own; the baseline covers their union (all when one needs all)", () => {
    expect(suitesFor(fault, ['auth'], [fault])).toEqual(['auth']);
    expect(suitesFor(fault, undefined, [fault])).toEqual(['rate-limits']);
    expect(suitesFor(undefined, undefined, [fault, faultByName('conv-wrong-id-prefix')!])).toEqual([
      'customers',
      'rate-limits',
    ]);
    expect(suitesFor(undefined, undefined, [fault, benign])).toEqual([]);
  });
});

describe('report', () => {
  const report = () => {
    const rs = [
      judge(fault, run(), baseline()),
      judge(faultByName('conv-wrong-id-prefix')!, run({ exitCode: 0, failedRules: [] }), baseline()),
      judge(benign, run({ exitCode: 0, failedRules: [] }), baseline()),
    ];
    return {
      startedAt: '2030-01-01T00:00:00.000Z',
      target: { bundled: true },
      profile: 'quick',
      seed: 1,
      parallel: 2,
      baseline: baseline(),
      results: rs,
      summary: summarize(rs, 4500, baseline()),
    };
  };

  test('the table has fault, area, caught?, rules fired and time; the summary gives both rates and what was missed', () => {
    const lines = resultTable(report());
    expect(lines[0]).toMatch(/^FAULT\s+FAMILY\s+CAUGHT\?\s+RULES FIRED\s+TIME$/);
    expect(lines.find((l) => l.startsWith('rate-missing-retry-after'))).toMatch(
      /rate-limits\s+yes\s+RATE\.RETRY_AFTER\.ON_429\s+1\.5 s$/,
    );
    expect(lines.find((l) => l.startsWith('conv-wrong-id-prefix'))).toMatch(/\sNO\s/);
    expect(lines.find((l) => l.startsWith('benign-extra-properties'))).toMatch(/\(benign\)\s+not flagged/);
    const summary = summaryLines(report()).join('\n');
    expect(summary).toMatch(/detection rate: 1\/2 = 50\.0 %; false-alarm rate: 0\/1 = 0\.0 %/);
    expect(summary).toMatch(/not caught: conv-wrong-id-prefix \(NO\)/);
    const md = markdown(report());
    expect(md).toMatch(/\*\*Detection rate: 1\/2 = 50\.0 %\*\*/);
    expect(md).toMatch(/## Not caught\n\n- \*\*conv-wrong-id-prefix\*\*/);
  });

  test('long rule lists are shortened with a count', () => {
    const r = {
      ...judge(fault, run(), undefined),
      rulesFired: Array.from({ length: 8 }, (_, i) => `RATE.SOMETHING_${i}.LONG_NAME`),
      expectedFired: [],
    };
    expect(firedShort(r, 64)).toMatch(/\(\+\d\)$/);
    expect(firedShort(r, 64).length).toBeLessThanOrEqual(64);
  });

  test('the catalog table has one row per fault', () => {
    expect(catalogMarkdown(CATALOG).split('\n')).toHaveLength(CATALOG.length + 2);
  });
});

describe('conform faults flags', () => {
  test('lists of faults, areas and suites; defaults; --benign-only and --faults-only', () => {
    const f = parseFaultsArgs([
      '--fault',
      'a',
      'b',
      '--fault=c,d',
      '--area',
      'auth',
      '--suite',
      'customers',
      '--parallel',
      '1',
      '--no-baseline',
      '--seed',
      '7',
    ]);
    expect(f).toMatchObject({
      faults: ['a', 'b', 'c', 'd'],
      areas: ['auth'],
      suites: ['customers'],
      parallel: 1,
      baseline: false,
      seed: 7,
      profile: 'quick',
    });
    expect(parseFaultsArgs([])).toMatchObject({
      parallel: 2,
      seed: 1,
      baseline: true,
      benignOnly: false,
      faultsOnly: false,
    });
    expect(selectFaults({ faults: [], areas: [], benignOnly: true, faultsOnly: false }).every((x) => x.benign)).toBe(
      true,
    );
    expect(
      selectFaults({ faults: [], areas: ['auth'], benignOnly: false, faultsOnly: true }).every(
        (x) => x.area === 'auth' && !x.benign,
      ),
    ).toBe(true);
  });

  test('bad input is a usage error (exit 2)', () => {
    for (const argv of [
      ['--profile', 'deep'],
      ['--parallel', '0'],
      ['--benign-only', '--faults-only'],
      ['--base-url', 'ftp://x'],
      ['--fault'],
      ['--what'],
    ]) {
      expect(() => parseFaultsArgs(argv), argv.join(' ')).toThrow(CliError);
    }
    expect(() => selectFaults({ faults: ['no-such-fault'], areas: [], benignOnly: false, faultsOnly: false })).toThrow(
      /unknown fault: no-such-fault/,
    );
    expect(() => selectFaults({ faults: [], areas: ['billing'], benignOnly: false, faultsOnly: false })).toThrow(
      /unknown area: billing/,
    );
    expect(() =>
      selectFaults({ faults: ['rate-missing-retry-after'], areas: [], benignOnly: true, faultsOnly: false }),
    ).toThrow(/no fault matches/);
  });
});
