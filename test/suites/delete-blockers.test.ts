/**
 * The delete-blockers suite passes against the reference and fails, citing the right
 * rules, against the reference behind a proxy that breaks the 409 answers.
 */
import { describe, expect, test } from 'vitest';
import type { Fault } from '../../src/faults/fault-proxy.ts';
import { expectVerdicts, json, RUN_TIMEOUT_MS, useSpawnRun, type Json } from './helpers/spawn-run.ts';

const SUITE = 'delete-blockers';
const { runThrough } = useSpawnRun(SUITE);

const JUDGED_HERE = [
  'CUSTOMERS.DELETE.BLOCKED',
  'CUSTOMERS.DELETE.BLOCKER_COUNT',
  'CUSTOMERS.DELETE.UNBLOCKED',
  'FEES.DELETE.BLOCKED',
  'FEES.DELETE.BLOCKER_COUNT',
  'FEES.DELETE.UNBLOCKED',
];

const CUSTOMER = /^\/v0\/customers\/[^/?]+(\?|$)/;
const FEE = /^\/v0\/fees\/[^/?]+(\?|$)/;

/**
 * A customer's 409 carries no blockers; a fee's blockers count 0 whatever they list; a fee
 * without prices still cannot be deleted (409 with no blockers).
 */
const blockersFault: Fault = {
  name: 'delete-blockers',
  onResponse(req, res, ctx) {
    if (req.method !== 'DELETE') return;
    const body = res.json as Json | undefined;
    if (CUSTOMER.test(req.path) && res.status === 409 && body) {
      ctx.applied();
      delete body.details;
    } else if (FEE.test(req.path) && res.status === 409 && Array.isArray(body?.details?.blockers)) {
      ctx.applied();
      for (const b of body.details.blockers) b.count = 0;
    } else if (FEE.test(req.path) && res.status >= 200 && res.status < 300) {
      ctx.applied();
      return json(409, { error: 'conflict', message: 'fee is in use', details: { blockers: [] } });
    }
  },
};

describe.concurrent(`${SUITE} suite`, () => {
  test(
    'passes against the unaltered reference: every scenario passes, none skipped',
    async () => {
      const o = await runThrough(undefined, 'clean');
      expect(o.code, o.stdout.slice(-3000)).toBe(0);
      expect(o.scenarios.length).toBeGreaterThanOrEqual(4);
      expect(o.scenarios.filter((s) => s.state !== 'passed')).toEqual([]);
      // The rules this suite judges; CUSTOMERS.DELETE.GONE is the state-model suite's.
      for (const id of JUDGED_HERE) expect([id, o.verdicts.get(id)]).toEqual([id, 'passed']);
    },
    RUN_TIMEOUT_MS + 10_000,
  );

  test(
    'fails on a 409 without blockers, a blocker count below its items, and a delete refused with nothing blocking',
    async () => {
      const o = await runThrough(blockersFault, 'blockers');
      expectVerdicts(
        o,
        // A refusal with no blockers breaks the 409 body too (FEES.DELETE.BLOCKED#blockers-body).
        ['CUSTOMERS.DELETE.BLOCKED', 'FEES.DELETE.BLOCKER_COUNT', 'FEES.DELETE.UNBLOCKED', 'FEES.DELETE.BLOCKED'],
        ['CUSTOMERS.DELETE.UNBLOCKED'],
      );
    },
    RUN_TIMEOUT_MS + 10_000,
  );
});
