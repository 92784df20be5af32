/**
 * Terminal output while a run goes: colour only when allowed, and as much as asked. `normal`
 * prints what needs a reader (a failure, an engine error, a scenario that ended unjudged for a
 * reason a setting does not explain) and a progress line now and then; `verbose` a line for
 * every scenario; `quiet` nothing until the verdict.
 */
import type { ScenarioResult } from './types.ts';
import { redact } from '../http/redact.ts';
import { detailOf } from '../messages/finding-text.ts';

export type Detail = 'quiet' | 'normal' | 'verbose';

export interface OutputStyle {
  plain: boolean;
  color: boolean;
  /** How much a run prints while it goes (default normal). */
  detail?: Detail;
  write: (line: string) => void;
}

/** Plain when --plain, CI=true or stdout is not a TTY; colour unless plain or NO_COLOR. */
export function outputStyle(
  opts: {
    plain?: boolean;
    quiet?: boolean;
    verbose?: boolean;
    env?: NodeJS.ProcessEnv;
    isTTY?: boolean;
    write?: (line: string) => void;
  } = {},
): OutputStyle {
  const env = opts.env ?? process.env;
  const isTTY = opts.isTTY ?? !!process.stdout.isTTY;
  const plain = !!opts.plain || env.CI === 'true' || env.CI === '1' || !isTTY;
  const color = !plain && !('NO_COLOR' in env && env.NO_COLOR !== '');
  const detail: Detail = opts.quiet ? 'quiet' : opts.verbose ? 'verbose' : 'normal';
  return { plain, color, detail, write: opts.write ?? ((line) => void process.stdout.write(`${redact(line)}\n`)) };
}

const codes = { red: 31, green: 32, yellow: 33, dim: 2, bold: 1, cyan: 36 } as const;
export function paint(style: OutputStyle, c: keyof typeof codes, text: string): string {
  return style.color ? `\u001b[${codes[c]}m${text}\u001b[0m` : text;
}

/** Whether a scenario's line is worth a reader's time at this detail. */
export function worthALine(style: OutputStyle, r: ScenarioResult): boolean {
  const detail = style.detail ?? 'normal';
  if (detail === 'verbose') return true;
  if (detail === 'quiet') return false;
  if (r.state === 'failed' || r.state === 'error') return true;
  // Ended by the run's own settings (profile, destructive): the verdict's list says so once.
  const ended = r.notJudged.find((m) => m.endedScenario);
  return r.state === 'skipped' && !!ended && ended.category !== 'profile' && ended.category !== 'destructive';
}

export function progressLine(style: OutputStyle, r: ScenarioResult): string[] {
  const mark = style.plain
    ? { passed: 'PASS', failed: 'FAIL', skipped: 'NOT JUDGED', error: 'ENGINE ERROR' }[r.state]
    : {
        passed: paint(style, 'green', '✓'),
        failed: paint(style, 'red', '✗'),
        skipped: paint(style, 'yellow', '○'),
        error: paint(style, 'yellow', '!'),
      }[r.state];
  const sep = style.plain ? '>' : '›';
  // A failed scenario names the rules that failed in it, never the ones it cites that passed.
  const failedIds = [...new Set(Object.keys(r.failed).filter((k) => r.failed[k] > 0))];
  const ids = r.state === 'failed' && failedIds.length ? failedIds : r.ruleIds;
  const rules = ids.length ? ` [${r.state === 'failed' && failedIds.length ? 'failed: ' : ''}${ids.join(', ')}]` : '';
  const lines = [
    `${mark} ${r.suite} ${sep} ${r.title}${paint(style, 'dim', `${rules} ${Math.round(r.durationMs)} ms`)}`,
  ];
  const ended = r.notJudged.find((m) => m.endedScenario);
  if (ended) lines.push(`    not judged (${ended.category}): ${ended.reason}`);
  if (r.state === 'failed') {
    for (const f of r.findings.slice(0, 5)) {
      // A message that repeats its title (`title (METHOD /path → status)`) is printed once.
      const detail = detailOf(f.message);
      const text = detail.startsWith(f.title) ? detail : `${f.title}: ${detail}`;
      lines.push(`    ${paint(style, 'red', `[${f.ruleIds.join(', ')}]`)} ${text}`);
    }
    if (r.findingCount > 5) lines.push(`    ... ${r.findingCount - 5} more findings`);
  }
  for (const e of r.engineErrors.slice(0, 1)) lines.push(`    engine error (${e.source}): ${e.message.split('\n')[0]}`);
  return lines;
}

/** Counts scenarios as they end and says how far the run is, at each quarter and at most every 15 s between. */
export class ProgressCounter {
  private done = 0;
  private failed = 0;
  private lastQuarter = 0;
  private lastAt = Date.now();
  private readonly startedAt = Date.now();
  /** Whether `total` is the run's whole number of scenarios (every suite file collected). */
  complete = true;

  constructor(
    private readonly style: OutputStyle,
    public total = 0,
  ) {}

  /** One scenario ended; returns a progress line when one is due. */
  ended(r: ScenarioResult, now = Date.now()): string | undefined {
    this.done += 1;
    if (r.state === 'failed') this.failed += 1;
    if ((this.style.detail ?? 'normal') !== 'normal' || this.total <= 0 || !this.complete) return undefined;
    const quarter = Math.floor((this.done / this.total) * 4);
    if (quarter === this.lastQuarter && now - this.lastAt < 15_000) return undefined;
    if (this.done >= this.total) return undefined;
    this.lastQuarter = quarter;
    this.lastAt = now;
    const elapsed = (now - this.startedAt) / 1000;
    const left = this.done > 0 ? Math.max(0, Math.round((elapsed / this.done) * (this.total - this.done))) : undefined;
    return paint(
      this.style,
      'dim',
      `… ${this.done} of ${this.total} scenarios done${this.failed ? `, ${this.failed} failed` : ''}` +
        `${left !== undefined ? `, about ${left} s left` : ''}`,
    );
  }
}
