/**
 * "A PATCH changes only what it is sent" (the rules whose params.keeps in spec/rules.yaml lists
 * the fields an update keeps): between two answers of one resource's PATCH, the second sent once
 * the first was answered, within a few minutes, with nothing else written to its path between
 * them in the stream, every kept field the second did not send answers as the first had it.
 * Two answers of the target are compared (unsentFields), so the form a field takes stays its own.
 */
import { perRules, unsentFields } from '../predicates.ts';
import { show } from './answer.ts';
import { describeStatus, finding, is2xx, isObject, type Check, type Evaluation } from './types.ts';
import { CappedMap } from './capped-map.ts';

const NAME = 'partial-updates';
/** The "changes only what it is sent" parts; each applies to the operations its rule names. */
const PARTS = [
  'CUSTOMERS.UPDATE.PARTIAL',
  'CUSTOMERS.NOTIFICATIONS.PARTIAL',
  'ALERTS.UPDATE.PARTIAL',
  'WALLETS.AUTO_TOPUP.PARTIAL',
  'ITEMS.UPDATE.PARTIAL',
  'SOURCE_RULES.UPDATE.PARTIAL#keeps-others',
];
/** The longer the gap, the likelier a write the stream does not show. */
const WINDOW_MS = 5 * 60_000;
const RESOURCES_KEPT = 10_000;

/** Operation id → the parts its answers are judged under. */
const partsByOperation = perRules((rules) => {
  const out = new Map<string, string[]>();
  for (const part of PARTS)
    for (const op of rules.byId(part.split('#')[0])?.operations ?? []) out.set(op, [...(out.get(op) ?? []), part]);
  return out;
});

interface Last {
  op: string;
  answer: Record<string, unknown>;
  endMs: number;
}

export const partialUpdates: Check = {
  name: NAME,
  ruleIds: PARTS,
  description: 'Between two answers of one resource’s PATCH, the fields the second did not send are kept.',
  open() {
    /** Path → the last answer to a PATCH of it that the next one is compared with. */
    const last = new CappedMap<string, Last>(RESOURCES_KEPT);
    return {
      observe(ex, ctx, op): Evaluation | undefined {
        if (ex.method === 'GET' || !op || ex.status === undefined) return undefined;
        // A refused write changed nothing.
        if (ex.status >= 400 && ex.status < 500) return undefined;
        const path = ex.path.split('?')[0];
        const before = last.get(path);
        const parts = partsByOperation(ctx.rules).get(op.operationId);
        if (!parts || !is2xx(ex) || !isObject(ex.body)) {
          // Any other write to the path may have changed anything: the next PATCH starts afresh.
          last.delete(path);
          return undefined;
        }
        const got = ex.body;
        last.set(path, { op: op.operationId, answer: got, endMs: ctx.endMs });
        // Sent before the previous answer came, or long after it: its order or what came between is unknown.
        const follows =
          before?.op === op.operationId && ctx.startMs >= before.endMs && ctx.startMs - before.endMs <= WINDOW_MS;
        if (!follows) return undefined;
        const sent = isObject(ctx.request.body) ? ctx.request.body : {};
        const judged: string[] = [];
        const findings: Evaluation['findings'] = [];
        for (const part of parts) {
          const unsent = unsentFields(ctx.rules, part, sent, before.answer, got);
          if (!unsent.length) continue;
          judged.push(part);
          const changed = unsent.filter((u) => !u.kept);
          if (changed.length)
            findings.push(
              finding(
                NAME,
                [part],
                'A PATCH changed fields it did not send',
                `${describeStatus(ex)}: ${changed.map((u) => `${u.field} was ${show(u.was)}, now ${show(u.now)}`).join('; ')}`,
                ex,
              ),
            );
        }
        return judged.length ? { judged, findings } : undefined;
      },
      unread(ex) {
        if (ex.method === 'GET') return;
        if (ex.status === undefined || ex.status < 400 || ex.status >= 500) last.delete(ex.path.split('?')[0]);
      },
    };
  },
};
