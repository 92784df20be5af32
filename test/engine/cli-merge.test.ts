import { describe, expect, it } from 'vitest';
import { shardProblem } from '../../src/cli/commands/merge.ts';

const report = (shard?: [number, number]) =>
  ({ run: shard ? { shard: { index: shard[0], count: shard[1] } } : {} }) as never;

describe('conform merge: every shard of one split, once', () => {
  it('accepts unsharded reports and complete splits in any order', () => {
    expect(shardProblem([report(), report()])).toBeUndefined();
    expect(shardProblem([report([2, 3]), report([3, 3]), report([1, 3])])).toBeUndefined();
  });

  it('refuses a missing shard, a shard given twice, mixed splits, and sharded with unsharded', () => {
    expect(shardProblem([report([1, 3]), report([3, 3])])).toBe(
      'shard 2/3 missing: without it the merge would report its rules as never run',
    );
    expect(shardProblem([report([1, 4])])).toBe(
      'shard 2/4, 3/4, 4/4 missing: without them the merge would report their rules as never run',
    );
    expect(shardProblem([report([1, 2]), report([1, 2]), report([2, 2])])).toBe('shard 1/2 is given twice');
    expect(shardProblem([report([1, 2]), report([1, 3])])).toMatch(/different splits \(of 2, of 3\)/);
    expect(shardProblem([report([1, 2]), report()])).toMatch(/some do not/);
  });
});
