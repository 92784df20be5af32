import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, test, vi } from 'vitest';
import command from '../../src/cli/commands/lint.ts';
import { CliError } from '../../src/cli/command.ts';
import { DEFAULT_SPEC_PATH, lint } from '../../src/contract/lint/run.ts';

const fixture = (name: string) => fileURLToPath(new URL(`../fixtures/lint/${name}`, import.meta.url));
const specExists = existsSync(DEFAULT_SPEC_PATH);

function capture() {
  const out: string[] = [];
  vi.spyOn(console, 'log').mockImplementation((...a: unknown[]) => void out.push(a.join(' ')));
  return out;
}

describe('the real spec', () => {
  test.skipIf(!specExists)(
    'spec/openapi.yaml and spec/rules.yaml lint with 0 errors (skipped when spec/openapi.yaml is absent)',
    async () => {
      const result = await lint();
      const errors = result.findings.filter((f) => f.severity === 'error');
      expect(errors.map((f) => `${f.code} ${f.source}:${f.line} ${f.path}: ${f.message}`)).toEqual([]);
      expect(result.errors).toBe(0);
    },
  );
});

describe('conform lint', () => {
  afterEach(() => vi.restoreAllMocks());

  test('a broken spec and broken rules: findings with severity, code, path and message, a count, exit 1', async () => {
    const out = capture();
    const code = await command.run(['--spec', fixture('broken-openapi.yaml'), '--rules', fixture('broken-rules.yaml')]);
    expect(code).toBe(1);
    const text = out.join('\n');
    for (const expected of [
      'bm-auth-responses',
      'bm-bearer-security',
      'bm-rate-limit-headers',
      'bm-resource-object',
      'bm-documented-operations',
      'rules-id-format',
      'rules-id-unique',
      'rules-section',
      'rules-operation-exists',
      'rules-rate-params',
    ]) {
      expect(text).toMatch(new RegExp(`^error\\s+${expected}\\s`, 'm'));
    }
    expect(text).toMatch(/broken-openapi\.yaml:\d+ paths\.\/v0\/customers\/\{id\}\.get/);
    expect(text).toMatch(/fetchCustomer/);
    expect(text).toMatch(/^\d+ error\(s\), \d+ warning\(s\)/m);
  });

  test('--json gives the findings as data and the same exit code', async () => {
    const out = capture();
    expect(
      await command.run(['--json', '--spec', fixture('broken-openapi.yaml'), '--rules', fixture('broken-rules.yaml')]),
    ).toBe(1);
    const data = JSON.parse(out.join('\n'));
    expect(data.errors).toBeGreaterThan(0);
    expect(data.findings.find((f: { code: string }) => f.code === 'bm-auth-responses')).toMatchObject({
      severity: 'error',
      path: expect.any(String),
      message: expect.stringMatching(/401/),
    });
  });

  test.skipIf(!specExists)('the real spec exits 0 (skipped when spec/openapi.yaml is absent)', async () => {
    capture();
    expect(await command.run(['--quiet'])).toBe(0);
  });

  test('--help and --list-rules exit 0', async () => {
    const out = capture();
    expect(await command.run(['--help'])).toBe(0);
    expect(out.join('\n')).toMatch(/Usage: conform lint/);
    expect(await command.run(['--list-rules'])).toBe(0);
    expect(out.join('\n')).toMatch(/bm-rate-limit-headers/);
  });

  test('a missing file or an unknown flag is a usage error (exit 2)', async () => {
    await expect(command.run(['--spec', fixture('nope.yaml')])).rejects.toThrow(CliError);
    await expect(command.run(['--frobnicate'])).rejects.toThrow(/frobnicate/);
  });
});
