/**
 * A targetVersionNumber outside 1..2147483647 (or not an integer) gets 400, not 404, when the
 * subscription exists: a 404 is for a version missing from the plan, and a bad number is a bad
 * request. Judged only where the traffic shows this client the subscription (an answer holding
 * it, or a migration of it accepted or refused with 409) within a few minutes of the 404: keys
 * may see different merchants, and removals the document does not show may happen outside it.
 */
import type { Observed, PassiveUnit } from '../types.ts';
import { Lru } from '../lru.ts';
import { expect, is2xx, obj, opId, show, TARGET_VERSION, targetVersionInRange as inRange } from './support.ts';

const U = 'migration-range';
const RULE = 'MIGRATION.400.TARGET_RANGE';
const WINDOW_MS = 10 * 60_000;

/** Ids of the subscriptions an answer holds: the body itself, `subscription`, or a list's `data`. */
function subscriptionsIn(got: unknown): string[] {
  const b = obj(got);
  if (!b) return [];
  const items = [b, obj(b.subscription), ...(Array.isArray(b.data) ? b.data.map(obj) : [])];
  return items.filter((s) => s?.object === 'subscription' && typeof s.id === 'string').map((s) => s!.id as string);
}

export function migrationRangeUnit(): PassiveUnit {
  /** When each (client, subscription) was last shown to exist. */
  const seen = new Lru<string, number>(20_000);
  /** 404s to an out-of-range target whose subscription the traffic had not shown yet. */
  const pending = new Lru<string, Observed>(2_000);
  const fail = (ctx: Parameters<PassiveUnit['observe']>[1], unit: PassiveUnit, o: Observed) =>
    expect(
      ctx.server(unit),
      U,
      o,
      RULE,
      false,
      'A bad targetVersionNumber answered 404 on a subscription that exists',
      () =>
        `targetVersionNumber ${show(obj(o.request.body)?.targetVersionNumber)} is outside ${TARGET_VERSION} or not an ` +
        `integer: 400, not 404 (the traffic shows subscription ${o.request.params.id} to this client)`,
    );
  return {
    name: U,
    scope: 'server',
    title: 'an invalid migration target on an existing subscription gets 400',
    ruleIds: [RULE],
    observe(o, ctx) {
      const migration = opId(o) === 'migrateSubscriptionVersion';
      const shown = is2xx(o) ? subscriptionsIn(o.got) : [];
      if (migration && (is2xx(o) || o.record.status === 409) && o.request.params.id) shown.push(o.request.params.id);
      for (const id of shown) {
        const key = `${o.client}\n${id}`;
        seen.set(key, o.endMs);
        const earlier = pending.get(key);
        if (earlier && o.startMs - earlier.endMs <= WINDOW_MS) fail(ctx, this, earlier);
        pending.delete(key);
      }
      if (
        !migration ||
        o.record.status !== 404 ||
        !o.request.params.id ||
        inRange(obj(o.request.body)?.targetVersionNumber)
      )
        return;
      const key = `${o.client}\n${o.request.params.id}`;
      const at = seen.get(key);
      if (at !== undefined && o.startMs - at <= WINDOW_MS) fail(ctx, this, o);
      else if (!pending.get(key)) pending.set(key, o);
    },
  };
}
