/** Terminal output: one line per scenario, colour only when allowed. */
import type { ScenarioResult } from './types.ts';
import { redact } from '../redact.ts';

export interface OutputStyle {
  plain: boolean;
  color: boolean;
  write: (line: string) => void;
}

/** Plain when --plain, CI=true or stdout is not a TTY; colour unless plain or NO_COLOR. */
export function outputStyle(
  opts: { plain?: boolean; env?: NodeJS.ProcessEnv; isTTY?: boolean; write?: (line: string) => void } = {},
): OutputStyle {
  const env = opts.env ?? process.env;
  const isTTY = opts.isTTY ?? !!process.stdout.isTTY;
  const plain = !!opts.plain || env.CI === 'true' || env.CI === '1' || !isTTY;
  const color = !plain && !('NO_COLOR' in env && env.NO_COLOR !== '');
  return { plain, color, write: opts.write ?? ((line) => void process.stdout.write(`${redact(line)}\n`)) };
}

const codes = { red: 31, green: 32, yellow: 33, dim: 2, bold: 1, cyan: 36 } as const;
export function paint(style: OutputStyle, c: keyof typeof codes, text: string): string {
  return style.color ? `\u001b[${codes[c]}m${text}\u001b[0m` : text;
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
  const rules = r.ruleIds.length ? ` [${r.ruleIds.join(', ')}]` : '';
  const lines = [
    `${mark} ${r.suite} ${sep} ${r.title}${paint(style, 'dim', `${rules} ${Math.round(r.durationMs)} ms`)}`,
  ];
  const ended = r.notJudged.find((m) => m.endedScenario);
  if (ended) lines.push(`    not judged (${ended.category}): ${ended.reason}`);
  if (r.state === 'failed') {
    for (const f of r.findings.slice(0, 5))
      lines.push(`    ${paint(style, 'red', `[${f.ruleIds.join(', ')}]`)} ${f.title}`);
    if (r.findingCount > 5) lines.push(`    ... ${r.findingCount - 5} more findings`);
  }
  for (const e of r.engineErrors.slice(0, 1)) lines.push(`    engine error (${e.source}): ${e.message.split('\n')[0]}`);
  return lines;
}
