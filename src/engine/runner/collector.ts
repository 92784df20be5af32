/** A vitest reporter that turns test cases into ScenarioResults and prints progress; nothing else. */
import { basename, relative } from 'node:path';
import type { Reporter, TestCase, TestModule } from 'vitest/node';
import type { ScenarioRecord } from '../scenario.ts';
import type { RunError, ScenarioResult } from './types.ts';
import { progressLine, type OutputStyle } from './progress.ts';
import { redact } from '../redact.ts';

export function suiteName(file: string): string {
  return basename(file).replace(/\.suite\.[cm]?[jt]s$/, '').replace(/\.[cm]?[jt]s$/, '');
}

export class Collector implements Reporter {
  readonly results: ScenarioResult[] = [];
  readonly errors: RunError[] = [];

  constructor(private readonly root: string, private readonly style: OutputStyle | undefined) {}

  onTestCaseResult(testCase: TestCase): void {
    const result = toResult(testCase, this.root);
    this.results.push(result);
    if (this.style) for (const line of progressLine(this.style, result)) this.style.write(line);
  }

  onTestRunEnd(modules: ReadonlyArray<TestModule>, unhandled: ReadonlyArray<{ message?: string; name?: string }>): void {
    for (const m of modules) {
      for (const e of m.errors()) this.errors.push({ suite: suiteName(m.moduleId), message: redact(`${e.name ?? 'Error'}: ${e.message}`) });
    }
    for (const e of unhandled) this.errors.push({ message: redact(`unhandled ${e.name ?? 'error'}: ${e.message ?? String(e)}`) });
  }
}

function toResult(tc: TestCase, root: string): ScenarioResult {
  const r = tc.result();
  const record = (tc.meta() as { conform?: ScenarioRecord }).conform;
  const state = r.state === 'passed' ? 'passed' : r.state === 'failed' ? 'failed' : 'skipped';
  const file = tc.module.moduleId;
  const diag = tc.diagnostic();
  const errorText = r.state === 'failed' ? r.errors.map((e) => e.message).join('\n') : undefined;
  const skipNote = r.state === 'skipped' ? r.note : undefined;
  return {
    id: tc.id,
    suite: suiteName(file),
    file: relative(root, file),
    title: tc.name,
    fullName: tc.fullName,
    state,
    durationMs: diag?.duration ?? 0,
    ruleIds: record?.ruleIds ?? [],
    judged: record?.judged ?? {},
    findings: record?.findings ?? [],
    notes: record?.notes ?? [],
    exchanges: record?.exchanges ?? 0,
    skipReason: state === 'skipped' ? redact(record?.skipReason ?? skipNote ?? (tc.options.mode === 'todo' ? 'todo' : 'skipped')) : undefined,
    ...(state === 'skipped' && record?.skippedByOption ? { skippedByOption: true } : {}),
    // A failure without findings, or a scenario that aborted, carries its error: its rules fail with it.
    error: state === 'failed' && (record?.aborted || !record?.findings.length) ? redact(record?.aborted ?? errorText ?? 'failed') : undefined,
  };
}
