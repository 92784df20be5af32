/**
 * Time limits: what a scenario may take, and the target's measured latency that a "target too
 * slow" reason quotes. Slowness is the target's property, never an engine error.
 */

/** Response times of this worker's exchanges with the target (milliseconds), for "too slow" reasons. */
const latency: number[] = [];

/** Records one answer's time. */
export function recordLatency(ms: number): void {
  latency.push(ms);
}

/** `p50 1.5 s, p95 2.1 s over 40 answers`: the target's measured latency. */
export function latencySummary(samples: readonly number[] = latency): string {
  if (!samples.length) return 'no answer measured';
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  const s = (ms: number) => `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
  return `p50 ${s(at(0.5))}, p95 ${s(at(0.95))} over ${samples.length} answers`;
}

/** A scenario's time when neither the scenario nor the run sets one. */
export const DEFAULT_SCENARIO_TIMEOUT_MS = 180_000;

/**
 * `body`, or the error `onTimeout` gives once `ms` have passed. The body may go on in the
 * background (its later requests are refused); its own failure then is nobody's concern.
 */
export async function withDeadline<T>(body: Promise<T>, ms: number, onTimeout: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(onTimeout()), ms);
  });
  body.catch(() => undefined);
  try {
    return await Promise.race([body, late]);
  } finally {
    clearTimeout(timer);
  }
}
