/**
 * Where a run's time goes: named moments since the process started, printed on stderr as one
 * JSON line when CONFORM_PHASES=1 (npm run bench:run reads it). Nothing is printed otherwise.
 */
import { performance } from 'node:perf_hooks';

const marks: [string, number][] = [];

/** Records that `name` was reached now (milliseconds since the process started). */
export function markPhase(name: string): void {
  if (process.env.CONFORM_PHASES === '1') marks.push([name, Math.round(performance.now())]);
}

/** Prints the moments recorded, once, with the process's peak RSS (kB, the kernel's VmHWM where it tells). */
export function printPhases(): void {
  if (process.env.CONFORM_PHASES !== '1' || !marks.length) return;
  process.stderr.write(
    `conform-phases ${JSON.stringify({ phases: Object.fromEntries(marks), maxRssKb: process.resourceUsage().maxRSS })}\n`,
  );
  marks.length = 0;
}
