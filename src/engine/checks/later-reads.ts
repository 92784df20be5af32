/**
 * What a PATCH sent is what the resource holds afterwards, as a later read of it shows (a GET of
 * the same path, or the answer to a later PATCH that did not send that field): a customer's taxId
 * or externalId cleared with null, its single tax rate, its notification flags, a source rule's
 * fields. Compared only when nothing else wrote to the path between the two in the stream, the
 * later one sent once the write was answered, and within a few minutes (writes the stream does not
 * show cannot be seen: the longer the gap, the likelier one). The write's own answer is judged by
 * customer-updated and source-rule-updated; what an item update sent reads back as is round-trip's.
 */
import type { RuleIndex } from '../../contract/index.ts';
import type { Exchange } from '../types.ts';
import { isObject, keptFields } from '../predicates.ts';
import { holds, Judgement, show, type Json } from './answer.ts';
import { is2xx, type Check, type Evaluation } from './types.ts';
import { CappedMap } from './capped-map.ts';

const NAME = 'later-reads';
const READ_WINDOW_MS = 5 * 60_000;
const RESOURCES_KEPT = 10_000;

interface Expectation {
  /** Top-level field of the resource it is about. */
  field: string;
  /** Dotted path of what was sent (a later PATCH sending it replaces the expectation). */
  key: string;
  rule: string;
  what: string;
  /** Whether the resource read holds it; undefined when the read does not show the field (not judged). */
  holds(resource: Json): boolean | undefined;
}

interface Written {
  expectations: Expectation[];
  /** When the latest write to it ended. */
  writeEnd: number;
}

const obj = (v: unknown): Json | undefined => (isObject(v) ? v : undefined);

const cleared = (field: string, rule: string): Expectation => ({
  field,
  key: field,
  rule,
  what: `${field} cleared (null sent)`,
  holds: (r) => r[field] === undefined || r[field] === null,
});

/** What a successful PATCH sets, by operation (the fields it may set: its PARTIAL rule's params.keeps). */
const EXPECTS: Record<string, (sent: Json, rules: RuleIndex) => Expectation[]> = {
  updateCustomer(sent) {
    const out: Expectation[] = [];
    if (sent.taxId === null) out.push(cleared('taxId', 'CUSTOMERS.TAX_ID.NULL_CLEARS'));
    if (sent.externalId === null) out.push(cleared('externalId', 'CUSTOMERS.EXTERNAL_ID.NULL_CLEARS'));
    if (typeof sent.taxRates === 'number') {
      const rate = sent.taxRates;
      out.push({
        field: 'taxRates',
        key: 'taxRates',
        rule: 'CUSTOMERS.TAX_RATES.SINGLE_RATE',
        what: `every rate ${rate}`,
        holds: (r) => {
          const rates = obj(r.taxRates);
          return rates && Object.keys(rates).length ? Object.values(rates).every((x) => Number(x) === rate) : undefined;
        },
      });
    }
    for (const [flag, value] of Object.entries(obj(sent.notificationSettings) ?? {})) {
      if (typeof value !== 'boolean') continue;
      out.push({
        field: 'notificationSettings',
        key: `notificationSettings.${flag}`,
        rule: 'CUSTOMERS.NOTIFICATIONS.PARTIAL',
        what: `notificationSettings.${flag} ${value}`,
        holds: (r) => {
          const n = obj(r.notificationSettings);
          return typeof n?.[flag] === 'boolean' ? n[flag] === value : undefined;
        },
      });
    }
    return out;
  },
  updateSourceRule(sent, rules) {
    return keptFields(rules, 'SOURCE_RULES.UPDATE.PARTIAL')
      .filter((f) => sent[f] !== undefined)
      .map((f) => ({
        field: f,
        key: f,
        rule: 'SOURCE_RULES.UPDATE.PARTIAL#applies-sent',
        what: `${f} ${show(sent[f])}`,
        // Extra keys inside what was sent are allowed (the form of conditions is partly not shown).
        holds: (r) => holds(r[f], sent[f]),
      }));
  },
};

/** The value sent at a dotted path (undefined when not sent). */
function sentAt(sent: Json, key: string): unknown {
  let cur: unknown = sent;
  for (const k of key.split('.')) cur = obj(cur)?.[k];
  return cur;
}

/** Reads that show a whole resource: the operations answering it at its own path. */
const READS = new Set(['getCustomer', 'updateCustomer', 'updateSourceRule']);

const pathOf = (ex: Exchange) => ex.path.split('?')[0];

export const laterReads: Check = {
  name: NAME,
  ruleIds: [
    'CUSTOMERS.TAX_ID.NULL_CLEARS',
    'CUSTOMERS.EXTERNAL_ID.NULL_CLEARS',
    'CUSTOMERS.TAX_RATES.SINGLE_RATE',
    'CUSTOMERS.NOTIFICATIONS.PARTIAL',
    'SOURCE_RULES.UPDATE.PARTIAL#applies-sent',
  ],
  description: 'A later read of a customer or source rule shows what an earlier PATCH of it set.',
  open() {
    /** Path → what the latest writes to it set. */
    const written = new CappedMap<string, Written>(RESOURCES_KEPT);
    const forget = (path: string) => written.delete(path);
    return {
      observe(ex, ctx, op): Evaluation | undefined {
        if (!op || ex.status === undefined) return undefined;
        const path = pathOf(ex);
        const last = written.get(path);
        const current = last && ctx.startMs - last.writeEnd <= READ_WINDOW_MS ? last : undefined;
        if (last && !current) forget(path);
        const write = ex.method !== 'GET';
        // Overlapping with the latest write: its order against that write is unknown.
        const sequential = current !== undefined && ctx.startMs >= current.writeEnd;
        if (write && current && !sequential) {
          forget(path);
          return undefined;
        }
        const got = obj(ex.body);
        const sentNow = obj(ctx.request.body) ?? {};
        const j = new Judgement(NAME, ex);
        if (current && sequential && READS.has(op.operationId) && is2xx(ex) && got) {
          const id = Object.values(ctx.request.params)[0];
          if (got.id === id) {
            // A later PATCH's answer shows the fields it did not send.
            for (const e of current.expectations) {
              if (write && sentAt(sentNow, e.key) !== undefined) continue;
              const ok = e.holds(got);
              if (ok !== undefined)
                j.expect(
                  e.rule,
                  ok,
                  'A later read does not show what a PATCH set',
                  () =>
                    `${(ctx.startMs - current.writeEnd) / 1000} s after a PATCH that set ${e.what}, ` +
                    `the resource reads ${e.field} ${show(got[e.field])}`,
                );
            }
            if (!write) forget(path);
          }
        }
        if (write) {
          const expects = EXPECTS[op.extension ? '' : op.operationId];
          if (!expects || !is2xx(ex) || ctx.unauthenticated || ctx.brokenRequest) {
            // A write this judge cannot follow (a delete, an action, a 5xx): later reads are not compared.
            if (is2xx(ex) || ex.status >= 500) forget(path);
          } else {
            const fresh = expects(sentNow, ctx.rules);
            // Whatever this PATCH sent replaces what earlier ones set there.
            const kept = (current?.expectations ?? []).filter(
              (e) => sentAt(sentNow, e.key) === undefined && !fresh.some((f) => f.key === e.key),
            );
            written.set(path, { expectations: [...kept, ...fresh], writeEnd: ctx.endMs });
          }
        }
        return j.done();
      },
      unread(ex) {
        // A write the judges cannot read may have changed anything at its path.
        if (ex.method !== 'GET') forget(pathOf(ex));
      },
    };
  },
};
