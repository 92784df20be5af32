/**
 * The version-migration suite passes against the reference and fails, citing the right
 * rules, against the reference behind a proxy that breaks migrations.
 */
import { describe, expect, test } from 'vitest';
import type { Fault } from '../../src/faults/fault-proxy.ts';
import { expectVerdicts, json, RUN_TIMEOUT_MS, useSpawnRun, type Json } from './helpers/spawn-run.ts';

const SUITE = 'version-migration';
const { runThrough } = useSpawnRun(SUITE);

const MIGRATE = /^\/v0\/subscriptions\/([^/?]+)\/versionMigration(\?|$)/;
const SUBSCRIPTION = /^\/v0\/subscriptions\/([^/?]+)(\?|$)/;

/**
 * Refused versions answer 200, 409 codes are lower case, a second migration before the
 * boundary is acknowledged but ignored (the first stays), and PATCH versionPolicy is ignored.
 */
const schedulingFault: Fault = {
  name: 'migration-scheduling',
  async onRequest(req, ctx) {
    const m = MIGRATE.exec(req.path);
    if (req.method === 'POST' && m) {
      const first = ctx.state.get(m[1]) as Json | undefined;
      const target = (req.json as Json | undefined)?.targetVersionNumber;
      if (first && Number.isInteger(target) && target !== first.migration.toVersionNumber) {
        ctx.applied();
        return json(200, { ...first, migration: { ...first.migration, toVersionNumber: target } });
      }
    }
    if (req.method === 'PATCH' && SUBSCRIPTION.test(req.path)) {
      ctx.applied();
      const { 'content-type': _ct, ...headers } = req.headers;
      return ctx.upstream({ method: 'GET', path: req.path, headers, body: Buffer.alloc(0) });
    }
  },
  onResponse(req, res, ctx) {
    const m = MIGRATE.exec(req.path);
    if (req.method !== 'POST' || !m) return;
    const body = res.json as Json | undefined;
    if (res.status === 404) {
      ctx.applied();
      const target = (req.json as Json | undefined)?.targetVersionNumber;
      return json(200, {
        subscription: { object: 'subscription', id: m[1], versionPolicy: 'pinned' },
        migration: {
          fromVersionNumber: 1,
          toVersionNumber: target,
          effectiveAt: new Date().toISOString(),
          changed: true,
        },
        lineItems: { syncFailed: false },
      });
    }
    if (res.status === 409 && typeof body?.code === 'string') {
      ctx.applied();
      body.code = body.code.toLowerCase();
    }
    if (res.status === 200 && body?.migration?.changed === true && !ctx.state.has(m[1])) ctx.state.set(m[1], body);
  },
};

/** Migrations do not pin (answer and reads), take effect a day late, and bad bounds get 404. */
const pinningFault: Fault = {
  name: 'migration-pinning',
  onResponse(req, res, ctx) {
    const body = res.json as Json | undefined;
    const m = MIGRATE.exec(req.path);
    if (req.method === 'POST' && m) {
      if (res.status === 400) {
        ctx.applied();
        return json(404, { error: 'not_found', message: 'no such version' });
      }
      if (res.status === 200 && body?.migration && body.subscription) {
        ctx.applied();
        ctx.state.set(m[1], true);
        body.subscription.versionPolicy = 'floating';
        body.migration.effectiveAt = new Date(Date.parse(body.migration.effectiveAt) + 86_400_000).toISOString();
      }
      return;
    }
    const s = SUBSCRIPTION.exec(req.path);
    if (req.method === 'GET' && s && ctx.state.has(s[1]) && body?.versionPolicy === 'pinned') {
      ctx.applied();
      body.versionPolicy = 'floating';
    }
  },
};

describe.concurrent(`${SUITE} suite`, () => {
  test(
    'passes against the unaltered reference: every scenario passes, none skipped',
    async () => {
      const o = await runThrough(undefined, 'clean');
      expect(o.code, o.stdout.slice(-3000)).toBe(0);
      expect(o.scenarios.length).toBeGreaterThanOrEqual(10);
      expect(o.scenarios.filter((s) => s.state !== 'passed')).toEqual([]);
      for (const [id, verdict] of o.verdicts)
        if (/^(MIGRATION|SUBSCRIPTIONS)\.|^STATE\.SUBSCRIPTION\./.test(id))
          expect([id, verdict]).toEqual([id, 'passed']);
    },
    RUN_TIMEOUT_MS + 10_000,
  );

  test(
    'fails on 200 where 404 is due, lower-case codes, an ignored second migration (the first target billed) and an ignored PATCH floating',
    async () => {
      const o = await runThrough(schedulingFault, 'scheduling');
      expectVerdicts(
        o,
        [
          'MIGRATION.404.MISSING_VERSION',
          'MIGRATION.404.ARCHIVED_VERSION',
          'MIGRATION.409.CODE_VALUES',
          'MIGRATION.EFFECT.SECOND_REPLACES_FIRST',
          'MIGRATION.EFFECT.BILLS_TARGET',
          'STATE.SUBSCRIPTION.FLOATING',
          'SUBSCRIPTIONS.VERSION_POLICY.FLOATING_FOLLOWS_DEFAULT',
        ],
        [
          'MIGRATION.409.NOT_LIVE',
          'MIGRATION.409.ENDS_BEFORE_BOUNDARY',
          'MIGRATION.409.OVERRIDE_RATE',
          'MIGRATION.409.FEATURE_CHANGE',
          'MIGRATION.409.INTERVAL_COVERED',
          'MIGRATION.EFFECT.PINS',
          'MIGRATION.EFFECT.PERIOD_END',
          'MIGRATION.RESPONSE.SHAPE',
          'MIGRATION.SAME_VERSION.NO_CHANGE',
          'MIGRATION.400.TARGET_RANGE',
        ],
      );
    },
    RUN_TIMEOUT_MS + 10_000,
  );

  test(
    'fails on a migration that does not pin, a wrong effectiveAt and 404 where 400 is due',
    async () => {
      const o = await runThrough(pinningFault, 'pinning');
      expectVerdicts(
        o,
        [
          'MIGRATION.EFFECT.PINS',
          'MIGRATION.SAME_VERSION.PINS_FLOATING',
          'MIGRATION.EFFECT.PERIOD_END',
          'STATE.SUBSCRIPTION.MIGRATE',
          'MIGRATION.400.TARGET_RANGE',
        ],
        [
          'MIGRATION.404.MISSING_VERSION',
          'MIGRATION.404.ARCHIVED_VERSION',
          'MIGRATION.409.NOT_LIVE',
          'MIGRATION.409.CODE_VALUES',
          'MIGRATION.RESPONSE.VERSION_NUMBERS',
          'MIGRATION.SAME_VERSION.NO_CHANGE',
          'MIGRATION.EFFECT.BILLS_TARGET',
        ],
      );
    },
    RUN_TIMEOUT_MS + 10_000,
  );
});
