/**
 * Refused deletes (DELETE /v0/customers/{id}, DELETE /v0/fees/{id}): a 409 carries the blockers
 * as the document shows them, each with a type, a count and the items it names, the count at
 * least the items listed. The error value and the fields of an item are the rule's params in
 * spec/rules.yaml. Whether the blockers name the real dependants needs what a scenario set up:
 * the delete-blockers suite judges that.
 */
import type { Finding } from '../types.ts';
import { perRules } from '../predicates.ts';
import { defineCheck, describeStatus, finding, isObject } from './types.ts';

/** Each refused delete's body rule (its operations and params: error, itemFields) and its count rule. */
const RULES: readonly { blocked: string; count: string }[] = [
  { blocked: 'CUSTOMERS.DELETE.BLOCKED', count: 'CUSTOMERS.DELETE.BLOCKER_COUNT' },
  { blocked: 'FEES.DELETE.BLOCKED', count: 'FEES.DELETE.BLOCKER_COUNT' },
];

const BODY = 'blockers-body';
const COVERS = 'covers-items';

interface Family {
  body: string;
  covers: string;
  /** The `error` value the document names (customers: conflict); else any string. */
  error?: string;
  itemFields: readonly string[];
}

/** The family of each delete operation, by the operations spec/rules.yaml gives its body rule. */
const families = perRules((rules) =>
  Object.fromEntries(
    RULES.flatMap(({ blocked, count }) => {
      const rule = rules.byId(blocked);
      const params = rule?.params ?? {};
      const itemFields = params.itemFields;
      if (!Array.isArray(itemFields)) throw new Error(`spec/rules.yaml: rule ${blocked} lists no itemFields`);
      const family: Family = {
        body: `${blocked}#${BODY}`,
        covers: `${count}#${COVERS}`,
        ...(typeof params.error === 'string' ? { error: params.error } : {}),
        itemFields: itemFields as string[],
      };
      return (rule?.operations ?? []).map((op) => [op, family] as const);
    }),
  ),
);

const show = (v: unknown) => (v === undefined ? 'absent' : JSON.stringify(v)?.slice(0, 80));

export const deleteBlockers = defineCheck({
  name: 'delete-blockers',
  ruleIds: RULES.flatMap((r) => [`${r.blocked}#${BODY}`, `${r.count}#${COVERS}`]),
  description:
    'A refused delete (409) carries details.blockers of {type, count, items}, each count at least its items.',
  evaluate(ex, ctx, op) {
    const fam = op && ex.status === 409 ? families(ctx.rules)[op.operationId] : undefined;
    if (!fam || ctx.unauthenticated) return;
    const body = isObject(ex.body) ? ex.body : {};
    const problems: string[] = [];
    if (typeof body.message !== 'string') problems.push('no message');
    if (fam.error ? body.error !== fam.error : typeof body.error !== 'string')
      problems.push(`error ${show(body.error)}${fam.error ? `, not ${fam.error}` : ''}`);
    const details = isObject(body.details) ? body.details : {};
    const blockers = details.blockers;
    if (!Array.isArray(blockers) || blockers.length === 0)
      problems.push(`details.blockers is ${show(blockers)}, not a non-empty array`);
    const list = Array.isArray(blockers) ? blockers : [];
    const findings: Finding[] = [];
    const judged = [fam.body];
    list.forEach((b: unknown, i) => {
      const x = isObject(b) ? b : {};
      if (typeof x.type !== 'string' || x.type.trim() === '') problems.push(`blockers[${i}].type is ${show(x.type)}`);
      if (!Number.isInteger(x.count) || (x.count as number) < 0)
        problems.push(`blockers[${i}].count is ${show(x.count)}`);
      if (!Array.isArray(x.items)) {
        problems.push(`blockers[${i}].items is not an array`);
        return;
      }
      x.items.forEach((it: unknown, j) => {
        if (!isObject(it) || !fam.itemFields.every((f) => typeof it[f] === 'string'))
          problems.push(`blockers[${i}].items[${j}] lacks one of ${fam.itemFields.join(', ')}: ${show(it)}`);
      });
      judged.push(fam.covers);
      if (!Number.isInteger(x.count) || (x.count as number) < x.items.length)
        findings.push(
          finding(
            'delete-blockers',
            [fam.covers],
            'Blocker count below the items it lists',
            `${describeStatus(ex)}: blockers[${i}] (${show(x.type)}): count ${show(x.count)}, ${x.items.length} items`,
            ex,
          ),
        );
    });
    if (problems.length)
      findings.unshift(
        finding(
          'delete-blockers',
          [fam.body],
          'Delete refused without the documented blockers body',
          `${describeStatus(ex)}: ${problems.slice(0, 6).join('; ')}`,
          ex,
        ),
      );
    return { judged: [...new Set(judged)], findings };
  },
});
