/**
 * The suites run through `conform proxy` in front of the reference: for every rule both
 * judged, the passive judge agrees with the suites; on a correct server it fails nothing;
 * and the HAR it recorded, judged by `conform judge`, gives the very same verdicts.
 * Every suite but rate-limits (its windows take ~40 s; rate counting is tested in
 * server-units.test.ts and through the fault proxy in faults.test.ts).
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { startReferenceServer, type RunningReference } from '../../src/reference/index.ts';
import { runSuites, PACKAGE_ROOT } from '../../src/engine/runner/index.ts';
import { computeVerdicts } from '../../src/engine/reporters/verdicts.ts';
import { loadRules } from '../../src/contract/index.ts';
import { startPassiveProxy } from '../../src/passive/session.ts';
import { judgeHar } from '../../src/passive/har.ts';
import { buildPassiveReport, isClientRule } from '../../src/passive/report.ts';
import type { TargetContext } from '../../src/engine/scenario/worker.ts';

const SUITES = [
  'auth',
  'customers',
  'items',
  'webhooks',
  'delete-blockers',
  'version-migration',
  'refunds-payments',
  'alerts',
  'merchants',
  'products',
  'prices',
  'source-rules',
  'wallets',
  'billing-schedules',
  'contract',
];
const TIMEOUT_MS = 400_000;
const judged = (v: string | undefined) => v === 'passed' || v === 'failed';

let ref: RunningReference;
let dir: string;
const apiKey = `sk_test_${randomBytes(12).toString('hex')}`;

beforeAll(async () => {
  ref = await startReferenceServer({ host: '127.0.0.1', port: 0, database: 'memory', apiKey });
  dir = await mkdtemp(join(tmpdir(), 'conform-passive-'));
}, 60_000);
afterAll(async () => {
  await ref?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('the suites through conform proxy, in front of the reference', () => {
  test(
    'the passive verdicts agree with the suites, fail nothing on the reference, and the recorded HAR judges the same',
    async () => {
      const har = join(dir, 'suites.har');
      const proxy = await startPassiveProxy({ target: ref.baseUrl, harPath: har });
      const target: TargetContext = {
        runId: 'passive-agreement',
        baseUrl: proxy.url,
        bundled: false,
        sandbox: true,
        destructive: true,
        apiKey: { value: apiKey, label: 'CONFORM_API_KEY' },
        merchantId: ref.merchantId,
        profile: 'quick',
        seed: 1,
        timeoutMs: 20_000,
        fixtures: { strategy: 'reference', reason: 'test: the reference behind conform proxy' },
      };
      const run = await runSuites({
        target,
        suites: SUITES.map((name) => ({ name, file: join(PACKAGE_ROOT, 'suites', `${name}.suite.ts`) })),
        maxWorkers: 2,
      });
      const live = await proxy.stop();
      expect(run.errors).toEqual([]);
      const rules = await loadRules();

      const suite = new Map(
        computeVerdicts(rules, run.results, { bundled: false }).map((r) => [r.id, r.verdict as string]),
      );
      const report = buildPassiveReport({
        outcome: live,
        rules,
        baseUrl: ref.baseUrl,
        source: 'test',
        toolVersion: 'test',
      });
      const passive = new Map(report.rules.map((r) => [r.id, r]));

      const server = [...passive.values()].filter((r) => !isClientRule(r.id, rules));
      const both = server.filter((r) => judged(r.verdict) && judged(suite.get(r.id)));
      const disagree = both
        .filter((r) => r.verdict !== suite.get(r.id))
        .map((r) => `${r.id}: suite ${suite.get(r.id)}, passive ${r.verdict} (${r.reasons.join('; ')})`);
      expect(disagree).toEqual([]);
      // Rules with a part only a scenario can judge (its resource exists, the state before) have no passive rule verdict.
      expect(both.length, 'rules judged by both').toBeGreaterThan(50);
      expect(
        server.filter((r) => r.verdict === 'failed').map((r) => `${r.id}: ${r.failures[0]?.message}`),
        'a correct server fails no rule',
      ).toEqual([]);
      expect(live.exchanges).toBeGreaterThan(500);
      expect(live.errors).toEqual([]);

      const recorded = await judgeHar(har);
      expect(recorded.baseUrl).toBe(ref.baseUrl);
      expect(recorded.outcome.exchanges).toBe(live.exchanges);
      const fromHar = buildPassiveReport({
        outcome: recorded.outcome,
        rules,
        baseUrl: ref.baseUrl,
        source: 'test',
        toolVersion: 'test',
      });
      const shape = (r: (typeof report.rules)[number]) => `${r.id} ${r.verdict} ${r.judgements}`;
      expect(fromHar.rules.map(shape)).toEqual(report.rules.map(shape));
      expect(await readFile(har, 'utf8')).not.toContain(apiKey);
      expect(JSON.stringify(report)).not.toContain(apiKey);
    },
    TIMEOUT_MS,
  );
});
