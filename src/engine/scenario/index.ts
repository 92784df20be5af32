/**
 * The scenario API the suites in suites/ are written with.
 *
 *   scenario(['CUSTOMERS.GET.BY_ID#answers-resource'], 'a customer reads back by id', async (t) => {
 *     const { customerId } = await t.fixture((f) => f.customer());
 *     const res = await t.http.get(spec.pathFor('getCustomer', { id: customerId })); // spec: await loadSpec()
 *     t.expectStatus('CUSTOMERS.GET.BY_ID#answers-resource', res, 200);
 *     t.expectRule('CUSTOMERS.GET.BY_ID#answers-resource', (res.body as any)?.id === customerId, 'the one asked for', res);
 *   });
 *
 * Every exchange runs the check registry; any finding fails the scenario and cites its
 * rules. A rule is judged only by a condition that could have failed (a check on an
 * exchange, expectRule, softExpectRule, expectStatus): citing it judges nothing, and a rule of
 * several parts (spec/rules.yaml) is judged one part at a time, `RULE.ID#part`. What must hold
 * before anything can be judged is a `t.precondition`, which judges nothing. A scenario that
 * cannot judge what it cites ends with `t.notJudged(reason, category)`; a missing fixture or
 * credential does the same with category `fixture` / `credential`. An error that is not a
 * finding is the tool's own failure (an engine error), never the target's.
 * What was judged and found is recorded on the vitest task meta for the reporters.
 * `t` is a Scenario (scenario/context.ts); this file runs each scenario as a vitest test,
 * within its time limits and its fixture scope, and reports how it ended.
 */
import { test, type TestContext } from 'vitest';
import { loadRules, loadSpec } from '../../contract/index.ts';
import type { NotJudgedCategory } from '../types.ts';
import { HttpClient, SETUP_REQUEST_HEADER } from '../http/client.ts';
import { redact } from '../http/redact.ts';
import { DEFAULT_SCENARIO_TIMEOUT_MS, latencySummary, withDeadline } from '../target/time-limits.ts';
import { isFixtureUnavailable } from '../fixtures/types.ts';
import { inFixtureScope } from '../fixtures/scope.ts';
import { awaitTarget } from './worker.ts';
import { attachRecord } from './vitest-bridge.ts';
import { Scenario, type Contract } from './context.ts';
import {
  ConformanceFailure,
  EngineError,
  NotJudged,
  type ScenarioContext,
  type ScenarioOptions,
  type ScenarioRecord,
} from './types.ts';

export { describe, beforeAll, afterAll } from 'vitest';
export * from './types.ts';
export { FixtureUnavailable } from '../fixtures/types.ts';
export type { NotJudgedCategory } from '../types.ts';

let contractPromise: Promise<Contract> | undefined;
/** spec/openapi.yaml and spec/rules.yaml, as the checks read them. */
function contract(): Promise<Contract> {
  contractPromise ??= Promise.all([loadSpec(), loadRules()]).then(([spec, rules]) => ({ spec, rules }));
  return contractPromise;
}

function emptyRecord(ruleIds: string[]): ScenarioRecord {
  return {
    ruleIds: [...ruleIds],
    judged: {},
    failed: {},
    findings: [],
    findingCount: 0,
    notes: [],
    exchanges: 0,
    notJudged: [],
    engineErrors: [],
  };
}

/** How a scenario that did not run to its end is reported (ctx.skip: vitest's own marker). */
function endWithout(ctx: TestContext, record: ScenarioRecord, reason: string, category: NotJudgedCategory): void {
  record.notJudged.push({ reason: redact(reason), category, ruleIds: [...record.ruleIds], endedScenario: true });
  ctx.skip(redact(reason));
}

