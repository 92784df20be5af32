/**
 * The generated catalog's benign variants, all at once, in front of the reference: every
 * optional field the document lets a server leave out left out, an extra field in every
 * object of every answer, every object's keys shuffled, and every body sent with
 * Content-Encoding br. A conforming server may do all of that together (it is then not the
 * reference: the reference's own choices are not judged), so the suites must fail no rule.
 * The limiter variants are tested in test/suites/rate-limits-faults.test.ts. Each variant
 * counts the exchanges it changed, so a variant the suites never reach is named.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { join } from 'node:path';
import { runSuites, PACKAGE_ROOT, type ScenarioResult } from '../../src/engine/runner/index.ts';
import { startProxy, type Fault, type FaultContext, type RunningProxy } from '../../src/faults/fault-proxy.ts';
import { startReferenceServer, type RunningReference } from '../../src/reference/index.ts';
import type { TargetContext } from '../../src/engine/scenario/worker.ts';
import { loadSpec } from '../../src/contract/index.ts';
import { composeFaults } from '../../src/faults/catalog/helpers.ts';
import { generatedCatalog, type GeneratedFault } from '../../src/faults/generated/index.ts';
import { computeVerdicts } from '../../src/engine/reporters/verdicts.ts';
import type { Spec } from '../../src/contract/types.ts';

let spec: Spec;
let ref: RunningReference;
let proxy: RunningProxy;
let variants: GeneratedFault[];

beforeAll(async () => {
  spec = await loadSpec();
  const all = generatedCatalog(spec);
  // Field edits first, then the key order, then the encoding (it turns the body into bytes).
  variants = [
    ...all.filter((f) => f.kind === 'benign-omit-optional'),
    ...all.filter((f) => f.kind === 'benign-extra-fields'),
    ...['gen-benign-shuffled-keys', 'gen-benign-br-bodies'].map((name) => all.find((f) => f.name === name)!),
  ];
  ref = await startReferenceServer({ host: '127.0.0.1', port: 0, database: 'memory' });
  proxy = await startProxy({ upstream: ref.baseUrl });
});
afterAll(async () => {
  await proxy?.close();
  await ref?.close();
});

/** `f` with its own count of the exchanges it changed. */
function counted(f: GeneratedFault, counts: Map<string, number>): Fault {
  const own = (ctx: FaultContext): FaultContext => ({
    state: ctx.state,
    upstream: (r) => ctx.upstream(r),
    applied: () => (counts.set(f.name, (counts.get(f.name) ?? 0) + 1), ctx.applied()),
  });
  return {
    name: f.name,
    onRequest: f.onRequest && ((r, ctx) => f.onRequest!(r, own(ctx))),
    onResponse: f.onResponse && ((r, res, ctx) => f.onResponse!(r, res, own(ctx))),
  };
}

const describeResult = (r: ScenarioResult) =>
  `${r.state}: ${r.suite}: ${r.title}: ${r.error ?? r.skipReason ?? r.findings.map((f) => `[${f.ruleIds.join(', ')}] ${f.message}`).join('; ')}`;

test('every benign variant of the generated catalog at once: no scenario fails, and each variant changed an exchange', async () => {
  const counts = new Map<string, number>();
  proxy.setFault(composeFaults('generated benign variants', ...variants.map((f) => counted(f, counts))));
  // The contract suite sends every documented operation; the others reach the answers the omissions alter.
  const suites = [
    'contract',
    'auth',
    'customers',
    'merchants',
    'products',
    'prices',
    'source-rules',
    'wallets',
    'refunds-payments',
    'delete-blockers',
    'alerts',
    'webhooks',
  ];
  const target: TargetContext = {
    runId: 'test-generated-benign',
    baseUrl: proxy.url,
    bundled: false,
    referenceServer: false,
    sandbox: true,
    destructive: true,
    apiKey: { value: ref.apiKey, label: 'CONFORM_API_KEY' },
    merchantId: ref.merchantId,
    profile: 'quick',
    seed: 1,
    timeoutMs: 10_000,
    fixtures: { strategy: 'reference', reason: 'test: the reference behind benign variants' },
  };
  const outcome = await runSuites({
    target,
    suites: suites.map((name) => ({ name, file: join(PACKAGE_ROOT, 'suites', `${name}.suite.ts`) })),
    maxWorkers: 1,
  });
  expect(outcome.errors).toEqual([]);
  const verdicts = computeVerdicts(await spec.rules(), outcome.results, { bundled: false, referenceServer: false });
  const failed = new Set(
    verdicts.filter((v) => v.verdict === 'failed' || v.verdict === 'engine_error').map((v) => v.id),
  );
  expect(
    outcome.results
      .filter((r) => r.state === 'error' || r.findings.some((f) => f.ruleIds.some((id) => failed.has(id))))
      .map(describeResult),
  ).toEqual([]);
  expect(verdicts.filter((v) => v.verdict === 'passed').length).toBeGreaterThan(60);
  // Every operation's extra fields and both encodings reach the suites; of the omissions, those
  // of fields the reference writes (it never sends an error code on a 401, for one).
  expect(variants.filter((f) => f.kind !== 'benign-omit-optional' && !counts.get(f.name)).map((f) => f.name)).toEqual(
    [],
  );
  expect(variants.filter((f) => f.kind === 'benign-omit-optional' && counts.get(f.name)).length).toBeGreaterThanOrEqual(
    12,
  );
}, 300_000);
