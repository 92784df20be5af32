/**
 * Intermittent faults: a generated fault that strikes on about one exchange in ten (seeded,
 * so a run repeats). Only faults whose change is one edit of one exchange are wrapped: the
 * wrapper decides per exchange whether the edit happens.
 */
import type { FaultContext } from '../fault-proxy.ts';
import { expectAll } from '../catalog/helpers.ts';
import type { DemoOutcome } from '../catalog/types.ts';
import { seeded } from './transport.ts';
import type { GeneratedFault, GeneratedKind } from './types.ts';

/** Kinds whose change happens in one hook on one exchange, and which hook that is. */
const GATED: Partial<Record<GeneratedKind, 'onRequest' | 'onResponse'>> = {
  drop: 'onResponse',
  type: 'onResponse',
  pattern: 'onResponse',
  enum: 'onResponse',
  format: 'onResponse',
  range: 'onResponse',
  'bound-strict': 'onRequest',
  'bound-lax': 'onRequest',
};

export const canBeIntermittent = (f: GeneratedFault): boolean =>
  !f.benign && !f.indeterminate && GATED[f.kind] !== undefined;

function hash(s: string): number {
  let h = 2166136261;
  for (const c of s) h = Math.imul(h ^ c.charCodeAt(0), 16777619);
  return h >>> 0;
}

/** Demo repetitions: enough that a one-in-ten fault strikes at least once and misses at least once. */
const REPEAT = 60;

export function intermittent(f: GeneratedFault, probability = 0.1): GeneratedFault {
  const hook = GATED[f.kind]!;
  const strikes = (ctx: FaultContext): boolean => {
    const rng = (ctx.state.get('intermittent:rng') as (() => number) | undefined) ?? seeded(hash(f.name));
    ctx.state.set('intermittent:rng', rng);
    return rng() < probability;
  };
  const inner = f[hook] as (...a: any[]) => any;
  const gated = (...args: any[]) => (strikes(args[args.length - 1] as FaultContext) ? inner(...args) : undefined);
  return {
    ...f,
    name: `gen-intermittent-${f.name.replace(/^gen-/, '')}`,
    kind: 'intermittent',
    description: `${f.description}, on about one exchange in ${Math.round(1 / probability)}`,
    [hook]: gated,
    demo: {
      steps: Array.from({ length: REPEAT }, () => f.demo.steps).flat(),
      verify: (_last: DemoOutcome, all: DemoOutcome[]) => {
        const hits = all.filter((o) => o.applied > 0).length;
        return expectAll([hits > 0 && hits < all.length / 3, `struck ${hits} times in ${all.length} exchanges`]);
      },
    },
  };
}
