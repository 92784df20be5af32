/**
 * The state model (suites/state-model.suite.ts) passes against the bundled reference and
 * catches, with no scenario written for them, faults that only show across several exchanges:
 * a deleted customer still readable and listed, or only listed, an owner field naming another organization, a
 * list total its pages do not reach, a migration moving from what a first one left pending. Each failure comes shrunk, with a replay script of its
 * whole sequence.
 */
import { describe, expect, test } from 'vitest';
import type { ScenarioResult } from '../../src/engine/runner/index.ts';
import { expectAllPassed, useInProcessRun, type Json } from './helpers/in-process-run.ts';

const { run, expectFailed } = useInProcessRun('state-model');

const isCustomer = (path: string) => /^\/v0\/customers\/cus_[A-Za-z0-9]+$/.test(path.split('?')[0]);
const isCustomerList = (path: string) => path.split('?')[0] === '/v0/customers';

/** The finding under `ruleId` (or one of its parts), with the evidence a reader replays. */
function findingOf(results: ScenarioResult[], ruleId: string) {
  const f = results.flatMap((r) => r.findings).find((x) => x.ruleIds.some((k) => k.split('#')[0] === ruleId));
  expect(f, `a finding under ${ruleId}`).toBeDefined();
  return f!;
}

describe('state model suite', () => {
  test('passes against the unaltered reference: no failure, no skip', async () => {
    expectAllPassed(await run());
  });

  test('catches a delete answered as documented that leaves the customer readable and listed', async () => {
    const results = await run({
      name: 'delete-answered-not-done',
      onRequest(req, ctx) {
        if (req.method !== 'DELETE' || !isCustomer(req.path)) return;
        ctx.applied();
        // Answered as a delete done, but the customer stays.
        return { status: 204, headers: {}, body: Buffer.alloc(0) };
      },
    });
    expectFailed(results, ['CUSTOMERS.DELETE.GONE']);
    // The registry's finding (deleted-gone) ended the sequence; the model reports it shrunk, with its replay.
    const f = results
      .flatMap((r) => r.findings)
      .find((x) => x.replaySequence && x.ruleIds.includes('CUSTOMERS.DELETE.GONE#reads-404'));
    expect(f, 'the shrunk sequence under CUSTOMERS.DELETE.GONE#reads-404').toBeDefined();
    expect(f!.message).toMatch(/whose DELETE answered 204 before this request was sent/);
    // The replay script holds the whole shrunk sequence: the delete, then what showed it was not done.
    expect(f!.replaySequence).toMatch(/-X DELETE '[^']*\/v0\/customers\/cus_/);
    // What showed it: a later request to the customer (a read, an update, another delete) answered as if it were there.
    expect(f!.replaySequence).toMatch(/Replays the [2-9] requests/);
    expect(f!.replaySequence).toMatch(/-X (GET|PATCH|DELETE) '[^']*\/v0\/customers/);
    expect(f!.replaySequence).toMatch(/\$\{?CONFORM_API_KEY/);
    expect(f!.counterexample).toMatch(/DELETE customer|delete it/);
  });

  test('catches GET /v0/customers still listing a deleted customer whose reads answer 404: the registry judges the two rules that say so, on the walks the model makes', async () => {
    const results = await run({
      name: 'list-keeps-deleted',
      onResponse(req, res, ctx) {
        const b = res.json as Json;
        const known = (ctx.state.get('known') ?? new Map()) as Map<string, Json>;
        const deleted = (ctx.state.get('deleted') ?? new Set()) as Set<string>;
        ctx.state.set('known', known);
        ctx.state.set('deleted', deleted);
        if (b?.object === 'customer' && typeof b.id === 'string') known.set(b.id, structuredClone(b));
        if (req.method === 'DELETE' && isCustomer(req.path) && res.status >= 200 && res.status < 300)
          deleted.add(decodeURIComponent(req.path.split('?')[0].split('/').pop()!));
        if (req.method !== 'GET' || !isCustomerList(req.path) || !Array.isArray(b?.data)) return;
        if (b.pagination?.offset !== 0 || typeof b.pagination?.total !== 'number') return;
        const ghosts = [...deleted]
          .filter((id) => known.has(id) && !b.data.some((c: Json) => c.id === id))
          .map((id) => known.get(id)!);
        if (!ghosts.length) return;
        b.data.unshift(...ghosts);
        b.pagination.total += ghosts.length;
        ctx.applied();
      },
    });
    expectFailed(results, ['CUSTOMERS.DELETE.GONE', 'CONV.DELETE.GONE']);
    // One judge, one finding under both keys: the model walks, the registry's deleted-gone judges.
    const f = results.flatMap((r) => r.findings).find((x) => x.ruleIds.includes('CUSTOMERS.DELETE.GONE#leaves-list'));
    expect(f?.ruleIds).toEqual(['CONV.DELETE.GONE#leaves-lists', 'CUSTOMERS.DELETE.GONE#leaves-list']);
    expect(f!.message).toMatch(/is listed on two pages asked for after it/);
  });

  test('catches customers answering with merchantId and consumerId swapped (both still org_ ids)', async () => {
    const results = await run({
      name: 'owner-swapped',
      onResponse(req, res, ctx) {
        const b = res.json as Json;
        if (!isCustomer(req.path) || !b || typeof b.consumerId !== 'string') return;
        [b.merchantId, b.consumerId] = [b.consumerId, b.merchantId];
        ctx.applied();
      },
    });
    expectFailed(results, ['MERCHANTS.OWNER.NAMED']);
    expect(findingOf(results, 'MERCHANTS.OWNER.NAMED').replaySequence).toMatch(/\/v0\/customers\/cus_/);
  });

  test('catches a migration that moves from the pending target instead of the version in use (a second migration no longer replaces the first)', async () => {
    const results = await run({
      name: 'migration-from-pending',
      onResponse(req, res, ctx) {
        const b = res.json as Json;
        if (req.method !== 'POST' || !req.path.endsWith('/versionMigration') || !b?.migration) return;
        const pending = ctx.state.get(req.path) as number | undefined;
        ctx.state.set(req.path, b.migration.toVersionNumber);
        if (pending === undefined || pending === b.migration.fromVersionNumber) return;
        b.migration.fromVersionNumber = pending;
        ctx.applied();
      },
    });
    expectFailed(results, ['MIGRATION.RESPONSE.VERSION_NUMBERS']);
    const f = findingOf(results, 'MIGRATION.RESPONSE.VERSION_NUMBERS');
    // The sequences share one subscription: the pending migration may be an earlier sequence's.
    expect(f.ruleIds).toEqual(['MIGRATION.RESPONSE.VERSION_NUMBERS#from-in-use']);
    expect(f.replaySequence).toMatch(/-X POST '[^']*\/versionMigration'/);
  });

  test('a finding of the registry on an answer ends the sequence: unarchiving answered with archivedAt still set shrinks to that PATCH', async () => {
    const results = await run({
      name: 'unarchive-keeps-archived-at',
      onResponse(req, res, ctx) {
        const b = res.json as Json;
        const sent = req.json as Json | undefined;
        if (req.method !== 'PATCH' || !/^\/v0\/items\/[^/?]+$/.test(req.path.split('?')[0])) return;
        if (sent?.archived !== false || !b || b.archivedAt !== null) return;
        b.archivedAt = '2026-01-01T00:00:00Z';
        ctx.applied();
      },
    });
    // The item-updated check's part: the model no longer judges it on the PATCH answer.
    expectFailed(results, ['ITEMS.ARCHIVED_AT.STATE']);
    const items = results.find((r) => r.title.startsWith('items and prices'));
    expect(items?.state).toBe('failed');
    const f = items!.findings.find((x) => x.counterexample !== undefined);
    // The items model's shrunk sequence, reported under the part of the check: one PATCH.
    expect(f?.ruleIds).toEqual(['ITEMS.ARCHIVED_AT.STATE#null-while-active']);
    expect(f!.counterexample).toMatch(/^\[PATCH item /);
    expect(String(f!.counterexample).match(/PATCH item/g)).toHaveLength(1);
    expect(f!.replaySequence).toMatch(/-X PATCH '[^']*\/v0\/items\/[^']*'/);
  });

  test('catches GET /v0/customers stating a pagination.total one above what its pages hold', async () => {
    const results = await run({
      name: 'list-total-plus-one',
      onResponse(req, res, ctx) {
        const b = res.json as Json;
        if (req.method !== 'GET' || !isCustomerList(req.path) || typeof b?.pagination?.total !== 'number') return;
        b.pagination.total += 1;
        ctx.applied();
      },
    });
    expectFailed(results, ['CONV.LIST.TOTAL_REACHED']);
    const f = findingOf(results, 'CONV.LIST.TOTAL_REACHED');
    expect(f.message).toMatch(
      /states pagination.total (\d+) but reaches (\d+) distinct elements \(the same on two walks\)/,
    );
    const [, total, reached] = /total (\d+) but reaches (\d+)/.exec(f.message)!;
    expect(Number(total)).toBe(Number(reached) + 1);
  });
});
