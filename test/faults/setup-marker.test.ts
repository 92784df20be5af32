/**
 * Fault runs tell setup from the suites' own requests: with CONFORM_MARK_SETUP=1 the fixture
 * strategy's requests carry a marker the fault proxy counts apart (and strips), so a fault that
 * changed only setup traffic, which no check judges, is not reported as missed by the suites.
 */
import { expect, test } from 'vitest';
import type { Fault } from '../../src/faults/fault-proxy.ts';
import { expectAllPassed, useInProcessRun } from '../suites/helpers/in-process-run.ts';

/** Changes nothing, and counts every exchange as changed. */
const counting: Fault = {
  name: 'count-every-answer',
  onResponse(_req, _res, ctx) {
    ctx.applied();
  },
};

const { run, stats } = useInProcessRun('wallets');

async function runWallets(mark: boolean): Promise<{ applied: number; appliedSetup: number }> {
  const before = process.env.CONFORM_MARK_SETUP;
  if (mark) process.env.CONFORM_MARK_SETUP = '1';
  else delete process.env.CONFORM_MARK_SETUP;
  try {
    expectAllPassed(await run(counting));
    return stats();
  } finally {
    if (before === undefined) delete process.env.CONFORM_MARK_SETUP;
    else process.env.CONFORM_MARK_SETUP = before;
  }
}

test('marked: the fixtures strategy requests count as setup, the scenarios requests as the suites', async () => {
  const marked = await runWallets(true);
  expect(marked.appliedSetup).toBeGreaterThan(0);
  expect(marked.applied).toBeGreaterThan(0);
  // Unmarked (a plain `conform run`): nothing is told apart, every request counts as the suites'.
  const plain = await runWallets(false);
  expect(plain.appliedSetup).toBe(0);
  expect(plain.applied).toBeGreaterThan(marked.applied);
});
