/**
 * Billing schedules (POST /v0/billingSchedules, GET .../{id}/intervals, DELETE .../{id}):
 * the SCHEDULES family. Every scenario builds its own order or schedule. The success
 * status codes are not shown: any 2xx is accepted.
 */
import { scenario, type ScenarioContext } from '../src/engine/scenario/index.ts';
import type { Exchange } from '../src/engine/types.ts';
import { loadSpec } from '../src/contract/index.ts';
import { obj, is2xx, type Json } from './support.ts';

const spec = await loadSpec();
const CREATE = spec.pathFor('createBillingSchedule');

const is4xx = (ex: Exchange) => ex.status !== undefined && ex.status >= 400 && ex.status < 500;
const DAY_MS = 86_400_000;

/** Best effort: a schedule this scenario created is removed where deletes are allowed. */
async function discard(t: ScenarioContext, id: unknown): Promise<void> {
  if (typeof id === 'string' && t.target.destructive)
    await t.http.delete(spec.pathFor('deleteBillingSchedule', { id }));
}

// The object, owner and endDate (the one sent) of every schedule answered are the schedule checks'
// (src/engine/checks/creates.ts).

scenario(
  ['SCHEDULES.CREATE.BY_ORDER', 'SCHEDULES.OWNER.EXACTLY_ONE', 'SCHEDULES.END_DATE.PRESENT'],
  'a schedule created for an order belongs to that order alone and has its endDate',
  async (t) => {
    const { orderId } = await t.fixture((f) => f.order());
    const start = new Date(Math.floor(Date.now() / DAY_MS) * DAY_MS);
    const end = new Date(start.getTime() + 90 * DAY_MS);
    const res = await t.http.post(CREATE, {
      orderId,
      startDate: start.toISOString(),
      endDate: end.toISOString(),
      metadata: { conform: 'schedule' },
    });
    try {
      t.expectRule(
        'SCHEDULES.CREATE.BY_ORDER#accepted',
        is2xx(res),
        `creating a schedule with orderId succeeds (2xx), got ${res.status ?? res.transportError}`,
        res,
      );
    } finally {
      await discard(t, obj(res.body)?.id);
    }
  },
  { concurrent: true },
);

scenario(
  ['SCHEDULES.END_DATE.PRESENT', 'SCHEDULES.OWNER.EXACTLY_ONE'],
  'a schedule created without an endDate still carries one',
  async (t) => {
    const { orderId } = await t.fixture((f) => f.order());
    const res = await t.http.post(CREATE, { orderId });
    if (!is2xx(res)) {
      // Which body fields are required is not shown: refusing this is the target's choice.
      t.notJudged(
        `POST /v0/billingSchedules with orderId only answered ${res.status ?? res.transportError}: the ` +
          `required fields are not shown, so endDate defaulting is not judged`,
      );
    }
    // endDate always present, even when not sent, is the schedule-created check's on this answer.
    await discard(t, obj(res.body)?.id);
  },
  { concurrent: true },
);

scenario(
  ['SCHEDULES.CREATE.SUBSCRIPTION_UNSUPPORTED', 'SCHEDULES.OWNER.EXACTLY_ONE'],
  'creating a schedule by subscriptionId is refused',
  async (t) => {
    const [{ subscriptionId }, { orderId }] = await Promise.all([
      t.fixture((f) => f.subscription()),
      t.fixture((f) => f.order()),
    ]);
    const start = new Date(Math.floor(Date.now() / DAY_MS) * DAY_MS);
    const dates = { startDate: start.toISOString(), endDate: new Date(start.getTime() + 30 * DAY_MS).toISOString() };
    const cases: Array<[string, Json, string]> = [
      ['subscriptionId alone', { subscriptionId, ...dates }, 'SCHEDULES.CREATE.SUBSCRIPTION_UNSUPPORTED'],
      // Two owners at once would break "exactly one owner".
      ['orderId and subscriptionId together', { orderId, subscriptionId, ...dates }, 'SCHEDULES.OWNER.EXACTLY_ONE'],
    ];
    for (const [what, body, rule] of cases) {
      const res = await t.http.post(CREATE, body);
      if (is2xx(res)) {
        // A schedule created: the schedule checks judged its answer (by subscriptionId alone, or two owners).
        await discard(t, obj(res.body)?.id);
        continue;
      }
      // Which status each error body has is not shown: any 4xx in Error shape (judged by the error-shape check).
      // A 4xx to subscriptionId alone is the schedule-by-subscription check's.
      if (rule === 'SCHEDULES.CREATE.SUBSCRIPTION_UNSUPPORTED' && is4xx(res)) continue;
      t.softExpectRule(rule, is4xx(res), `${what}: refused with a 4xx, got ${res.status ?? res.transportError}`, res);
      t.softExpectRule(rule, typeof obj(res.body)?.message === 'string', `${what}: the refusal is an Error body`, res);
    }
  },
  { concurrent: true },
);

