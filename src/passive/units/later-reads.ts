/**
 * PATCH semantics across exchanges: what a PATCH sent is what the resource holds afterwards,
 * as a later read of it shows (a GET of the same path, or the answer to a later PATCH that
 * did not send that field). Compared only when nothing else wrote to the resource between
 * the two through this traffic, and within a few minutes (writes that do not pass here
 * cannot be seen: the longer the gap, the likelier one). What an item update sent reads back as
 * is the registry's round trip (checks/resources/round-trip.ts).
 */
import type { RuleIndex } from '../../contract/index.ts';
import { keptFields } from '../../engine/predicates.ts';
import type { Tally } from '../tally.ts';
import type { Observed, PassiveUnit } from '../types.ts';
import { Lru } from '../lru.ts';
import { expect, holds as holdsSent, is2xx, obj, opId, pathOf, sameJson, show, type Json } from './support.ts';

const U = 'later-reads';
const READ_WINDOW_MS = 5 * 60_000;
const MAX_RESOURCES = 10_000;

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

interface Resource {
  expectations: Expectation[];
  /** When the latest write to it ended. */
  writeEnd: number;
}

/** The field reads as sent: exactly, or (`lenient`) with extra keys inside allowed. */
const equalTo = (field: string, rule: string, value: unknown, lenient = false): Expectation => ({
  field,
  key: field,
  rule,
  what: `${field} ${show(value)}`,
  holds: (r) => (lenient ? holdsSent(r[field], value) : sameJson(r[field], value)),
});

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
      .map((f) => equalTo(f, 'SOURCE_RULES.UPDATE.PARTIAL#applies-sent', sent[f], true));
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

export function laterReadsUnit(): PassiveUnit {
  const resources = new Lru<string, Resource>(MAX_RESOURCES);

  const compare = (o: Observed, r: Resource, got: Json, sentNow: Json, t: Tally) => {
    for (const e of r.expectations) {
      if (sentAt(sentNow, e.key) !== undefined) continue;
      const ok = e.holds(got);
      if (ok === undefined) continue;
      expect(
        t,
        U,
        o,
        e.rule,
        ok,
        'A later read does not show what a PATCH set',
        () =>
          `${(o.startMs - r.writeEnd) / 1000} s after a PATCH that set ${e.what}, the resource reads ${e.field} ${show(got[e.field])}`,
      );
    }
  };

  return {
    name: U,
    scope: 'server',
    title: 'PATCH semantics: later reads show what was sent',
    ruleIds: [
      'CUSTOMERS.TAX_ID.NULL_CLEARS',
      'CUSTOMERS.EXTERNAL_ID.NULL_CLEARS',
      'CUSTOMERS.TAX_RATES.SINGLE_RATE',
      'CUSTOMERS.NOTIFICATIONS.PARTIAL',
      'SOURCE_RULES.UPDATE.PARTIAL#applies-sent',
    ],
    observe(o, ctx) {
      const id = o.operation?.operationId;
      const status = o.record.status;
      if (!id || status === undefined) return;
      const key = pathOf(o);
      const r = resources.get(key);
      if (r && o.startMs - r.writeEnd > READ_WINDOW_MS) resources.delete(key);
      const current = r && o.startMs - r.writeEnd <= READ_WINDOW_MS ? r : undefined;
      const write = o.record.method !== 'GET';
      // Overlapping with the latest write: its order against that write is unknown.
      const sequential = current !== undefined && o.startMs >= current.writeEnd;
      if (write && current && !sequential) {
        resources.delete(key);
        return;
      }
      const got = obj(o.got);
      if (current && sequential && READS.has(id) && is2xx(o) && got && got.id === Object.values(o.request.params)[0]) {
        // A later PATCH's answer shows the fields it did not send.
        compare(o, current, got, write ? (obj(o.request.body) ?? {}) : {}, ctx.server(this));
        if (!write) resources.delete(key);
      }
      if (!write) return;
      const expects = EXPECTS[opId(o) ?? ''];
      if (!expects || !is2xx(o)) {
        // A write this unit cannot follow (a delete, an action): later reads are not compared.
        if (is2xx(o) || status >= 500) resources.delete(key);
        return;
      }
      const fresh = expects(obj(o.request.body) ?? {}, ctx.rules);
      const sentNow = obj(o.request.body) ?? {};
      // Whatever this PATCH sent replaces what earlier ones set there.
      const kept = (current?.expectations ?? []).filter(
        (e) => sentAt(sentNow, e.key) === undefined && !fresh.some((f) => f.key === e.key),
      );
      resources.set(key, { expectations: [...kept, ...fresh], writeEnd: o.endMs });
    },
  };
}
