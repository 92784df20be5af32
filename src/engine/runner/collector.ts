/** A vitest reporter that turns test cases into ScenarioResults and prints progress; nothing else. */
import { basename, relative } from 'node:path';
import type { Reporter, TestCase, TestModule, Vitest } from 'vitest/node';
import { recordOf } from '../scenario/vitest-bridge.ts';
import type { RunError, ScenarioResult } from './types.ts';
import { progressLine, ProgressCounter, worthALine, type OutputStyle } from './progress.ts';
import { redact } from '../http/redact.ts';
import { markPhase } from './phases.ts';

export function suiteName(file: string): string {
  return basename(file)
    .replace(/\.suite\.[cm]?[jt]s$/, '')
    .replace(/\.[cm]?[jt]s$/, '');
}

export class Collector implements Reporter {
  readonly results: ScenarioResult[] = [];
  readonly errors: RunError[] = [];
  private readonly counter?: ProgressCounter;
  private collectedOnce = false;
  private vitest?: Vitest;
  private muted = false;

  /** What each failure printed said (rules and title): a scenario that only repeats them prints nothing more. */
  private readonly printed = new Set<string>();
  /** Suite files collected so far: the progress line counts against the whole run once all are. */
  private collectedFiles = 0;

  constructor(
    private readonly root: string,
    private readonly style: OutputStyle | undefined,
    /** How many suite files the run holds, when known (a shard's own share is not). */
    private readonly files?: number,
  ) {
    if (style) this.counter = new ProgressCounter(style);
  }

  onInit(vitest: Vitest): void {
    this.vitest = vitest;
  }

  /** Ends the run early and prints nothing more (the run has no target: its reason is what to say). */
  abandon(): void {
    this.muted = true;
    // The run may be over already (nothing to run): cancelling it then is nothing to report.
    Promise.resolve()
      .then(() => this.vitest?.cancelCurrentRun('keyboard-input'))
      .catch(() => undefined);
  }

  onTestRunStart(): void {
    markPhase('vitest-started');
  }

  /** Each suite file's scenarios, as vitest collects them: the count the progress line goes by. */
  onTestModuleCollected(module: TestModule): void {
    if (!this.collectedOnce) markPhase('first-suite-collected');
    this.collectedOnce = true;
    this.collectedFiles += 1;
    if (this.counter) {
      this.counter.total += [...module.children.allTests()].length;
      // Until every suite file is collected, the whole number of scenarios is not known: no line counts against a part.
      this.counter.complete = this.files === undefined || this.collectedFiles >= this.files;
    }
  }

  onTestCaseResult(testCase: TestCase): void {
    const result = toResult(testCase, this.root);
    this.results.push(result);
    if (!this.style || this.muted) return;
    if (worthALine(this.style, result) && !this.repeats(result))
      for (const line of progressLine(this.style, result)) this.style.write(line);
    const progress = this.counter?.ended(result);
    if (progress) this.style.write(progress);
  }

  /**
   * A failed scenario whose every finding is one already printed (the same rules and title: one
   * fault that many scenarios meet) prints nothing more while the run goes: the closing block
   * counts the scenarios that saw it. Only at normal detail; verbose prints every scenario.
   */
  private repeats(r: ScenarioResult): boolean {
    if (r.state !== 'failed' || (this.style?.detail ?? 'normal') !== 'normal' || !r.findings.length) return false;
    const keys = r.findings.map((f) => `${f.ruleIds.join(',')}\u0000${f.title}`);
    const seen = keys.every((k) => this.printed.has(k)) && !r.engineErrors.length;
    for (const k of keys) this.printed.add(k);
    return seen;
  }

  onTestRunEnd(
    modules: ReadonlyArray<TestModule>,
    unhandled: ReadonlyArray<{ message?: string; name?: string }>,
  ): void {
    for (const m of modules) {
      for (const e of m.errors())
        this.errors.push({ suite: suiteName(m.moduleId), message: redact(`${e.name ?? 'Error'}: ${e.message}`) });
    }
    for (const e of unhandled)
      this.errors.push({ message: redact(`unhandled ${e.name ?? 'error'}: ${e.message ?? String(e)}`) });
  }
}

