import { afterEach, describe, expect, test, vi } from 'vitest';
import command from '../../src/cli/commands/rules.ts';
import { CliError } from '../../src/cli/command.ts';
import { loadRules } from '../../src/contract/rules.ts';

function capture() {
  const out: string[] = [];
  vi.spyOn(console, 'log').mockImplementation((...a: unknown[]) => void out.push(a.join(' ')));
  return out;
}

describe('conform rules', () => {
  afterEach(() => vi.restoreAllMocks());

  test('prints every rule with its id, section and statement, and exits 0', async () => {
    const out = capture();
    expect(await command.run([])).toBe(0);
    const text = out.join('\n');
    const { rules } = await loadRules();
    for (const r of rules) {
      const line = text.split('\n').find((l) => l.startsWith(`${r.id} `));
      expect(line, r.id).toBeDefined();
      expect(line).toContain(r.section);
      expect(line).toContain(r.statement);
    }
    expect(text).toMatch(new RegExp(`\\b${rules.length} rules`));
  });

  test('--json gives the rules as data, --family filters', async () => {
    const out = capture();
    expect(await command.run(['--json', '--family', 'migration'])).toBe(0);
    const data = JSON.parse(out.join('\n')) as { id: string; section: string; statement: string }[];
    expect(data.length).toBeGreaterThan(5);
    expect(data.every((r) => r.id.startsWith('MIGRATION.'))).toBe(true);
    expect(data.map((r) => r.id)).toContain('MIGRATION.404.ARCHIVED_VERSION');
  });

  test('--help prints the usage and exits 0', async () => {
    const out = capture();
    expect(await command.run(['--help'])).toBe(0);
    expect(out.join('\n')).toMatch(/Usage: conform rules/);
  });

  test('an unknown family or flag is a usage error (exit 2)', async () => {
    await expect(command.run(['--family', 'NOPE'])).rejects.toThrow(CliError);
    await expect(command.run(['--bogus'])).rejects.toThrow(/bogus/);
  });
});
