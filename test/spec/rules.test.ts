import { describe, expect, test } from 'vitest';
import { loadRules, parseRules, RULE_FAMILIES } from '../../src/contract/rules.ts';

describe('spec/rules.yaml', () => {
  test('loads, validates and is memoised', async () => {
    const a = await loadRules();
    const b = await loadRules();
    expect(a).toBe(b);
    expect(a.rules.length).toBeGreaterThan(0);
  });

  test('every rule has a section, a one-line statement and a known family', async () => {
    const { rules } = await loadRules();
    for (const r of rules) {
      expect(r.section.trim(), r.id).not.toBe('');
      expect(r.statement, r.id).not.toMatch(/\n/);
      expect(RULE_FAMILIES, r.id).toContain(r.family);
      expect(r.id.startsWith(`${r.family}.`), r.id).toBe(true);
    }
  });

  test('ids are unique and well-formed', async () => {
    const { rules } = await loadRules();
    const ids = rules.map((r) => r.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(/^[A-Z][A-Z_]*\.[A-Z0-9][A-Z0-9_]*\.[A-Z0-9][A-Z0-9_]*$/);
  });

  test('byId and byFamily index the rules in file order', async () => {
    const index = await loadRules();
    const first = index.rules[0];
    expect(index.byId(first.id)).toBe(first);
    expect(index.byId('NOPE.NOPE.NOPE')).toBeUndefined();
    const fam = index.byFamily();
    expect([...fam.values()].flat().length).toBe(index.rules.length);
    expect(fam.get(first.family)?.[0]).toBe(first);
  });
});

describe('rules validation errors name the bad entry', () => {
  const good = {
    id: 'RATE.X.LIMIT',
    family: 'RATE',
    statement: 'A statement long enough.',
    section: 'Limits',
    operations: [],
    kind: 'contract',
  };
  const doc = (rules: unknown[]) => JSON.stringify({ version: 1, rules });

  test('a missing section', async () => {
    const { section, ...bad } = { ...good, id: 'RATE.Y.LIMIT' };
    await expect(parseRules(doc([good, bad]), 'x.yaml')).rejects.toThrow(/rule RATE\.Y\.LIMIT \(entry 1\).*section/);
  });

  test('a malformed id', async () => {
    await expect(parseRules(doc([{ ...good, id: 'rate.x' }]))).rejects.toThrow(/rule rate\.x \(entry 0\) at \/id/);
  });

  test('a duplicate id', async () => {
    await expect(parseRules(doc([good, good]))).rejects.toThrow(/RATE\.X\.LIMIT \(entry 1\) repeats/);
  });

  test('a family that does not match the id', async () => {
    await expect(parseRules(doc([{ ...good, family: 'AUTH' }]))).rejects.toThrow(/family AUTH/);
  });

  test('an unknown kind and an unknown field', async () => {
    await expect(parseRules(doc([{ ...good, kind: 'maybe', extra: 1 }]))).rejects.toThrow(
      /kind.*(contract|reference)[\s\S]*extra|extra[\s\S]*kind/,
    );
  });

  test('invalid YAML', async () => {
    await expect(parseRules('rules: [', 'bad.yaml')).rejects.toThrow(/bad\.yaml: not valid YAML/);
  });
});
