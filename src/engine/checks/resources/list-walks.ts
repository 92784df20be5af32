/**
 * Walks of every list (CONV.LIST.TOTAL_REACHED, CONV.LIST.WALK): a page states the offset
 * asked (where the operation documents its offset), a complete walk from offset 0 reaches
 * exactly the total it states, meets no element twice, and holds every element the run made or
 * was given that belongs in it. A list scoped to a resource the run holds stays still while the
 * run walks it, so a defect fails at once; on an unscoped list (other traffic may write) a
 * defect fails only when a second walk of the same list shows the same one.
 */
import { describeStatus, finding, type Check, type Evaluation, type StreamContext } from '../types.ts';
import { keyOf, type Walk } from './ledger.ts';

const TOTAL = 'CONV.LIST.TOTAL_REACHED';
const OFFSET = 'CONV.LIST.WALK#offset-honoured';
const REPEATS = 'CONV.LIST.WALK#no-repeats';
const KNOWN = 'CONV.LIST.WALK#finds-known';
const NAME = 'list-walks';

/** The ids the run made or was given that belong in the walk's list, as last seen before the walk began. */
function belonging(walk: Walk, ctx: StreamContext): string[] {
  const out: string[] = [];
  const merchant = ctx.merchant;
  if (!merchant) return out;
  for (const [id, owner] of ctx.ledger.ownerOf) {
    const k = keyOf(walk.resource, id);
    const last = ctx.ledger.last.get(k);
    // Only what the walking key's merchant owns belongs in its list (another merchant's must not show).
    if (!last || last.endMs > walk.startMs || owner.object !== walk.resource.object || owner.merchant !== merchant)
      continue;
    if (ctx.ledger.deleted.has(k)) continue;
    const fits = Object.entries(walk.scope).every(([field, value]) => last.body[field] === value);
    if (fits) out.push(id);
  }
  return out;
}

export const listWalks: Check = {
  name: NAME,
  ruleIds: [TOTAL, OFFSET, REPEATS, KNOWN],
  description:
    'Every walk of a list: pages start at the offset asked, reach the stated total, meet no element twice, hold what the run made.',
  open() {
    /** Defects seen once on an unscoped list (label → what): a second walk showing the same fails. */
    const pending = new Map<string, Set<string>>();
    return {
      observe(ex, ctx) {
        const s = ctx.shown;
        if (!s?.page || ctx.unauthenticated) return undefined;
        const judged = new Set<string>();
        const findings: Evaluation['findings'] = [];
        const judge = (rule: string, ok: boolean, title: string, message: string) => {
          judged.add(rule);
          if (!ok) findings.push(finding(NAME, [rule], title, `${describeStatus(ex)}: ${message}`, ex));
        };
        const page = s.page;
        if (page.offsetDocumented && page.statedOffset !== undefined && !ctx.brokenRequest)
          judge(
            OFFSET,
            page.statedOffset === page.askedOffset,
            'A page does not start at the offset asked',
            `asked for offset ${page.askedOffset}, its pagination states offset ${page.statedOffset}`,
          );
        const walk = ctx.walk;
        if (!walk?.complete) return judged.size ? { judged: [...judged], findings } : undefined;
        const still = walk.totals.every((t) => t === walk.totals[0]);
        /** A defect: at once on a scoped list, on the second walk showing it on an unscoped one. */
        const defect = (rule: string, what: string, title: string, message: string) => {
          if (walk.scoped) return judge(rule, false, title, message);
          const seen = pending.get(walk.label) ?? new Set<string>();
          if (seen.has(what)) return judge(rule, false, title, `${message} (the same on two walks)`);
          seen.add(what);
          pending.set(walk.label, seen);
        };
        const pages = `${walk.label}, walked from offset 0 in ${walk.pages.length} page(s)`;
        if (still) {
          if (walk.repeats.length)
            defect(
              REPEATS,
              `repeats ${walk.repeats.join(',')}`,
              'A walk of a list meets an element twice',
              `${pages}, meets ${walk.repeats.slice(0, 5).join(', ')} more than once`,
            );
          else judge(REPEATS, true, '', '');
          const total = walk.totals[0];
          const reached = new Set(walk.ids).size;
          const everyId = walk.ids.length === walk.pages.reduce((n, p) => n + dataLength(p.body), 0);
          if (total !== undefined && everyId) {
            if (reached === total) judge(TOTAL, true, '', '');
            else
              defect(
                TOTAL,
                `total ${total} reached ${reached}`,
                'A list does not reach the total it states',
                `${pages}, states pagination.total ${total} but reaches ${reached} distinct elements`,
              );
          }
        }
        if (!walk.scopeUnknown) {
          const expected = belonging(walk, ctx);
          const missing = expected.filter((id) => !walk.ids.includes(id));
          if (expected.length && !missing.length) judge(KNOWN, true, '', '');
          else if (missing.length)
            defect(
              KNOWN,
              `missing ${missing.join(',')}`,
              'A list leaves out a resource the run holds',
              `${pages}, holds none of ${missing.slice(0, 5).join(', ')}, which the run made or was given ` +
                `with ${
                  Object.entries(walk.scope)
                    .map(([f, v]) => `${f} ${v}`)
                    .join(', ') || 'nothing to filter on'
                }`,
            );
        }
        return judged.size ? { judged: [...judged], findings } : undefined;
      },
    };
  },
};

function dataLength(body: unknown): number {
  const data = (body as { data?: unknown } | undefined)?.data;
  return Array.isArray(data) ? data.length : 0;
}
