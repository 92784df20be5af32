import { numberOf, objectNameOf } from '../predicates.ts';
import { defineCheck, isObject } from './types.ts';
import { answerTo, Judgement, show, type Json } from './answer.ts';

const ENVELOPE = 'SCHEDULES.INTERVALS.PAGINATED#list-envelope';
const INTERVALS = 'SCHEDULES.INTERVALS.PAGINATED#interval-objects';

export const scheduleIntervals = defineCheck({
  name: 'schedule-intervals',
  ruleIds: [ENVELOPE, INTERVALS],
  description:
    "GET /v0/billingSchedules/{id}/intervals answers a list envelope of that schedule's schedule_interval objects.",
  evaluate(ex, ctx, op) {
    const a = answerTo(ex, ctx, op, 'listScheduleIntervals');
    if (!a) return;
    const { got } = a;
    const id = a.params.id;
    const j = new Judgement('schedule-intervals', ex);
    const p: Json = isObject(got.pagination) ? got.pagination : {};
    const counts = ['limit', 'offset', 'total'].every((k) => Number.isInteger(p[k]));
    j.expect(
      ENVELOPE,
      got.object === objectNameOf(ctx.spec, 'ListEnvelope') &&
        Array.isArray(got.data) &&
        counts &&
        got.data.length <= p.limit,
      'The intervals are not a list envelope of at most limit intervals',
      () => `schedule ${id}: object ${show(got.object)}, data ${show(got.data)}, pagination ${show(got.pagination)}`,
    );
    // An empty page shows nothing about its elements.
    const items: unknown[] = Array.isArray(got.data) ? got.data : [];
    if (items.length) {
      const interval = objectNameOf(ctx.spec, 'ScheduleInterval');
      const bad = items.filter((i) => !isObject(i) || i.object !== interval || i.scheduleId !== id);
      j.expect(
        INTERVALS,
        bad.length === 0,
        'Not the intervals of the schedule asked for',
        () => `schedule ${id}: ${bad.length} item(s) of another schedule or type`,
      );
    }
    return j.done();
  },
});

const WHOLE = /^\d+$/;

/** An alerts page against the limit and offset asked for, with the default and bounds spec/rules.yaml states. */
export const alertsPage = defineCheck({
  name: 'alerts-page',
  ruleIds: ['ALERTS.LIST.LIMIT_DEFAULT', 'ALERTS.LIST.LIMIT_RANGE#page-within-limit', 'ALERTS.LIST.OFFSET#from-offset'],
  description:
    'GET /v0/alerts pages at most the limit asked for (10 without one) and from the offset asked for (0 without one).',
  evaluate(ex, ctx, op) {
    const a = answerTo(ex, ctx, op, 'listAlerts');
    if (!a || !Array.isArray(a.got.data)) return;
    const p = isObject(a.got.pagination) ? a.got.pagination : {};
    const count = a.got.data.length;
    const limit = a.query.get('limit');
    const j = new Judgement('alerts-page', ex);
    if (limit === null) {
      const byDefault = numberOf(ctx.rules, 'ALERTS.LIST.LIMIT_DEFAULT', 'default');
      j.expect(
        'ALERTS.LIST.LIMIT_DEFAULT',
        (p.limit === undefined || p.limit === byDefault) && count <= byDefault,
        `The default alerts page is not ${byDefault}`,
        () => `pagination.limit ${show(p.limit)}, ${count} alerts`,
      );
    } else if (
      WHOLE.test(limit) &&
      Number(limit) >= numberOf(ctx.rules, 'ALERTS.LIST.LIMIT_RANGE', 'minimum') &&
      Number(limit) <= numberOf(ctx.rules, 'ALERTS.LIST.LIMIT_RANGE', 'maximum')
    )
      j.expect(
        'ALERTS.LIST.LIMIT_RANGE#page-within-limit',
        count <= Number(limit) && (p.limit === undefined || p.limit === Number(limit)),
        'The alerts page is not of the limit asked for',
        () => `limit=${limit}: ${count} alerts, pagination.limit ${show(p.limit)}`,
      );
    const offset = a.query.get('offset');
    const from = offset === null ? numberOf(ctx.rules, 'ALERTS.LIST.OFFSET', 'default') : Number(offset);
    // The page's offset shows only where pagination carries one.
    if (p.offset !== undefined && (offset === null || WHOLE.test(offset)))
      j.expect(
        'ALERTS.LIST.OFFSET#from-offset',
        p.offset === from,
        'The alerts page does not start at the offset asked for',
        () => `offset=${offset ?? `(none: ${from})`}: pagination.offset ${show(p.offset)}`,
      );
    return j.done();
  },
});