scenario(
  ['SCHEDULES.INTERVALS.PAGINATED'],
  "a schedule's intervals come as a paginated list",
  async (t) => {
    const { scheduleId, intervalCount } = await t.fixture((f) => f.scheduleWithIntervals(3));
    const path = spec.pathFor('listScheduleIntervals', { id: scheduleId });
    const whole = await t.http.get(path);
    t.expectRule(
      'SCHEDULES.INTERVALS.PAGINATED#pages-through',
      is2xx(whole),
      `the intervals list answers 2xx, got ${whole.status ?? whole.transportError}`,
      whole,
    );
    const pageOf = (ex: Exchange): { data: Json[]; pagination: Json } => {
      const body = obj(ex.body) ?? {};
      const data: Json[] = Array.isArray(body.data) ? body.data.map((d: unknown) => obj(d) ?? {}) : [];
      const pagination = obj(body.pagination) ?? {};
      // The envelope, at most limit intervals, each of this schedule, are the schedule-intervals check's on every page.
      return { data, pagination };
    };
    const first = pageOf(whole);
    t.softExpectRule(
      'SCHEDULES.INTERVALS.PAGINATED#pages-through',
      first.pagination.total === intervalCount,
      `total counts the schedule's ${intervalCount} intervals (got ${first.pagination.total})`,
      whole,
    );
    // A first page of a schedule with intervals holds some (as many as its limit allows).
    const firstPage = Number.isInteger(first.pagination.limit)
      ? Math.min(first.pagination.limit, intervalCount)
      : intervalCount;
    t.softExpectRule(
      'SCHEDULES.INTERVALS.PAGINATED#pages-through',
      first.data.length === firstPage,
      `the first page holds ${firstPage} of the schedule's ${intervalCount} intervals (got ${first.data.length})`,
      whole,
    );

    // The paging query parameters are not shown: limit/offset are walked where the target honours them.
    const seen: string[] = [];
    const pageSize = 2;
    for (let offset = 0; offset < intervalCount; offset += pageSize) {
      const res = await t.http.get(path, { query: { limit: pageSize, offset } });
      if (!is2xx(res))
        t.notJudged(
          `GET ${path}?limit=${pageSize}&offset=${offset} answered ${res.status ?? res.transportError}: ` +
            `paging parameters are not shown, paging not walked`,
        );
      const page = pageOf(res);
      if (page.pagination.limit !== pageSize || page.pagination.offset !== offset) {
        t.notJudged(
          `the target does not take limit/offset as paging parameters (answered ` +
            `limit ${page.pagination.limit}, offset ${page.pagination.offset}); paging not walked`,
        );
      }
      t.softExpectRule(
        'SCHEDULES.INTERVALS.PAGINATED#pages-through',
        page.data.length === Math.min(pageSize, intervalCount - offset),
        `page at offset ${offset} holds ${Math.min(pageSize, intervalCount - offset)} intervals, got ${page.data.length}`,
        res,
      );
      t.softExpectRule(
        'SCHEDULES.INTERVALS.PAGINATED#pages-through',
        page.pagination.total === intervalCount,
        `total stays ${intervalCount} on every page (got ${page.pagination.total})`,
        res,
      );
      seen.push(...page.data.map((d) => String(d.id)));
    }
    t.softExpectRule(
      'SCHEDULES.INTERVALS.PAGINATED#pages-through',
      new Set(seen).size === intervalCount && seen.length === intervalCount,
      `walking the pages visits each of the ${intervalCount} intervals once (saw ${seen.length}, ${new Set(seen).size} distinct)`,
    );
  },
  { concurrent: true },
);

scenario(
  ['SCHEDULES.DELETE.DELETED'],
  'a schedule deletes; deleting an unknown one is an Error',
  async (t) => {
    const { scheduleId } = await t.fixture((f) => f.scheduleWithIntervals(1));
    const res = await t.http.delete(spec.pathFor('deleteBillingSchedule', { id: scheduleId }));
    t.softExpectRule(
      'SCHEDULES.DELETE.DELETED#deletes',
      is2xx(res),
      `deleting the schedule succeeds (2xx), got ${res.status ?? res.transportError}`,
      res,
    );
    // What a later read answers is not shown; an id that never existed is an error (Error shape judged by the checks).
    const unknown = await t.http.delete(spec.pathFor('deleteBillingSchedule', { id: `${scheduleId}x0conform` }));
    t.softExpectRule(
      'SCHEDULES.DELETE.DELETED#errors-error-shape',
      is4xx(unknown),
      `deleting a schedule that never existed is refused with a 4xx, got ${unknown.status ?? unknown.transportError}`,
      unknown,
    );
    t.softExpectRule(
      'SCHEDULES.DELETE.DELETED#errors-error-shape',
      typeof obj(unknown.body)?.message === 'string',
      'the refusal is an Error body',
      unknown,
    );
  },
  { concurrent: true, destructive: true },
);
