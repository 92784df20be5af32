/**
 * CONV.DELETE.GONE: after a 2xx DELETE of a resource the document makes gone (x-resource
 * gone: true), a later read or update of it gets 404, a second DELETE too, and no list asked
 * for later holds it. Only requests sent after the delete was answered count. A list showing
 * it fails on the second sighting: one page may have been read before the delete reached it.
 * A family rule saying the same of one resource's operations (CUSTOMERS.DELETE.GONE: its
 * `reads-404` and `leaves-list` parts) is judged with it, on the same exchanges: one judge.
 */
import type { RuleIndex } from '../../../contract/index.ts';
import { describeStatus, finding, type Check, type Evaluation } from '../types.ts';
import { FIRST, keyOf } from './ledger.ts';

const READS = 'CONV.DELETE.GONE#reads-404';
const SECOND = 'CONV.DELETE.GONE#second-delete';
const LISTS = 'CONV.DELETE.GONE#leaves-lists';
const NAME = 'deleted-gone';

/** The parts a family rule names what this judge judges by: a read after the delete, a list after it. */
const FAMILY_PARTS = { reads: 'reads-404', lists: 'leaves-list' } as const;
type FamilyPart = (typeof FAMILY_PARTS)[keyof typeof FAMILY_PARTS];

/**
 * The family rules that say the same of one resource's operations (CUSTOMERS.DELETE.GONE#reads-404,
 * CUSTOMERS.DELETE.GONE#leaves-list): part and operation id → their keys, from spec/rules.yaml.
 */
const familyKeys = new WeakMap<object, Map<string, string[]>>();
function familyOf(rules: Pick<RuleIndex, 'rules'>, part: FamilyPart, operationId: string): string[] {
  let m = familyKeys.get(rules);
  if (!m) {
    m = new Map();
    for (const r of rules.rules)
      for (const p of Object.values(FAMILY_PARTS))
        if (r.id !== 'CONV.DELETE.GONE' && r.parts?.some((x) => x.id === p))
          for (const op of r.operations) m.set(`${p} ${op}`, [...(m.get(`${p} ${op}`) ?? []), `${r.id}#${p}`]);
    familyKeys.set(rules, m);
  }
  return m.get(`${part} ${operationId}`) ?? [];
}

export const deletedGone: Check = {
  name: NAME,
  ruleIds: [READS, SECOND, LISTS, 'CUSTOMERS.DELETE.GONE#reads-404', 'CUSTOMERS.DELETE.GONE#leaves-list'],
  description:
    'A resource whose DELETE succeeded answers 404 to later reads, updates and deletes, and leaves every list.',
  open() {
    /** Resource key → ids seen once in a list after the delete. */
    const sighted = new Set<string>();
    return {
      observe(ex, ctx, op) {
        const s = ctx.shown;
        if (!s || s.resource.gone !== true || ctx.unauthenticated) return undefined;
        const judged = new Set<string>();
        const findings: Evaluation['findings'] = [];
        const judge = (rule: string | string[], ok: boolean, title: string, message: string) => {
          const ids = Array.isArray(rule) ? rule : [rule];
          for (const id of ids) judged.add(id);
          if (!ok) findings.push(finding(NAME, ids, title, `${describeStatus(ex)}: ${message}`, ex));
        };
        const what = (key: string) => `${s.resource.object ?? s.resource.schema} ${key}`;
        if (s.pathKey !== undefined) {
          const d = ctx.ledger.deleted.get(keyOf(s.resource, s.pathKey));
          if (d && ctx.startMs >= d.endMs && ex.status !== undefined && ex.status < 500 && !FIRST.has(ex.status)) {
            const again = s.role === 'delete';
            // A family rule saying the same of this resource (the customers') is judged with it.
            const family = op ? familyOf(ctx.rules, FAMILY_PARTS.reads, op.operationId) : [];
            judge(
              again ? [SECOND, ...family] : [READS, ...family],
              ex.status === 404,
              again ? 'A deleted resource was deleted again' : 'A deleted resource is still there',
              `${what(s.pathKey)}, whose DELETE answered ${d.status} before this request was sent, answered ${ex.status} (404 expected)`,
            );
          }
        }
        if (s.role === 'list' && s.page) {
          const lists = [LISTS, ...(op ? familyOf(ctx.rules, FAMILY_PARTS.lists, op.operationId) : [])];
          for (const item of s.items) {
            const k = keyOf(s.resource, item.key);
            const d = ctx.ledger.deleted.get(k);
            if (!d || ctx.startMs < d.endMs) continue;
            if (!sighted.has(k)) {
              sighted.add(k);
              continue;
            }
            judge(
              lists,
              false,
              'A deleted resource is still listed',
              `${what(item.key)}, whose DELETE answered ${d.status}, is listed on two pages asked for after it`,
            );
          }
          // A complete walk after the delete that holds it not: the list was left.
          const walk = ctx.walk;
          if (walk?.complete && !walk.scopeUnknown)
            for (const [k, d] of ctx.ledger.deleted)
              if (
                k.startsWith(`${s.resource.schema}:`) &&
                walk.startMs >= d.endMs &&
                !walk.ids.includes(k.slice(k.indexOf(':') + 1)) &&
                wasListed(ctx.ledger.last.get(k)?.body, walk.scope)
              )
                judge(lists, true, '', '');
        }
        return judged.size ? { judged: [...judged], findings } : undefined;
      },
    };
  },
};

/** A resource last seen with the values a list's scope names belongs in that list. */
function wasListed(body: Record<string, unknown> | undefined, scope: Record<string, string>): boolean {
  if (!body) return false;
  return Object.entries(scope).every(([field, value]) => body[field] === undefined || body[field] === value);
}
