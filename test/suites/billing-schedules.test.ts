/**
 * The billing-schedules suite passes against the reference and fails, citing the right
 * rules, against the reference behind proxies that break schedules.
 */
import { describe, expect, test } from 'vitest';
import type { Fault } from '../../src/faults/fault-proxy.ts';
import { expectVerdicts, json, RUN_TIMEOUT_MS, useSpawnRun, type Json } from './helpers/spawn-run.ts';

const SUITE = 'billing-schedules';
const { runThrough } = useSpawnRun(SUITE);

const SCHEDULES = /^\/v0\/billingSchedules(\?|$)/;
const SCHEDULE = /^\/v0\/billingSchedules\/[^/?]+(\?|$)/;
const INTERVALS = /^\/v0\/billingSchedules\/[^/?]+\/intervals(\?|$)/;

/** Schedules by subscriptionId are created (with both owners when both are named); intervals name another schedule. */
const ownerFault: Fault = {
  name: 'schedule-owner',
  onRequest(req, ctx) {
    const body = req.json as Json | undefined;
    if (req.method !== 'POST' || !SCHEDULES.test(req.path) || typeof body?.subscriptionId !== 'string') return;
    ctx.applied();
    const now = new Date().toISOString();
    return json(201, {
      id: `bs_fault${Date.now()}`,
      object: 'billing_schedule',
      ...body,
      endDate: body.endDate ?? now,
      metadata: {},
      createdAt: now,
      updatedAt: now,
    });
  },
  onResponse(req, res, ctx) {
    const list = res.json as Json | undefined;
    if (
      req.method !== 'GET' ||
      !INTERVALS.test(req.path) ||
      res.status !== 200 ||
      !Array.isArray(list?.data) ||
      list.data.length === 0
    )
      return;
    ctx.applied();
    for (const i of list.data) i.scheduleId = 'bs_someotherschedule';
  },
};

/** Created schedules come without endDate; deleting an existing schedule answers 404. */
const lifecycleFault: Fault = {
  name: 'schedule-lifecycle',
  onResponse(req, res, ctx) {
    const body = res.json as Json | undefined;
    if (req.method === 'POST' && SCHEDULES.test(req.path) && res.status >= 200 && res.status < 300 && body) {
      ctx.applied();
      delete body.endDate;
    } else if (req.method === 'DELETE' && SCHEDULE.test(req.path) && res.status >= 200 && res.status < 300) {
      ctx.applied();
      return json(404, { error: 'not_found', message: 'no such schedule' });
    }
  },
};

describe.concurrent(`${SUITE} suite`, () => {
  test(
    'passes against the unaltered reference: every scenario passes, none skipped',
    async () => {
      const o = await runThrough(undefined, 'clean');
      expect(o.code, o.stdout.slice(-3000)).toBe(0);
      expect(o.scenarios.length).toBeGreaterThanOrEqual(5);
      expect(o.scenarios.filter((s) => s.state !== 'passed')).toEqual([]);
      for (const [id, verdict] of o.verdicts)
        if (/^SCHEDULES\./.test(id)) expect([id, verdict]).toEqual([id, 'passed']);
    },
    RUN_TIMEOUT_MS + 10_000,
  );

  test(
    'fails when creation by subscriptionId succeeds, a schedule has two owners, or intervals name another schedule',
    async () => {
      const o = await runThrough(ownerFault, 'owner');
      expectVerdicts(
        o,
        ['SCHEDULES.CREATE.SUBSCRIPTION_UNSUPPORTED', 'SCHEDULES.OWNER.EXACTLY_ONE', 'SCHEDULES.INTERVALS.PAGINATED'],
        ['SCHEDULES.CREATE.BY_ORDER', 'SCHEDULES.END_DATE.PRESENT', 'SCHEDULES.DELETE.DELETED'],
      );
    },
    RUN_TIMEOUT_MS + 10_000,
  );

  test(
    'fails when a schedule comes without endDate or its delete answers 404',
    async () => {
      const o = await runThrough(lifecycleFault, 'lifecycle');
      expectVerdicts(
        o,
        ['SCHEDULES.END_DATE.PRESENT', 'SCHEDULES.DELETE.DELETED'],
        ['SCHEDULES.CREATE.SUBSCRIPTION_UNSUPPORTED', 'SCHEDULES.INTERVALS.PAGINATED', 'SCHEDULES.CREATE.BY_ORDER'],
      );
    },
    RUN_TIMEOUT_MS + 10_000,
  );
});
