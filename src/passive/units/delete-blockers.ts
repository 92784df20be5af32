/**
 * Refused deletes (DELETE /v0/customers/{id}, DELETE /v0/fees/{id}): a 409 carries the
 * blockers as the document shows them, each with a type, a count and the items it names,
 * the count at least the items listed. Whether the dependants are the real ones needs
 * reads the traffic may not hold: not judged here.
 */
import type { PassiveUnit } from '../types.ts';
import { expect, obj, opId, show } from './support.ts';

const U = 'delete-blockers';

interface Family {
  blocked: string;
  count: string;
  itemField: string;
  /** The document names `conflict` for customers only. */
  errorValue?: string;
}

const FAMILIES: Record<string, Family> = {
  deleteCustomer: {
    blocked: 'CUSTOMERS.DELETE.BLOCKED#blockers-body',
    count: 'CUSTOMERS.DELETE.BLOCKER_COUNT#count-consistent',
    itemField: 'status',
    errorValue: 'conflict',
  },
  deleteFee: {
    blocked: 'FEES.DELETE.BLOCKED#blockers-body',
    count: 'FEES.DELETE.BLOCKER_COUNT#count-consistent',
    itemField: 'invoiceDisplayName',
  },
};

export const deleteBlockersUnit: PassiveUnit = {
  name: U,
  scope: 'server',
  title: 'delete-blocker bodies of refused deletes',
  ruleIds: Object.values(FAMILIES).flatMap((f) => [f.blocked, f.count]),
  observe(o, ctx) {
    const fam = FAMILIES[opId(o) ?? ''];
    if (!fam || o.record.status !== 409) return;
    const t = ctx.server(this);
    const body = obj(o.got) ?? {};
    const problems: string[] = [];
    if (typeof body.message !== 'string') problems.push('no message');
    if (fam.errorValue ? body.error !== fam.errorValue : typeof body.error !== 'string')
      problems.push(`error ${show(body.error)}${fam.errorValue ? `, not ${fam.errorValue}` : ''}`);
    const blockers = obj(body.details)?.blockers;
    if (!Array.isArray(blockers) || blockers.length === 0)
      problems.push(`details.blockers is ${show(blockers)}, not a non-empty array`);
    const list = Array.isArray(blockers) ? blockers : [];
    list.forEach((b, i) => {
      const x = obj(b);
      if (typeof x?.type !== 'string' || x.type.trim() === '') problems.push(`blockers[${i}].type is ${show(x?.type)}`);
      if (!Number.isInteger(x?.count) || x!.count < 0) problems.push(`blockers[${i}].count is ${show(x?.count)}`);
      if (!Array.isArray(x?.items)) problems.push(`blockers[${i}].items is not an array`);
      else
        x!.items.forEach((it: unknown, j: number) => {
          const y = obj(it);
          if (typeof y?.id !== 'string' || typeof y?.[fam.itemField] !== 'string')
            problems.push(`blockers[${i}].items[${j}] lacks id or ${fam.itemField}: ${show(it)}`);
        });
    });
    expect(t, U, o, fam.blocked, problems.length === 0, 'Delete refused without the documented blockers body', () =>
      problems.slice(0, 6).join('; '),
    );
    for (const [i, b] of list.entries()) {
      const x = obj(b);
      if (!x || !Array.isArray(x.items)) continue;
      expect(
        t,
        U,
        o,
        fam.count,
        Number.isInteger(x.count) && x.count >= x.items.length,
        'Blocker count below the items it lists',
        () => `blockers[${i}] (${show(x.type)}): count ${show(x.count)}, ${x.items.length} items`,
      );
    }
  },
};
