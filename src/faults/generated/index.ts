/**
 * The generated fault catalog: faults and benign variants derived mechanically from
 * spec/openapi.yaml, which no scenario was written against. `conform faults --catalog
 * generated` runs it; `--sample N` draws a seeded, kind-stratified sample of it.
 */
import type { Spec } from '../../contract/index.ts';
import { boundFaults } from './bounds.ts';
import { canBeIntermittent, intermittent } from './intermittent.ts';
import { patchFaults } from './patch.ts';
import { extraFieldVariants, responseFaults } from './response.ts';
import { crossMerchantFaults } from './tenancy.ts';
import { seeded, transportVariants } from './transport.ts';
import { GENERATED_KINDS, type GeneratedFault, type GeneratedKind } from './types.ts';

export { GENERATED_KINDS, isGenerated, type GeneratedFault, type GeneratedKind } from './types.ts';

/** How many faults get an intermittent version. */
export const INTERMITTENT_COUNT = 24;

/** A seeded shuffle (Fisher-Yates). */
function shuffle<T>(list: readonly T[], seed: number): T[] {
  const out = [...list];
  const next = seeded(seed);
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

const cache = new WeakMap<Spec, GeneratedFault[]>();

/** Every generated fault and benign variant, in a stable order. */
export function generatedCatalog(spec: Spec): GeneratedFault[] {
  const hit = cache.get(spec);
  if (hit) return hit;
  const ops = [...spec.operations.values()].filter((op) => !op.extension);
  const base = [
    ...responseFaults(spec, ops),
    ...patchFaults(spec, ops),
    ...boundFaults(spec, ops),
    ...crossMerchantFaults(spec, ops),
  ];
  // The intermittent sample is part of the catalog (a fixed seed), not of a run.
  const flaky = shuffle(base.filter(canBeIntermittent), 1)
    .slice(0, INTERMITTENT_COUNT)
    .map((f) => intermittent(f));
  const all = [...base, ...flaky, ...extraFieldVariants(spec, ops), ...transportVariants()];
  const names = new Set<string>();
  for (const f of all) {
    if (names.has(f.name)) throw new Error(`generated catalog: two faults named ${f.name}`);
    names.add(f.name);
  }
  cache.set(spec, all);
  return all;
}

/**
 * `n` faults drawn from `faults` with `seed`, spread over the kinds: each kind's faults are
 * shuffled, then taken in turn, one kind after another, until `n`. Catalog order is kept.
 */
export function sampleFaults(faults: readonly GeneratedFault[], n: number, seed: number): GeneratedFault[] {
  if (n >= faults.length) return [...faults];
  const byKind = new Map<GeneratedKind, GeneratedFault[]>();
  // The kinds take turns in a seeded order, so that a small sample is not always the first kinds.
  for (const k of shuffle(GENERATED_KINDS, seed)) {
    const of = faults.filter((f) => f.kind === k);
    if (of.length) byKind.set(k, shuffle(of, seed + GENERATED_KINDS.indexOf(k)));
  }
  const chosen = new Set<GeneratedFault>();
  while (chosen.size < n) {
    for (const list of byKind.values()) {
      const next = list.shift();
      if (next && chosen.size < n) chosen.add(next);
    }
  }
  return faults.filter((f) => chosen.has(f));
}
