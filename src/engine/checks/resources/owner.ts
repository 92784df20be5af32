/**
 * CONV.OWNER.KEY_MERCHANT: a resource belongs to the merchant it was made for. Every
 * representation of a resource with an owner field (x-resource owner) names that merchant: the
 * one a create or the request named, else the key's merchant for a list or a configuration
 * named by its merchant, else the owner the run made or was given it for, else the owner the
 * first representation named (an owner never changes). And no list answered to one merchant's
 * key holds the id of a resource the run knows to be a merchant's that key may not manage.
 */
import type { Resource } from '../../../contract/index.ts';
import { describeStatus, finding, isObject, type Check, type Evaluation, type StreamContext } from '../types.ts';
import { show } from '../answer.ts';
import { keyOf, type Item } from './ledger.ts';

const FIELD = 'CONV.OWNER.KEY_MERCHANT#owner-field';
const FOREIGN = 'CONV.OWNER.KEY_MERCHANT#no-foreign-ids';
const NAME = 'owned-by-key-merchant';

/** Every string in a JSON value (ids of a list whose payload the document does not show are found anywhere). */
function* strings(v: unknown, depth = 0): Generator<string> {
  if (depth > 8) return;
  if (typeof v === 'string') yield v;
  else if (Array.isArray(v)) for (const x of v) yield* strings(x, depth + 1);
  else if (isObject(v)) for (const x of Object.values(v)) yield* strings(x, depth + 1);
}

/** The merchant a representation must name, and why; undefined when nothing tells. */
function expectedOwner(
  r: Resource,
  field: string,
  item: Item,
  ctx: StreamContext,
  first: Map<string, string>,
): { merchant: string; why: string } | undefined {
  const s = ctx.shown!;
  const named = s.sent[field] ?? ctx.request.query.get(field);
  if ((s.role === 'create' || ('field' in r.key && r.key.field === field)) && typeof named === 'string' && named !== '')
    return { merchant: named, why: `the merchant the request named (${field})` };
  const scoped = s.page?.scope[field];
  if (scoped !== undefined) return { merchant: scoped, why: "the key's merchant (the list names no other)" };
  if ((s.role === 'create' || ('field' in r.key && r.key.field === field)) && ctx.merchant)
    return { merchant: ctx.merchant, why: "the key's merchant (the request names no other)" };
  const made = ctx.ledger.ownerOf.get(item.key);
  if (made) return { merchant: made.merchant, why: 'the merchant the run made it for, or was given it for' };
  const before = first.get(keyOf(r, item.key));
  if (before !== undefined) return { merchant: before, why: 'the owner an earlier representation named' };
  return undefined;
}

export const ownedByKeyMerchant: Check = {
  name: NAME,
  ruleIds: [FIELD, FOREIGN],
  description:
    "Every representation names the merchant that owns it, and no list answered to a key holds another merchant's resource.",
  open() {
    /** Resource key → the owner its first representation named. */
    const first = new Map<string, string>();
    return {
      observe(ex, ctx) {
        const s = ctx.shown;
        if (!s || ctx.unauthenticated) return undefined;
        const judged = new Set<string>();
        const findings: Evaluation['findings'] = [];
        const judge = (rule: string, ok: boolean, title: string, message: string) => {
          judged.add(rule);
          if (!ok) findings.push(finding(NAME, [rule], title, `${describeStatus(ex)}: ${message}`, ex));
        };
        const r = s.resource;
        const field = r.owner;
        if (field && !ctx.brokenRequest)
          for (const item of s.items) {
            const got = item.body[field];
            // In a body the document does not show (a list's payload), only an element naming its kind is the resource.
            if (typeof got !== 'string' || !(s.bodyShown || (r.object !== undefined && item.body.object === r.object)))
              continue;
            const want = expectedOwner(r, field, item, ctx, first);
            if (want)
              judge(
                FIELD,
                got === want.merchant,
                `The ${r.object ?? r.schema} names another owner`,
                `${r.object ?? r.schema} ${item.key} names ${field} ${show(got)}; ${want.why} is ${want.merchant}`,
              );
            const k = keyOf(r, item.key);
            if (!first.has(k)) first.set(k, got);
          }
        // Another merchant's resources in a list answered to this key's merchant.
        const mine = ctx.merchant;
        if (s.role === 'list' && s.page && mine) {
          const kind = r.object;
          let known = false;
          for (const [, o] of ctx.ledger.ownerOf)
            if (o.object === kind && ctx.ledger.isUnrelated(mine, o.merchant)) {
              known = true;
              break;
            }
          if (known) {
            const leaked = [...new Set(strings(ex.body))].filter((v) => {
              const o = ctx.ledger.ownerOf.get(v);
              return o !== undefined && ctx.ledger.isUnrelated(mine, o.merchant);
            });
            judge(
              FOREIGN,
              leaked.length === 0,
              "A list shows another merchant's resources",
              `answered to a key of merchant ${mine}, it holds ${leaked
                .map((id) => `${id} (merchant ${ctx.ledger.ownerOf.get(id)!.merchant})`)
                .join(', ')}`,
            );
          }
        }
        return judged.size ? { judged: [...judged], findings } : undefined;
      },
    };
  },
};
