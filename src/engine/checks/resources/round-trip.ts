/**
 * CONV.ROUND_TRIP.AS_SENT: what a create or update sent for a field of a resource reads back
 * as sent, in its answer and in every later representation of the resource, until a write
 * sends the field again. The fields come from the resource's schema (x-resource in
 * spec/openapi.yaml), less those the server sets or transforms. A resource's own rule saying
 * the same of some operations (OWN) is judged with it, where a field left out fails.
 */
import type { Resource } from '../../../contract/index.ts';
import type { Exchange } from '../../types.ts';
import { enumOf, perRules } from '../../predicates.ts';
import {
  describeStatus,
  finding,
  is2xx,
  type Check,
  type Evaluation,
  type OperationInfo,
  type StreamContext,
} from '../types.ts';
import { show } from '../answer.ts';
import { differs, fieldSchema } from './compare.ts';
import { keyOf, type Item, type Json } from './ledger.ts';

const ANSWER = 'CONV.ROUND_TRIP.AS_SENT#answer';
const LATER = 'CONV.ROUND_TRIP.AS_SENT#later-reads';
const NAME = 'round-trip';
/**
 * Parts that say what the round trip says, of the values their rule's operations send, as read
 * by the operations its params.readBackBy names (spec/rules.yaml): a field they leave out fails.
 */
const OWN = ['ITEMS.UPDATE.APPLIED#holds-sent', 'MERCHANTS.GET.ROUND_TRIP#fields-as-created'];

const ownParts = perRules((rules) =>
  OWN.flatMap((part) => {
    // A rules index without the rule (a test's own) judges nothing under it.
    const rule = rules.byId(part.split('#')[0]);
    return rule ? [{ part, writes: rule.operations, reads: enumOf(rules, part, 'readBackBy') }] : [];
  }),
);

/** The own parts judging a value `write` sent, as an answer of `read` shows it. */
function ownFor(ctx: StreamContext, write: string, read: string | undefined): string[] {
  return ownParts(ctx.rules)
    .filter((o) => read !== undefined && o.writes.includes(write) && o.reads.includes(read))
    .map((o) => o.part);
}

interface Expected {
  value: unknown;
  /** When the write that sent it was answered. */
  endMs: number;
  /** `POST /v0/products` */
  by: string;
  /** The operation that sent it. */
  op: string;
}

/** The fields of a write a round trip compares: sent, of the resource, neither set by the server nor transformed. */
export function comparedFields(r: Resource, sent: Json): string[] {
  return Object.keys(sent).filter(
    (f) =>
      sent[f] !== undefined &&
      fieldSchema(r.fields, f) !== undefined &&
      !r.serverSet.includes(f) &&
      !(f in r.transforms),
  );
}

function compare(r: Resource, field: string, sent: unknown, got: unknown): string | undefined {
  return differs(fieldSchema(r.fields, field), sent, got, r.decimals.includes(field), field);
}

export const roundTrip: Check = {
  name: NAME,
  ruleIds: [ANSWER, LATER, ...OWN],
  description:
    "A value a create or update sent for a resource's field reads back as sent, in its answer and in every later representation.",
  open() {
    /** Resource key → field → what the last write sent. */
    const expected = new Map<string, Map<string, Expected>>();
    const judged = new Set<string>();
    const findings: Evaluation['findings'] = [];
    const judge = (rules: string[], ok: boolean, title: string, message: string, ex: Exchange) => {
      for (const r of rules) judged.add(r);
      if (!ok && rules.length) findings.push(finding(NAME, rules, title, `${describeStatus(ex)}: ${message}`, ex));
    };
    const forget = (k: string) => expected.delete(k);
    /** A write the stream cannot follow ends what is expected of the resources its path names. */
    const forgetNamedBy = (ex: Exchange) => {
      const path = ex.path.split('?')[0];
      for (const k of [...expected.keys()]) if (path.includes(k.slice(k.indexOf(':') + 1))) forget(k);
    };

    /** A later representation against what the writes before it sent (not what this request sends anew). */
    const later = (r: Resource, item: Item, ex: Exchange, ctx: StreamContext, op: OperationInfo, sentNow: Json) => {
      const fields = expected.get(keyOf(r, item.key));
      for (const [f, e] of fields ?? []) {
        if (f in sentNow || ctx.startMs < e.endMs) continue;
        const shown = item.body[f] !== undefined;
        const rules = [...(shown ? [LATER] : []), ...ownFor(ctx, e.op, op.operationId)];
        if (!rules.length) continue;
        const d = compare(r, f, e.value, item.body[f]);
        judge(
          rules,
          !d,
          'A later read does not hold what a write sent',
          `${r.object ?? r.schema} ${item.key}: ${f} was sent ${show(e.value)} (${e.by}), ` +
            `this answer reads ${show(item.body[f])} (${d})`,
          ex,
        );
      }
    };

    const done = (): Evaluation | undefined =>
      judged.size ? { judged: [...judged], findings: [...findings] } : undefined;

    return {
      observe(ex, ctx, op) {
        judged.clear();
        findings.length = 0;
        const s = ctx.shown;
        const write = ex.method !== 'GET';
        // A write that may have changed a resource in a way the stream cannot follow ends what is expected of it.
        if (write && (!s || (s.role !== 'create' && s.role !== 'update'))) {
          if (!is2xx(ex) && ex.status !== undefined && ex.status < 500) return;
          forgetNamedBy(ex);
          return;
        }
        if (!s || !op) return;
        const r = s.resource;
        if (write && !is2xx(ex)) {
          // A refusal changes nothing; a 5xx or no answer may have changed anything.
          if ((ex.status === undefined || ex.status >= 500) && s.pathKey !== undefined) forget(keyOf(r, s.pathKey));
          return;
        }
        if (!s.bodyShown || ctx.unauthenticated) return;
        const sentNow = write && !ctx.brokenRequest ? s.sent : {};
        for (const item of s.items) later(r, item, ex, ctx, op, sentNow);
        if (!write || ctx.brokenRequest || s.items.length !== 1) return done();
        const [item] = s.items;
        const k = keyOf(r, item.key);
        const fields = expected.get(k) ?? new Map<string, Expected>();
        const by = describeStatus(ex);
        const own = ownFor(ctx, op.operationId, op.operationId);
        for (const f of Object.keys(s.sent)) if (f in r.transforms) fields.delete(f);
        for (const f of comparedFields(r, s.sent)) {
          // Two writes of one field sent at once: which one the resource holds is not known.
          const before = fields.get(f);
          if (before && before.endMs > ctx.startMs) fields.delete(f);
          else fields.set(f, { value: s.sent[f], endMs: ctx.endMs, by: by.split(' → ')[0], op: op.operationId });
          const rules = [...(item.body[f] !== undefined ? [ANSWER] : []), ...own];
          if (!rules.length) continue;
          const d = compare(r, f, s.sent[f], item.body[f]);
          judge(
            rules,
            !d,
            `The ${r.object ?? r.schema} answered does not hold what was sent`,
            `${f} sent ${show(s.sent[f])}, answered ${show(item.body[f])} (${d})`,
            ex,
          );
        }
        expected.set(k, fields);
        return done();
      },
      unread(ex) {
        if (ex.method !== 'GET' && (ex.status === undefined || ex.status < 400 || ex.status >= 500)) forgetNamedBy(ex);
      },
    };
  },
};
