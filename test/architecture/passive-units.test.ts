/**
 * A passive unit judges what only a stream of exchanges shows; what one exchange shows by
 * itself belongs to the check registry (src/engine/checks), which `conform run`, `proxy` and
 * `judge` all apply. Read as behaviour: every documented operation, with requests and answers
 * of each documented status generated from spec/openapi.yaml, is given alone to a fresh set of
 * units, and none may judge a rule from it. A unit that does judges a single exchange outside
 * the registry (the control below shows the test catches one).
 */
import fc from 'fast-check';
import { beforeAll, describe, expect, test } from 'vitest';
import { loadRules, loadSpec, type RuleIndex, type Spec } from '../../src/contract/index.ts';
import { PassiveJudge } from '../../src/passive/judge.ts';
import { createUnits } from '../../src/passive/units/index.ts';
import type { PassiveUnit } from '../../src/passive/types.ts';
import type { TrafficRecord } from '../../src/passive/traffic/record.ts';
import { arbitraryFromSchema } from '../../src/engine/generators/valid.ts';
import { negativeRequests, positiveRequests, requestPath } from '../../src/engine/generators/requests.ts';
import { fromSpec } from '../../src/engine/generators/spec.ts';
import type { JsonSchema } from '../../src/engine/generators/schema.ts';
import { rec } from '../passive/helpers.ts';

/** Samples per operation and status: enough to meet each branch of a unit's single-exchange judgement. */
const SAMPLES = 12;

let spec: Spec;
let rules: RuleIndex;
beforeAll(async () => {
  [spec, rules] = await Promise.all([loadSpec(), loadRules()]);
});

/** An id fitting a path parameter's pattern (a unit may read it), from the schema itself. */
function idFor(schema: JsonSchema | undefined, seed: number): unknown {
  return schema ? fc.sample(arbitraryFromSchema(schema), { seed, numRuns: 1 })[0] : 'x1';
}

/** Lone exchanges of every documented operation: generated requests, answers of each documented status. */
function loneExchanges(): TrafficRecord[] {
  const out: TrafficRecord[] = [];
  let seed = 1;
  for (const op of spec.operations.values()) {
    if (op.extension) continue;
    const gen = fromSpec(spec, op.operationId);
    const ids = Object.fromEntries(
      Object.entries(gen.inputs.path?.properties ?? {}).map(([name, s]) => [name, idFor(s as JsonSchema, seed)]),
    );
    const requests = fc.sample(positiveRequests(gen, ids), { seed: seed++, numRuns: SAMPLES });
    // Requests breaking each documented constraint, answered as refused and as accepted.
    for (const negative of negativeRequests(gen, ids))
      for (const [i, plan] of fc.sample(negative.arbitrary, { seed: seed++, numRuns: 2 }).entries())
        out.push(
          rec(op.method, requestPath(plan), {
            status: i === 0 ? 400 : 200,
            ...(plan.body === undefined ? {} : { sent: plan.body }),
            got: i === 0 ? { message: 'refused' } : {},
          }),
        );
    for (const key of Object.keys(op.responses)) {
      const status = /^\d{3}$/.test(key) ? Number(key) : key === '2XX' ? 200 : undefined;
      if (status === undefined) continue;
      const schema = spec.responseFor(op.operationId, status)?.schema as JsonSchema | undefined;
      const answers = schema
        ? fc.sample(arbitraryFromSchema(schema), { seed: seed++, numRuns: SAMPLES })
        : Array<undefined>(SAMPLES).fill(undefined);
      requests.forEach((plan, i) =>
        out.push(
          rec(op.method, requestPath(plan), {
            status,
            ...(plan.body === undefined ? {} : { sent: plan.body }),
            ...(answers[i] === undefined ? {} : { got: answers[i] }),
            start: 1_000_000 + i,
          }),
        ),
      );
    }
  }
  return out;
}

/** Per unit, what it judged from an exchange given alone (`METHOD /path → status: rules`, each once). */
function judgedAlone(records: TrafficRecord[], units: () => PassiveUnit[]): Record<string, string[]> {
  const found: Record<string, Set<string>> = {};
  for (const r of records) {
    const set = units();
    const judge = new PassiveJudge(spec, rules, 'http://target.test', set);
    judge.observe(r);
    const outcome = judge.finish();
    for (const source of outcome.sources) {
      const ids = Object.keys(source.judged);
      if (!ids.length) continue;
      const unit = set.find((u) => u.title === source.title)?.name ?? source.title;
      (found[unit] ??= new Set()).add(
        `${r.method} ${spec.findOperation(r.method, r.path)?.pathTemplate} → ${r.status}: ${ids.join(', ')}`,
      );
    }
  }
  return Object.fromEntries(Object.entries(found).map(([unit, seen]) => [unit, [...seen].sort()]));
}

/** The server units besides the registry's own (`checks`, which runs src/engine/checks): none today, and a new one judges streams only. */
const streamUnits = () => createUnits().filter((u) => u.scope === 'server' && u.name !== 'checks');

describe('passive units judge streams, never one exchange alone', () => {
  test('the lone exchanges cover every documented operation and status', () => {
    const records = loneExchanges();
    const ops = new Set(records.map((r) => `${r.method} ${r.status}`));
    expect(records.length).toBeGreaterThan(200);
    expect(ops.size).toBeGreaterThan(10);
  });

  test('a unit judging one exchange by itself is found (control)', () => {
    const lone: PassiveUnit = {
      name: 'lone',
      scope: 'server',
      title: 'judges any 409 by itself',
      ruleIds: ['ERRORS.ERROR.SHAPE'],
      observe(o, ctx) {
        if (o.record.status === 409) ctx.server(this).judge('ERRORS.ERROR.SHAPE');
      },
    };
    const found = judgedAlone(loneExchanges(), () => [...streamUnits(), lone]);
    expect(Object.keys(found)).toContain('lone');
  });

  test('no server unit but the registry judges a rule from one exchange', () => {
    expect(judgedAlone(loneExchanges(), streamUnits)).toEqual({});
  });
});
