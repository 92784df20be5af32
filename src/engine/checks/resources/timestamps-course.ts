/**
 * CONV.TIMESTAMPS.LIFECYCLE over the stream: every representation of a resource keeps the
 * createdAt its first one had, and its updatedAt never goes back. Only answers that follow each
 * other are compared for updatedAt (a request sent before the other was answered may have been
 * served first); instants compare at the coarser precision of the two.
 */
import { compareInstants, isObject, objectNameOf } from '../../predicates.ts';
import { show, type Json } from '../answer.ts';
import { describeStatus, finding, is2xx, type Check, type Evaluation, type SpecView } from '../types.ts';
import { CappedMap } from '../capped-map.ts';

const NAME = 'timestamps-course';
const CREATED = 'CONV.TIMESTAMPS.LIFECYCLE#created-fixed';
const UPDATED = 'CONV.TIMESTAMPS.LIFECYCLE#updated-not-back';
const RESOURCES_KEPT = 20_000;

interface Seen {
  createdAt?: string;
  updatedAt?: string;
  /** When the answer that showed updatedAt came (ms). */
  at: number;
}

/** The resources an answer shows: its body, or each element of a list; a migration's subscription (VersionMigration has no object name). */
function shownIn(got: unknown, spec: SpecView): Json[] {
  if (!isObject(got)) return [];
  if (got.object === objectNameOf(spec, 'ListEnvelope') && Array.isArray(got.data)) return got.data.filter(isObject);
  if (got.subscription) return isObject(got.subscription) ? [got.subscription] : [];
  return [got];
}

/** A resource's key: its object and id; webhooks, their merchant. */
const keyOf = (r: Json, spec: SpecView): string | undefined =>
  typeof r.object !== 'string'
    ? undefined
    : typeof r.id === 'string'
      ? `${r.object}:${r.id}`
      : r.object === objectNameOf(spec, 'WebhooksConfiguration') && typeof r.merchantId === 'string'
        ? `${r.object}:${r.merchantId}`
        : undefined;

export const timestampsCourse: Check = {
  name: NAME,
  ruleIds: [CREATED, UPDATED],
  description:
    "Across a stream's answers, a resource's createdAt stays as first shown and its updatedAt never goes back.",
  open() {
    const seen = new CappedMap<string, Seen>(RESOURCES_KEPT);
    return {
      observe(ex, ctx): Evaluation | undefined {
        if (!is2xx(ex)) return undefined;
        const judged = new Set<string>();
        const findings: Evaluation['findings'] = [];
        const judge = (rule: string, ok: boolean, title: string, message: () => string) => {
          judged.add(rule);
          if (!ok) findings.push(finding(NAME, [rule], title, `${describeStatus(ex)}: ${message()}`, ex));
        };
        for (const r of shownIn(ex.body, ctx.spec)) {
          const key = keyOf(r, ctx.spec);
          if (!key) continue;
          const before = seen.get(key);
          const now: Seen = { createdAt: before?.createdAt ?? r.createdAt, updatedAt: r.updatedAt, at: ctx.endMs };
          if (before) {
            const created = compareInstants(r.createdAt, before.createdAt);
            if (created !== undefined)
              judge(
                CREATED,
                created === 0,
                'A resource changed its createdAt',
                () => `${key} has createdAt ${show(r.createdAt)}; an earlier answer had ${show(before.createdAt)}`,
              );
            const updated = compareInstants(r.updatedAt, before.updatedAt);
            if (updated !== undefined && ctx.startMs >= before.at) {
              judge(
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
        return judged.size ? { judged: [...judged], findings } : undefined;
      },
    };
  },
};
