import { defineCheck, judgeableResponse } from './types.ts';
import { expectedObjectName } from './object-name.ts';
import { answerTo, Judgement, show } from './answer.ts';

/** The read-by-id parts: the GET each rule names in spec/rules.yaml answers the resource of its path. */
const READ_BY_ID = [
  'CUSTOMERS.GET.BY_ID#answers-resource',
  'PRICES.GET.BY_ID#answers-resource',
  'PAYMENTS.GET.BY_ID#answers-resource',
  'MERCHANTS.GET.ROUND_TRIP#answers-resource',
];

/** A read by id answers that id, and the object its schema names. */
export const readById = defineCheck({
  name: 'read-by-id',
  ruleIds: READ_BY_ID,
  description: 'GET of a customer, price, payment or merchant by id answers that id, with the object its schema names.',
  evaluate(ex, ctx, op) {
    // A rule may name the create too (MERCHANTS.GET.ROUND_TRIP): only its read is a read by id.
    const key =
      op?.method === 'GET'
        ? READ_BY_ID.find((k) => ctx.rules.byId(k.split('#')[0])?.operations.includes(op.operationId))
        : undefined;
    const a = key && op ? answerTo(ex, ctx, op, op.operationId) : undefined;
    if (!key || !a || !op) return;
    const object = expectedObjectName(judgeableResponse(ctx, op, a.ex.status)?.schema);
    const id = a.params.id;
    const j = new Judgement('read-by-id', ex);
    j.expect(
      key,
      a.got.id === id && (object === undefined || a.got.object === object),
      `The ${object ?? 'resource'} read is not the one asked for`,
      () => `asked for ${id}, got id ${show(a.got.id)}, object ${show(a.got.object)}`,
    );
    return j.done();
  },
});
