/**
 * The items suite passes against the reference and fails, citing the right rules,
 * against the reference behind a proxy that breaks archiving.
 */
import { describe, expect, test } from 'vitest';
import type { Fault } from '../../src/faults/fault-proxy.ts';
import { faultByName } from '../../src/faults/catalog/index.ts';
import { expectVerdicts, json, RUN_TIMEOUT_MS, useSpawnRun, type Json } from './helpers/spawn-run.ts';

const SUITE = 'items';
const { runThrough } = useSpawnRun(SUITE);

const ITEM = /^\/v0\/items\/([^/?]+)(\?|$)/;

/**
 * Archiving an anchored item is answered as done (the item stays active), archived items
 * lose their external references, and unarchiving makes the first reference primary again.
 */
const archiveFault: Fault = {
  name: 'item-archive',
  async onResponse(req, res, ctx) {
    if (!ITEM.test(req.path) || (req.method !== 'PATCH' && req.method !== 'GET')) return;
    const archiving = (req.json as Json | undefined)?.archived;
    if (req.method === 'PATCH' && archiving === true && res.status >= 400 && res.status < 500) {
      ctx.applied();
      const { 'content-type': _ct, ...headers } = req.headers;
      const current = await ctx.upstream({ method: 'GET', path: req.path, headers, body: Buffer.alloc(0) });
      return json(200, { ...(current.json as Json), archivedAt: new Date().toISOString() });
    }
    const item = res.json as Json | undefined;
    if (res.status !== 200 || !item || !Array.isArray(item.externalReferences) || item.externalReferences.length === 0)
      return;
    if (typeof item.archivedAt === 'string') {
      ctx.applied();
      item.externalReferences = [];
    } else if (req.method === 'PATCH' && archiving === false) {
      ctx.applied();
      item.externalReferences[0].isPrimary = true;
    }
  },
};

/** No item ever shows a reference as primary: nothing holds an external id as primary. */
const noPrimaryFault: Fault = {
  name: 'no-primary',
  onResponse(req, res, ctx) {
    if (!ITEM.test(req.path) || res.status !== 200) return;
    for (const r of ((res.json as Json | undefined)?.externalReferences ?? []) as Json[]) {
      if (r?.isPrimary !== true) continue;
      r.isPrimary = false;
      ctx.applied();
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
        if (/^ITEMS\.|^STATE\.ITEM\./.test(id)) expect([id, verdict]).toEqual([id, 'passed']);
    },
    RUN_TIMEOUT_MS + 10_000,
  );

  test(
    'fails when an anchored item archives, an archived item loses its references, and unarchiving reclaims primary',
    async () => {
      const o = await runThrough(archiveFault, 'archive');
      expectVerdicts(
        o,
        ['ITEMS.ARCHIVE.BLOCKED', 'ITEMS.ARCHIVE.DEMOTES_PRIMARY', 'ITEMS.UNARCHIVE.NO_RECLAIM'],
        ['STATE.ITEM.UNARCHIVE', 'ITEMS.ARCHIVED_AT.STATE', 'ITEMS.ARCHIVED.READABLE', 'ITEMS.EXTERNAL_ID.ONE_PRIMARY'],
      );
    },
    RUN_TIMEOUT_MS + 10_000,
  );

  test(
    'fails when an archived item no longer reads back (a read that worked while active is not a missing fixture)',
    async () => {
      const o = await runThrough(faultByName('items-archived-unreadable')!, 'unreadable');
      expectVerdicts(o, ['ITEMS.ARCHIVED.READABLE'], ['ITEMS.ARCHIVE.BLOCKED', 'STATE.ITEM.ARCHIVE']);
    },
    RUN_TIMEOUT_MS + 10_000,
  );

  test(
    'fails when a second item takes an external id as primary that another item still holds',
    async () => {
      const o = await runThrough(faultByName('items-second-primary-accepted')!, 'second-primary');
      expectVerdicts(
        o,
        ['ITEMS.EXTERNAL_ID.ONE_PRIMARY'],
        ['ITEMS.ARCHIVE.DEMOTES_PRIMARY', 'ITEMS.UNARCHIVE.NO_RECLAIM'],
      );
    },
    RUN_TIMEOUT_MS + 10_000,
  );

  test(
    'a target where no item holds an external id as primary leaves ONE_PRIMARY not judged, never passed',
    async () => {
      const o = await runThrough(noPrimaryFault, 'no-primary');
      expect(o.applied, 'the fault altered at least one exchange').toBeGreaterThan(0);
      expect(o.verdicts.get('ITEMS.EXTERNAL_ID.ONE_PRIMARY')).toBe('not_judged');
      expect(o.stdout).toMatch(/precondition not met: an item holds external id \S+ as primary/);
      // Nothing was broken, and the scenarios that could judge did.
      expect(o.code, o.stdout.slice(-3000)).toBe(3);
      expect(o.verdicts.get('ITEMS.ARCHIVE.BLOCKED')).toBe('passed');
    },
    RUN_TIMEOUT_MS + 10_000,
  );
});