/** Defines a scenario: a vitest test citing the rule ids it judges. */
export function scenario(
  ruleIds: string[],
  title: string,
  fn: (t: ScenarioContext) => Promise<void>,
  opts: ScenarioOptions = {},
): void {
  const define = opts.concurrent ? test.concurrent : test;
  define(
    title,
    async (ctx) => {
      const record = emptyRecord(ruleIds);
      attachRecord(ctx.task, record);
      // Known once the run has booted or probed the target (the workers may start before).
      const target = await awaitTarget();
      if (opts.destructive && !target.destructive) {
        return endWithout(
          ctx,
          record,
          'destructive scenario (deletes, refunds) not allowed on this target: mark it `sandbox: true` ' +
            'or set `destructive: true` in conform.config.yaml',
          'destructive',
        );
      }
      if (opts.profile === 'full' && target.profile !== 'full')
        return endWithout(ctx, record, 'runs in the full profile only (--profile full)', 'profile');
      const checked = await contract();
      const resolveOperation = (method: string, path: string) => checked.spec.findOperation(method, path)?.operationId;
      const options = {
        baseUrl: target.baseUrl,
        apiKey: target.apiKey.value,
        apiKeyLabel: target.apiKey.label,
        timeoutMs: target.timeoutMs,
        resolveOperation,
      };
      // Fixture setup requests go out unjudged; a proxy in front may ask to see which they are.
      const setup = process.env.CONFORM_MARK_SETUP === '1' ? { headers: { [SETUP_REQUEST_HEADER]: '1' } } : {};
      const t = new Scenario(
        title,
        record,
        target,
        new HttpClient(options),
        checked,
        new HttpClient({ ...options, ...setup }),
      );
      const limitMs = opts.timeoutMs ?? target.scenarioTimeoutMs ?? DEFAULT_SCENARIO_TIMEOUT_MS;
      const left = (target.runDeadline ?? Infinity) - Date.now();
      if (left <= 0)
        return endWithout(
          ctx,
          record,
          `target too slow: the run's time limit (--run-timeout) was reached before this scenario started (${latencySummary()})`,
          'slow',
        );
      try {
        // Fixture entries a strategy hands out (file) are this scenario's until it ends.
        const body = inFixtureScope({ title, destructive: opts.destructive }, () => fn(t));
        await withDeadline(body, Math.min(limitMs, left), () => {
          const which =
            left < limitMs ? "the run's time limit (--run-timeout)" : `its ${limitMs / 1000} s (--scenario-timeout)`;
          const reason = `target too slow: the scenario ran out of ${which} after ${record.exchanges} requests (${latencySummary()})`;
          t.stop(reason);
          return new NotJudged(reason, 'slow');
        });
        t.closeStream();
      } catch (caught) {
        t.closeStream();
        // After a request ran out of time, whatever the scenario did with the missing answer is the slowness's doing.
        const err =
          t.stoppedBecause && !(caught instanceof ConformanceFailure) && !(caught instanceof NotJudged)
            ? new NotJudged(t.stoppedBecause, 'slow')
            : caught;
        if (err instanceof NotJudged || isFixtureUnavailable(err)) {
          const [reason, category] =
            err instanceof NotJudged
              ? [err.reason, err.category]
              : [`fixture '${err.fixture}' unavailable: ${err.reason}`, err.category ?? 'fixture'];
          t.endNotJudged(reason, category);
          // What was found before still stands.
          if (t.findings.length) throw new ConformanceFailure(t.findings);
          return ctx.skip(redact(reason));
        }
        if (!(err instanceof ConformanceFailure)) {
          t.engineError(String((err as Error)?.message ?? err), (err as Error)?.stack);
          throw new EngineError(record.engineErrors[record.engineErrors.length - 1].message);
        }
        throw err;
      }
      // A request ran out of time after the scenario's last judgement (a cleanup): nothing is left unjudged.
      const slow = t.stoppedBecause && t.hasUnjudged() ? t.stoppedBecause : undefined;
      if (slow) t.endNotJudged(slow, 'slow');
      else if (t.stoppedBecause) t.note(t.stoppedBecause);
      if (t.findings.length) throw new ConformanceFailure(t.findings);
      if (record.engineErrors.length) throw new EngineError(record.engineErrors[0].message);
      if (slow) return ctx.skip(redact(slow));
    },
    // vitest waits a grace period beyond the scenario's own deadline before calling it hung.
    opts.timeoutMs === undefined ? undefined : opts.timeoutMs + 30_000,
  );
}
