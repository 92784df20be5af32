/**
 * The target reaches workers started before it was known: each asks on the run's channel and
 * gets it once the run has it (or the run's reason when it has none).
 */
import { describe, expect, test } from 'vitest';
import { offerTarget, receiveTarget } from '../../src/engine/target/channel.ts';
import type { TargetContext } from '../../src/engine/target/index.ts';

const target = {
  runId: 'r1',
  baseUrl: 'http://127.0.0.1:1',
  apiKey: { value: 'k', label: 'CONFORM_API_KEY' },
} as TargetContext;

function deferred<T>() {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
}

describe('the target channel', () => {
  test('a worker that asks before the target is known gets it once it is; one that asks after gets it at once', async () => {
    const d = deferred<TargetContext>();
    const offer = offerTarget('conform-test-1', d.promise);
    let early: TargetContext | undefined;
    const asking = receiveTarget('conform-test-1').then((t) => (early = t));
    await new Promise((r) => setTimeout(r, 50));
    expect(early).toBeUndefined();
    d.resolve(target);
    await asking;
    expect(early).toEqual(target);
    expect(await receiveTarget('conform-test-1')).toEqual(target);
    offer.close();
  });

  test('a run with no target answers its reason', async () => {
    const d = deferred<TargetContext>();
    const offer = offerTarget('conform-test-2', d.promise);
    const asking = receiveTarget('conform-test-2');
    d.reject(new Error('cannot reach the target at http://127.0.0.1:1: connection refused\nmore'));
    await expect(asking).rejects.toThrow(
      'the run has no target: cannot reach the target at http://127.0.0.1:1: connection refused',
    );
    offer.close();
  });

  test('closed before the target is known (the workers had nothing to run), it sends nothing and throws nothing', async () => {
    // A post on the closed channel would throw from the promise chain (it ended a run with exit 1).
    const rejections: unknown[] = [];
    const seen = (reason: unknown) => rejections.push(reason);
    process.on('unhandledRejection', seen);
    try {
      const d = deferred<TargetContext>();
      offerTarget('conform-test-5', d.promise).close();
      d.resolve(target);
      const failed = deferred<TargetContext>();
      offerTarget('conform-test-6', failed.promise).close();
      failed.reject(new Error('unreachable'));
      await new Promise((r) => setTimeout(r, 50));
    } finally {
      process.off('unhandledRejection', seen);
    }
    expect(rejections.map(String)).toEqual([]);
  });

  test('another run’s channel answers nothing here', async () => {
    const offer = offerTarget('conform-test-3', Promise.resolve(target));
    const other = receiveTarget('conform-test-4');
    const answered = await Promise.race([other.then(() => true), new Promise((r) => setTimeout(() => r(false), 100))]);
    expect(answered).toBe(false);
    offer.close();
  });
});
