/**
 * CONV.CREATE.READABLE: a resource a create answered is there for the requests after it. A later
 * read, update or delete of the id the create answered (x-resource create, and read, update or
 * delete by that id) getting 404, with no delete of it in between, is the target contradicting
 * its own answer: the create said it made what the read says does not exist. Only requests sent
 * after the create was answered count; one that finds it judges the part held.
 */
import { describeStatus, finding, type Check, type Evaluation } from '../types.ts';
import { FIRST, keyOf } from './ledger.ts';
import { CappedMap } from '../capped-map.ts';

const RULE = 'CONV.CREATE.READABLE';
const NAME = 'created-readable';
const MAX_CREATED = 20_000;

export const createdReadable: Check = {
  name: NAME,
  ruleIds: [RULE],
  description: 'A resource a create answered is found by the later reads, updates and deletes of its id.',
  open() {
    /** Resource key → the create that answered it: when, and the exchange (evidence). */
    const created = new CappedMap<string, { endMs: number; status: number; what: string }>(MAX_CREATED);
    return {
      observe(ex, ctx) {
        const s = ctx.shown;
        if (!s || ctx.unauthenticated || ex.status === undefined) return undefined;
        const r = s.resource;
        if (s.role === 'create' && ex.status >= 200 && ex.status < 300) {
          for (const item of s.items)
            created.set(keyOf(r, item.key), {
              endMs: ctx.endMs,
              status: ex.status,
              what: `${ex.method} ${ex.path.split('?')[0]}`,
            });
          return undefined;
        }
        if (s.pathKey === undefined || (s.role !== 'read' && s.role !== 'update' && s.role !== 'delete'))
          return undefined;
        const k = keyOf(r, s.pathKey);
        const c = created.get(k);
        if (!c || ctx.startMs < c.endMs || ex.status >= 500 || FIRST.has(ex.status)) return undefined;
        // Deleted since: a 404 is what the document asks then (deleted-gone's).
        const d = ctx.ledger.deleted.get(k);
        if (d && d.endMs >= c.endMs) return undefined;
        const findings: Evaluation['findings'] = [];
        if (ex.status === 404)
          findings.push(
            finding(
              NAME,
              [RULE],
              `A ${r.object ?? r.schema} the target created reads 404`,
              `${describeStatus(ex)}: ${r.object ?? r.schema} ${s.pathKey} was answered by ${c.what} → ${c.status} ` +
                'before this request was sent, and was not deleted since: the two answers contradict each other.',
              ex,
            ),
          );
        return { judged: [RULE], findings };
      },
      unread() {
        // A write the judges cannot read (an extension's delete) may have removed it.
        created.clear();
      },
    };
  },
};
