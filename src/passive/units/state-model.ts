/**
 * The state model where traffic shows the state (src/engine/model judges it in `conform run`):
 * a customer whose DELETE succeeded answers 404 to any later request naming it; every
 * representation of a resource keeps the createdAt its first one had, and its updatedAt never
 * goes back. Only exchanges that follow each other are compared (a request sent before the
 * other was answered may have been served first); instants at the coarser precision of the two.
 */
import type { PassiveUnit, Observed } from '../types.ts';
import { Lru } from '../lru.ts';
import { compareInstants } from '../../engine/model/state.ts';
import { expect, is2xx, obj, opId, show, type Json } from './support.ts';

const U = 'state-model';
const GONE = 'CUSTOMERS.DELETE.GONE#reads-404';
const CREATED = 'CONV.TIMESTAMPS.LIFECYCLE#created-fixed';
const UPDATED = 'CONV.TIMESTAMPS.LIFECYCLE#updated-not-back';
const CUSTOMER_OPS = new Set(['getCustomer', 'updateCustomer', 'deleteCustomer']);

interface Seen {
  createdAt?: string;
  updatedAt?: string;
  /** When the answer that showed updatedAt came (ms). */
  at: number;
}

/** The resources an answer shows: its body, or each element of a list; webhooks by merchant. */
function shown(got: Json | undefined): Json[] {
  if (!got) return [];
  if (got.object === 'list' && Array.isArray(got.data)) return got.data.map(obj).filter((x): x is Json => !!x);
  if (got.object === 'migration' || got.subscription) return obj(got.subscription) ? [got.subscription] : [];
  return [got];
}

const keyOf = (r: Json): string | undefined =>
  typeof r.object !== 'string'
    ? undefined
    : typeof r.id === 'string'
      ? `${r.object}:${r.id}`
      : r.object === 'webhooks' && typeof r.merchantId === 'string'
        ? `webhooks:${r.merchantId}`
        : undefined;

export function stateModelUnit(): PassiveUnit {
  const deleted = new Lru<string, { at: number; status: number }>(5_000);
  const seen = new Lru<string, Seen>(20_000);
  return {
    name: U,
    scope: 'server',
    title: 'what earlier exchanges made of a resource: gone after its delete, timestamps on course',
    ruleIds: [GONE, CREATED, UPDATED],
    observe(o: Observed, ctx) {
      const id = opId(o);
      if (!id) return;
      if (CUSTOMER_OPS.has(id) && o.request.params.id) {
        const d = deleted.get(o.request.params.id);
        // Only a request sent after the delete was answered must find the customer gone.
        if (d && o.startMs >= d.at && o.record.status !== undefined)
          expect(
            ctx.server(this),
            U,
            o,
            GONE,
            o.record.status === 404,
            'A deleted customer is still there',
            () => `customer ${o.request.params.id}, whose DELETE answered ${d.status} before this request was sent`,
          );
        else if (id === 'deleteCustomer' && is2xx(o))
          deleted.set(o.request.params.id, { at: o.endMs, status: o.record.status! });
      }
      if (!is2xx(o)) return;
      for (const r of shown(obj(o.got))) {
        const key = keyOf(r);
        if (!key) continue;
        const before = seen.get(key);
        const now: Seen = { createdAt: before?.createdAt ?? r.createdAt, updatedAt: r.updatedAt, at: o.endMs };
        if (before) {
          const created = compareInstants(r.createdAt, before.createdAt);
          if (created !== undefined)
            expect(
              ctx.server(this),
              U,
              o,
              CREATED,
              created === 0,
              'A resource changed its createdAt',
              () => `${key} has createdAt ${show(r.createdAt)}; an earlier answer had ${show(before.createdAt)}`,
            );
          const updated = compareInstants(r.updatedAt, before.updatedAt);
          if (updated !== undefined && o.startMs >= before.at) {
            expect(
              ctx.server(this),
              U,
              o,
              UPDATED,
              updated >= 0,
              'A resource updatedAt went back',
              () =>
                `${key} has updatedAt ${show(r.updatedAt)}, before the ${show(before.updatedAt)} an answer received earlier had`,
            );
            if (updated < 0) now.updatedAt = before.updatedAt;
          }
        }
        seen.set(key, now);
      }
    },
  };
}
