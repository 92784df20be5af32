/**
 * A PATCH changes only what it sends: between two answers of the same resource's PATCH
 * (sent one after the other, nothing else written to it in between through this traffic,
 * within a few minutes), every field the second did not send answers as the first had it.
 * Two answers of the target are compared, so the form a field takes stays its own.
 */
import type { PassiveUnit } from '../types.ts';
import { Lru } from '../lru.ts';
import { unsentFields } from '../../engine/predicates.ts';
import { expect, is2xx, obj, opId, pathOf, show, type Json } from './support.ts';

const U = 'partial-updates';
const WINDOW_MS = 5 * 60_000;

/**
 * Per PATCH operation, its rules of "changes only what it is sent"; the fields each keeps (and
 * where they are answered) are the rule's params in spec/rules.yaml, read by unsentFields.
 */
const PARTIAL: Record<string, string[]> = {
  updateCustomer: ['CUSTOMERS.UPDATE.PARTIAL', 'CUSTOMERS.NOTIFICATIONS.PARTIAL'],
  updateAlert: ['ALERTS.UPDATE.PARTIAL'],
  updateAutoTopupConfig: ['WALLETS.AUTO_TOPUP.PARTIAL'],
  updateItem: ['ITEMS.UPDATE.PARTIAL'],
  updateSourceRule: ['SOURCE_RULES.UPDATE.PARTIAL#keeps-others'],
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
    ruleIds: [...new Set(Object.values(PARTIAL).flat())],
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
        const sent = obj(o.request.body) ?? {};
        for (const rule of partial) {
          const unsent = unsentFields(ctx.rules, rule, sent, before!.answer, got);
          if (unsent.length === 0) continue;
          const changed = unsent.filter((u) => !u.kept);
          expect(ctx.server(this), U, o, rule, changed.length === 0, 'A PATCH changed fields it did not send', () =>
            changed.map((u) => `${u.field} was ${show(u.was)}, now ${show(u.now)}`).join('; '),
          );
        }
      }
      last.set(key, { op: id, answer: got, end: o.endMs });
    },
  };
}
