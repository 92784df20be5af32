/**
 * CONV.DERIVED.AMOUNTS: a resource whose money the document derives from another's
 * (x-resource derivedFrom: a credit note from its invoice) is in the source's unit and does not
 * exceed what it derives from. The source's amounts are what the run was told of it (a
 * fixture's invoice); where nothing tells them, nothing is judged.
 */
import { Decimal } from 'decimal.js';
import { DECIMAL } from '../../predicates.ts';
import { describeStatus, finding, is2xx, type Check, type Evaluation } from '../types.ts';
import { show } from '../answer.ts';

const UNIT = 'CONV.DERIVED.AMOUNTS#same-unit';
const AT_MOST = 'CONV.DERIVED.AMOUNTS#at-most';
const NAME = 'derived-amounts';

export const derivedAmounts: Check = {
  name: NAME,
  ruleIds: [UNIT, AT_MOST],
  description: "Money derived from another resource's (a credit note's from its invoice) is in its unit and within it.",
  open() {
    return {
      observe(ex, ctx) {
        const s = ctx.shown;
        const from = s?.resource.derivedFrom;
        if (!s || !from || s.role !== 'create' || !is2xx(ex) || !s.bodyShown || s.items.length !== 1) return undefined;
        if (ctx.unauthenticated || ctx.brokenRequest) return undefined;
        const sourceId = ctx.request.params[from.param];
        const source = sourceId === undefined ? undefined : ctx.ledger.facts.get(from.object)?.get(sourceId);
        if (!source) return undefined;
        const got = s.items[0].body;
        const judged = new Set<string>();
        const findings: Evaluation['findings'] = [];
        const judge = (rule: string, ok: boolean, title: string, message: string) => {
          judged.add(rule);
          if (!ok) findings.push(finding(NAME, [rule], title, `${describeStatus(ex)}: ${message}`, ex));
        };
        const what = `${s.resource.object ?? s.resource.schema} of ${from.object} ${sourceId}`;
        for (const f of from.sameUnit)
          if (typeof got[f] === 'string' && typeof source[f] === 'string')
            judge(
              UNIT,
              got[f].toUpperCase() === source[f].toUpperCase(),
              `The ${what} is in another unit`,
              `${f} ${show(got[f])}, the ${from.object}'s is ${show(source[f])}`,
            );
        for (const [mine, theirs] of Object.entries(from.atMost)) {
          const a = got[mine];
          const b = source[theirs];
          if (typeof a !== 'string' || typeof b !== 'string' || !DECIMAL.test(a) || !DECIMAL.test(b)) continue;
          judge(
            AT_MOST,
            new Decimal(a).lte(b),
            `The ${what} exceeds it`,
            `${mine} ${a} is more than the ${from.object}'s ${theirs} ${b}`,
          );
        }
        return judged.size ? { judged: [...judged], findings } : undefined;
      },
    };
  },
};
