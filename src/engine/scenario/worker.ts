/**
 * What a suite knows about its target. The run resolves it once (config, flags,
 * probe) and hands it to every vitest worker (vitest-bridge.ts says how). A
 * scenario waits for it (`awaitTarget()`); suites read it through `t.target`, or
 * `targetContext()` once a scenario has started.
 */
import { appendFile } from 'node:fs/promises';
import type { HttpClient } from '../http/client.ts';
import { registerSecret } from '../http/redact.ts';
import { FixtureUnavailable } from '../fixtures/types.ts';
import { providedTarget } from './vitest-bridge.ts';
import type { Fixtures, KeptStep } from '../fixtures/methods.ts';
import type { TargetContext } from '../target/index.ts';
import type { CreateFixtures } from '../fixtures/index.ts';

export type { TargetContext } from '../target/index.ts';

let cached: TargetContext | undefined;
let pending: Promise<TargetContext> | undefined;

const NOT_PROVIDED = 'no conform target was provided: suites run through `conform run`, not plain vitest';

/** The target, waited for when the run sends it later; registers its keys as secrets in this worker. */
export function awaitTarget(): Promise<TargetContext> {
  if (cached) return Promise.resolve(cached);
  const provided = providedTarget();
  if (!provided) return Promise.reject(new Error(NOT_PROVIDED));
  if ('target' in provided) return Promise.resolve(adopt(provided.target));
  pending ??= provided.later().then(adopt);
  return pending;
}

/** The target, once known in this worker (a scenario has waited for it), else undefined. */
export function knownTarget(): TargetContext | undefined {
  if (cached) return cached;
  const provided = providedTarget();
  return provided && 'target' in provided ? adopt(provided.target) : undefined;
}

/** The target; only once known (inside a scenario, which waited for it). */
export function targetContext(): TargetContext {
  const t = knownTarget();
  if (!t) throw new Error(providedTarget() ? 'the target is not known yet: await awaitTarget() first' : NOT_PROVIDED);
  return t;
}

function adopt(t: TargetContext): TargetContext {
  if (cached) return cached;
  registerSecret(
    t.apiKey.value,
    t.apiKey.label,
    `the API key of the run${t.apiKey.from ? `, read from ${t.apiKey.from}` : ''}`,
  );
  if (t.secondKey) registerSecret(t.secondKey.value, t.secondKey.label, 'a second key of the merchant (secondKeyEnv)');
  if (t.otherMerchantKey)
    registerSecret(t.otherMerchantKey.value, t.otherMerchantKey.label, "another merchant's key (otherMerchantKeyEnv)");
  cached = t;
  return t;
}

/** A Fixtures whose every method throws FixtureUnavailable with `reason`. */
export function unavailableFixtures(reason: string, strategy = 'none'): Fixtures {
  return new Proxy({ strategy } as Fixtures, {
    get(target, prop) {
      if (prop === 'strategy') return strategy;
      if (prop === 'close') return async () => undefined;
      if (prop === 'keep') return undefined;
      if (prop === 'then') return undefined;
      if (typeof prop !== 'string') return (target as never)[prop];
      return async () => {
        throw new FixtureUnavailable(prop, reason);
      };
    },
  });
}

let fixturesPromise: Promise<Fixtures> | undefined;
let failed = false;

/** A finding was made in this worker: what its fixtures made is kept for the failure's replay. */
export function noteFailure(): void {
  failed = true;
}

/** The worker's fixture strategy, created once. */
export function workerFixtures(target: TargetContext, http: HttpClient): Promise<Fixtures> {
  fixturesPromise ??= createWorkerFixtures(target, http);
  return fixturesPromise;
}

async function createWorkerFixtures(target: TargetContext, http: HttpClient): Promise<Fixtures> {
  if (target.fixtures.strategy === 'none')
    return unavailableFixtures(
      `no fixture strategy (${target.fixtures.reason}); configure fixtures in conform.config.yaml`,
    );
  let mod: { createFixtures?: CreateFixtures };
  try {
    mod = await import('../fixtures/index.ts');
  } catch (err) {
    return unavailableFixtures(
      `fixture strategies are not available in this build (${(err as Error).message.split('\n')[0]})`,
      target.fixtures.strategy,
    );
  }
  if (typeof mod.createFixtures !== 'function')
    return unavailableFixtures('src/engine/fixtures/index.ts exports no createFixtures()', target.fixtures.strategy);
  return mod.createFixtures(target, http);
}

/**
 * Releases what the worker's fixtures created, within `limitMs`: a target too slow to answer
 * the cleanup in time leaves it undone, never stalls or breaks the run.
 */
export async function closeWorkerFixtures(limitMs = 60_000, keptFile?: string): Promise<void> {
  const p = fixturesPromise;
  fixturesPromise = undefined;
  // What the suite file's failures named was made by this file's fixtures: the next file starts afresh.
  const keep = failed;
  failed = false;
  if (!p) return;
  const close = (async () => {
    const fixtures = await p.catch(() => undefined);
    if (!fixtures) return;
    // A failure's replay must find what it names: keep what the fixtures made, and say how to remove it.
    if (keep && keptFile) {
      if (fixtures.keep) return listKept(keptFile, await Promise.resolve(fixtures.keep()).catch(() => []));
      // A team's module keeps what it made when CONFORM_KEEP_FIXTURES is set (the example module does).
      process.env.CONFORM_KEEP_FIXTURES = '1';
      await appendFile(keptFile, `${JSON.stringify({ module: true })}\n`).catch(() => undefined);
    }
    await fixtures.close().catch(() => undefined);
  })();
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([close, new Promise<void>((resolve) => (timer = setTimeout(resolve, limitMs)))]);
  clearTimeout(timer);
}

/** Appends the removal requests of kept fixtures (never a key: a step sent with another key says so). */
async function listKept(file: string, steps: KeptStep[]): Promise<void> {
  const lines = steps.map((st) =>
    JSON.stringify({
      method: st.method,
      path: st.path,
      ...(st.body === undefined ? {} : { body: st.body }),
      ...(st.key ? { otherKey: true } : {}),
    }),
  );
  if (lines.length) await appendFile(file, `${lines.join('\n')}\n`).catch(() => undefined);
}
