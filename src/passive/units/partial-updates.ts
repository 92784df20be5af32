/**
 * A PATCH changes only what it sends: between two answers of the same resource's PATCH
 * (sent one after the other, nothing else written to it in between through this traffic,
 * within a few minutes), every field the second did not send answers as the first had it.
 * Two answers of the target are compared, so the form a field takes stays its own.
 */
import type { PassiveUnit } from '../types.ts';
import { Lru } from '../lru.ts';
import { expect, is2xx, obj, opId, pathOf, sameJson, show, type Json } from './support.ts';

const U = 'partial-updates';
const WINDOW_MS = 5 * 60_000;

/** A body field the answer shows under another name, and what "kept" means for it there. */
interface ShownAs {
  field: string;
  kept(before: unknown, now: unknown): boolean;
}

/** archived is shown as archivedAt: whether it is set says the state; its time is the target's own. */
const ARCHIVED: ShownAs = { field: 'archivedAt', kept: (a, b) => (a == null) === (b == null) };

/** Per PATCH operation: its rule, and the fields a PATCH not sending them keeps. */
const PARTIAL: Record<string, { rule: string; fields: string[]; shownAs?: Record<string, ShownAs> }> = {
  updateCustomer: {
    rule: 'CUSTOMERS.UPDATE.PARTIAL',
    fields: ['taxId', 'externalId', 'taxRates', 'notificationSettings'],
  },
  updateAlert: { rule: 'ALERTS.UPDATE.PARTIAL', fields: ['config', 'enabled', 'notifyPeriod', 'recipients'] },
  updateAutoTopupConfig: {
    rule: 'WALLETS.AUTO_TOPUP.PARTIAL',
    fields: ['amount', 'threshold', 'paymentMethod', 'limit'],
  },
  updateItem: {
    rule: 'ITEMS.UPDATE.PARTIAL',
    fields: ['name', 'catalogId', 'metadata', 'archived'],
    shownAs: { archived: ARCHIVED },
  },
  updateSourceRule: {
    rule: 'SOURCE_RULES.UPDATE.PARTIAL#keeps-others',
    fields: ['conditions', 'description', 'enabled', 'name', 'order'],
  },
};

interface Last {
  op: string;
  answer: Json;
  end: number;
}

export function partialUpdatesUnit(): PassiveUnit {
  const last = new Lru<string, Last>(10_000);
  return {
    name: U,
    scope: 'server',
    title: 'a PATCH keeps the fields it does not send',
    ruleIds: [...new Set(Object.values(PARTIAL).map((p) => p.rule))],
    observe(o, ctx) {
      if (o.record.method === 'GET' || o.record.status === undefined) return;
      const key = pathOf(o);
      const before = last.get(key);
      const id = opId(o) ?? '';
      const partial = PARTIAL[id];
      // After any other write, or one overlapping the previous answer, the next comparison starts afresh.
      const follows = !!before && before.op === id && o.startMs >= before.end && o.startMs - before.end <= WINDOW_MS;
      // A refused write changed nothing.
      if (o.record.status >= 400 && o.record.status < 500) return;
      if (!partial || !is2xx(o) || !obj(o.got)) {
        last.delete(key);
        return;
      }
      const got = obj(o.got)!;
      if (follows) {
        const sent = obj(o.sent) ?? {};
        const shown = (f: string): ShownAs => partial.shownAs?.[f] ?? { field: f, kept: sameJson };
        const changed = partial.fields
          .filter((f) => !(f in sent))
          .map(shown)
          .filter((s) => !s.kept(before!.answer[s.field], got[s.field]))
          .map((s) => s.field);
        if (partial.fields.some((f) => !(f in sent))) {
          expect(
            ctx.server(this),
            U,
            o,
            partial.rule,
            changed.length === 0,
            'A PATCH changed fields it did not send',
            () => changed.map((f) => `${f} was ${show(before!.answer[f])}, now ${show(got[f])}`).join('; '),
          );
        }
      }
      last.set(key, { op: id, answer: got, end: o.endMs });
    },
  };
}