function toResult(tc: TestCase, root: string): ScenarioResult {
  const r = tc.result();
  const record = recordOf(tc);
  const file = tc.module.moduleId;
  const diag = tc.diagnostic();
  const ruleIds = record?.ruleIds ?? [];
  const judged = record?.judged ?? {};
  const notJudged = [...(record?.notJudged ?? [])];
  const engineErrors = [...(record?.engineErrors ?? [])];
  const findings = record?.findings ?? [];
  if (r.state === 'failed') {
    // An error other than the scenario's own findings or engine error (a timeout, a hook...) is the tool's.
    const foreign = r.errors.filter((e) => e.name !== 'ConformanceFailure' && e.name !== 'EngineError');
    for (const e of foreign) {
      engineErrors.push({
        source: 'runner',
        message: redact(e.message ?? String(e)).slice(0, 4000),
        ...(e.stack ? { stack: redact(e.stack).slice(0, 4000) } : {}),
        ruleIds: ruleIds.filter((id) => !judged[id]),
      });
    }
    if (!foreign.length && !findings.length && !engineErrors.length)
      engineErrors.push({
        source: 'runner',
        message: 'the scenario failed without a finding or an error',
        ruleIds: ruleIds.filter((id) => !judged[id]),
      });
  }
  if (r.state === 'skipped' && !notJudged.some((m) => m.endedScenario)) {
    // Skipped by vitest itself (test.skip, todo): nothing was judged.
    notJudged.push({
      reason: redact(r.note ?? (tc.options.mode === 'todo' ? 'todo' : 'skipped')),
      category: 'target',
      ruleIds,
      endedScenario: true,
    });
  }
  const findingCount = record?.findingCount ?? findings.length;
  const failedIds = [...new Set(Object.keys(record?.failed ?? {}).map((k) => k.split('#')[0]))];
  // Keys are rule ids or `RULE#part`: a part said something of its rule, and the rule of its parts.
  const touches = (a: string, b: string) => a === b || a.startsWith(`${b}#`) || b.startsWith(`${a}#`);
  const said = [
    ...Object.keys(judged).filter((k) => judged[k] > 0),
    ...notJudged.flatMap((m) => m.ruleIds),
    ...engineErrors.flatMap((e) => e.ruleIds),
  ];
  const unexplained = ruleIds.filter((id) => !said.some((k) => touches(k, id)));
  // A failure ended the scenario before these: the rule that failed is the cause to name.
  if (findingCount > 0 && failedIds.length && unexplained.length)
    notJudged.push({
      reason: `the scenario stopped when ${failedIds.join(', ')} failed, before judging it`,
      category: 'target',
      ruleIds: unexplained,
    });
  const state: ScenarioResult['state'] =
    findingCount > 0
      ? 'failed'
      : engineErrors.length
        ? 'error'
        : r.state === 'skipped' || notJudged.some((m) => m.endedScenario)
          ? 'skipped'
          : r.state === 'passed'
            ? 'passed'
            : 'error';
  const ended = notJudged.find((m) => m.endedScenario);
  return {
    id: tc.id,
    suite: suiteName(file),
    file: relative(root, file),
    title: tc.name,
    fullName: tc.fullName,
    state,
    durationMs: diag?.duration ?? 0,
    ruleIds,
    judged,
    failed: record?.failed ?? {},
    findings,
    findingCount,
    notes: record?.notes ?? [],
    exchanges: record?.exchanges ?? 0,
    notJudged,
    engineErrors,
    ...(record?.fixtures?.length ? { fixtures: record.fixtures } : {}),
    ...(record?.expected ? { expected: record.expected } : {}),
    ...(record?.expectations ? { expectations: record.expectations } : {}),
    ...(record?.refusals?.count ? { refusals: record.refusals } : {}),
    ...(ended ? { skipReason: ended.reason } : {}),
    ...(engineErrors.length ? { error: engineErrors[0].message.split('\n')[0] } : {}),
  };
}
