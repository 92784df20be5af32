import { describe, expect, test } from 'vitest';
import { CappedMap } from '../../src/engine/checks/capped-map.ts';

describe('CappedMap', () => {
  test('keeps at most max entries, dropping the least recently set first, and hands each to onEvict', () => {
    const evicted: string[] = [];
    const m = new CappedMap<string, number>(2, (k, v) => evicted.push(`${k}=${v}`));
    m.set('a', 1).set('b', 2);
    m.set('a', 3); // a is now the newest
    m.set('c', 4);
    expect([...m.keys()]).toEqual(['a', 'c']);
    expect(evicted).toEqual(['b=2']);
    expect(m.get('a')).toBe(3);
  });
});
