/**
 * A replay script of a whole sequence of requests, for failures a single request cannot
 * reproduce (a rate limit is broken by the 61st request of a window, not by one request).
 * Consecutive identical requests become one loop; pauses longer than MIN_PAUSE_MS are kept
 * as `sleep`. Keys never appear: the Authorization header names an environment variable
 * (curl.ts), and the script's header lists each one with where its key comes from.
 */
import type { Exchange } from '../types.ts';
import { replayCommand, requiredVariable } from './curl.ts';
import { variablesIn } from './redact.ts';
import { REMAINING, RESET, RETRY_AFTER } from './headers.ts';

type Logged = Pick<Exchange, 'method' | 'url' | 'requestHeaders' | 'requestBody'>;

interface Step {
  command: string;
  /** ms since the first request: of the step's first request, and of its last. */
  at: number;
  lastAt: number;
  times: number;
}

const MIN_PAUSE_MS = 200;
const RATE_WHY = [
  'rate limits are judged on the sequence, not on its last request. Requests sent at once in the',
  'run go one after the other here.',
];

export class RequestSequence {
  private readonly steps: Step[] = [];
  private start?: number;
  private total = 0;
  private dropped = 0;

  /** At most `maxSteps` distinct steps are kept (a loop of identical requests is one step). */
  constructor(private readonly maxSteps = 2000) {}

  add(exchange: Logged, at = performance.now()): void {
    this.start ??= at;
    const t = at - this.start;
    this.total += 1;
    const command = replayCommand(exchange);
    const last = this.steps[this.steps.length - 1];
    if (last && last.command === command && t - last.lastAt < MIN_PAUSE_MS) {
      last.times += 1;
      last.lastAt = t;
      return;
    }
    if (this.steps.length >= this.maxSteps) {
      this.dropped += 1;
      return;
    }
    this.steps.push({ command, at: t, lastAt: t, times: 1 });
  }

  /** A comment line at this point of the script (e.g. a read made outside the sequence's client). */
  comment(text: string, at = performance.now()): void {
    this.start ??= at;
    if (this.steps.length >= this.maxSteps) return;
    const t = at - this.start;
    this.steps.push({ command: `# ${text.replace(/\n/g, ' ')}`, at: t, lastAt: t, times: 1 });
  }

  get size(): number {
    return this.total;
  }

  /**
   * A bash script sending the sequence in order, with the original pauses. `why` replaces the
   * lines saying why the whole sequence matters (by default: a rate limit's).
   */
  script(title: string, why: string[] = RATE_WHY): string {
    const keys = variablesIn(this.steps.map((s) => s.command).join('\n'));
    const width = Math.max(0, ...keys.map((k) => k.name.length));
    const out = [
      '#!/usr/bin/env bash',
      `# Replays the ${this.total} request${this.total === 1 ? '' : 's'} of '${title.replace(/\n/g, ' ')}' in order, with their pauses:`,
      ...why.map((line) => `# ${line}`),
      ...(keys.length
        ? [
            '# Keys are never written here: set these environment variables first.',
            ...keys.map((k) => `#   ${`${k.name}=...`.padEnd(width + 5)} # ${k.origin}`),
          ]
        : ['# The requests carry no key.']),
      'set -u',
      ...keys.map((k) => `: "${requiredVariable(k.name, k.origin)}"`),
      `show='%{http_code} remaining=%header{${REMAINING}} reset=%header{${RESET}} ${RETRY_AFTER}=%header{${RETRY_AFTER}}\\n'`,
    ];
    let clock = 0;
    for (const s of this.steps) {
      if (s.command.startsWith('# ')) {
        out.push(s.command);
        continue;
      }
      const pause = s.at - clock;
      if (pause >= MIN_PAUSE_MS) out.push(`sleep ${(pause / 1000).toFixed(1)}`);
      const quiet = s.command.replace(/^curl -sS -i /, 'curl -sS -o /dev/null -w "$show" ');
      out.push(s.times > 1 ? `for _ in $(seq ${s.times}); do ${quiet}; done` : quiet);
      clock = s.lastAt;
    }
    if (this.dropped) out.push(`# ... ${this.dropped} more request${this.dropped === 1 ? '' : 's'} not kept`);
    return `${out.join('\n')}\n`;
  }
}
