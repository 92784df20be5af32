/**
 * Alerts and source rules in the state model: a fresh wallet with two alerts and a fresh
 * source rule per sequence, updated with generated bodies, and the wallet's alerts paged
 * through GET /v0/alerts with page sizes from 1 to 3. What needs the model's knowledge
 * (Endpoints > Alerts, Source rules): an update of an existing alert or rule with a valid body
 * is accepted and answers it, timestamps keep their course. What one answer or two in a row
 * show (the fields sent held, those not sent kept, the list's total reached) is the check
 * registry's: its finding ends the sequence.
 */
import fc from 'fast-check';
import type { ScenarioContext } from '../scenario/types.ts';
import { is2xx } from '../checks/types.ts';
import { loadSpec } from '../../contract/index.ts';
import { onlyValue } from '../predicates.ts';
import { fromSpec, positiveRequests } from '../generators/index.ts';
import { ALERT, SOURCE_RULE } from './parts.ts';
import type { ModelJudge } from './judge.ts';
import { walkStill } from './lists.ts';
import { bodyOf, observe, show, track, type Json, type ModelHttp, type Tracked } from './state.ts';
import type { StateModel } from './run.ts';

const spec = await loadSpec();

export interface AlertsModel {
  merchantId: string;
  walletId: string;
  alerts: Tracked[];
  rule: Tracked;
}

export interface AlertsReal {
  http: ModelHttp;
  judge: ModelJudge;
}

type Cmd = fc.AsyncCommand<AlertsModel, AlertsReal>;

/**
 * What the alerts-and-source-rules model sets out to judge (its scenario cites these). It also
 * judges, as sequences reach them, valid requests not refused.
 */
export const ALERTS_MODEL_PARTS = [ALERT.updates, SOURCE_RULE.accepted] as const;
const brief = (v: unknown) => {
  const s = JSON.stringify(v) ?? 'undefined';
  return s.length > 120 ? `${s.slice(0, 117)}...` : s;
};

function notRefused(r: AlertsReal, ex: Awaited<ReturnType<ModelHttp['send']>>, what: string): void {
  r.judge.notRefused(ex, what);
}

class PatchAlert implements Cmd {
  constructor(
    readonly which: number,
    readonly body: Json,
  ) {
    // Generated objects may lack a prototype: as JSON, they compare with what the target answers.
    this.body = JSON.parse(JSON.stringify(body)) as Json;
  }
  check = () => true;
  toString = () => `PATCH alert ${this.which} ${brief(this.body)}`;

  async run(m: AlertsModel, r: AlertsReal): Promise<void> {
    const a = m.alerts[this.which % m.alerts.length];
    const ex = await r.http.send('PATCH', `${spec.pathFor('updateAlert', { id: a.id })}?resource=wallet`, this.body);
    const what = `PATCH ${brief(this.body)} of alert ${a.id}`;
    notRefused(r, ex, what);
    const b = bodyOf(ex);
    // The answer's object and the fields sent are the registry's (alert-updated), what is kept its partial-updates'.
    r.judge.judge(
      ALERT.updates,
      ex.status === 200 && b.id === a.id,
      `${what} answered ${ex.status} with id ${show(b.id)}`,
      ex,
    );
    observe(r.judge, m.merchantId, a, b, ex, `PATCH /v0/alerts/${a.id}`);
    a.seen = b;
  }
}

class ListAlerts implements Cmd {
  constructor(readonly pageSize: number) {}
  check = () => true;
  toString = () => `walk GET /v0/alerts ${this.pageSize} at a time`;

  async run(m: AlertsModel, r: AlertsReal): Promise<void> {
    const label = `GET /v0/alerts?resourceId=${m.walletId}`;
    const { walk } = await walkStill(r.http, {
      label,
      path: `${spec.pathFor('listAlerts')}?resourceId=${encodeURIComponent(m.walletId)}`,
      pageSize: this.pageSize,
      maxPages: 20,
    });
    for (const a of m.alerts) {
      const el = walk?.elements.find((e) => e.id === a.id);
      if (el) observe(r.judge, m.merchantId, a, el, walk?.pages[0], label);
    }
  }
}

class PatchSourceRule implements Cmd {
  constructor(readonly body: Json) {
    // Generated objects may lack a prototype: as JSON, they compare with what the target answers.
    this.body = JSON.parse(JSON.stringify(body)) as Json;
  }
  check = () => true;
  toString = () => `PATCH source rule ${brief(this.body)}`;

  async run(m: AlertsModel, r: AlertsReal): Promise<void> {
    const rule = m.rule;
    const ex = await r.http.send('PATCH', spec.pathFor('updateSourceRule', { ruleId: rule.id }), this.body);
    const what = `PATCH ${brief(this.body)} of source rule ${rule.id}`;
    notRefused(r, ex, what);
    const b = bodyOf(ex);
    // The fields sent held are the registry's (source-rule-updated), those not sent kept its partial-updates'.
    r.judge.judge(
      SOURCE_RULE.accepted,
      is2xx(ex) && b.id === rule.id,
      `${what} answered ${ex.status} with id ${show(b.id)}`,
      ex,
    );
    observe(r.judge, m.merchantId, rule, b, ex, `PATCH /v0/sourceRules/${rule.id}`);
    rule.seen = b;
  }
}

/** The alerts-and-source-rules model of a scenario. */
export async function alertsModel(
  t: ScenarioContext,
  merchantId: string,
): Promise<StateModel<AlertsModel, AlertsReal>> {
  // organizationId names a merchant the key may act for: left out, the key's own applies.
  const alertBody = positiveRequests(
    fromSpec(spec, 'updateAlert'),
    { id: 'placeholder' },
    {
      query: { pin: { '/resource': onlyValue(spec, 'updateAlert:query.resource') } },
      body: { omit: ['/organizationId'] },
    },
  ).map((p) => (p.body ?? {}) as Json);
  // Condition types and operators are not shown: updates leave conditions as they are.
  const ruleBody = positiveRequests(
    fromSpec(spec, 'updateSourceRule'),
    { ruleId: 'placeholder' },
    { body: { omit: ['/conditions'] } },
  ).map((p) => (p.body ?? {}) as Json);
  return {
    label: 'alerts and source rules model',
    parts: ALERTS_MODEL_PARTS,
    commands: [
      fc.tuple(fc.nat({ max: 1 }), alertBody).map(([i, b]) => new PatchAlert(i, b)),
      fc.integer({ min: 1, max: 3 }).map((n) => new ListAlerts(n)),
      ruleBody.map((b) => new PatchSourceRule(b)),
    ],
    async setup(http, judge) {
      const { walletId, alertIds } = await t.fixture((f) => f.walletWithAlerts(2));
      const { ruleId } = await t.fixture((f) => f.sourceRule());
      return {
        model: {
          merchantId,
          walletId,
          alerts: alertIds.slice(0, 2).map((id) => track('alert', id)),
          rule: track('sourceRule', ruleId),
        },
        real: { http, judge },
      };
    },
  };
}
