import { describe, expect, test } from 'vitest';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chooseFixtureStrategy, ConfigError, destructiveAllowed, loadConfigFile, resolveConfig, validateConfig } from '../../src/engine/config/index.ts';
import { parseRunArgs } from '../../src/cli/commands/run.ts';

function problems(doc: unknown): string[] {
  try {
    validateConfig(doc);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as ConfigError).problems;
  }
  return [];
}

describe('conform.config.yaml validation', () => {
  test('a full valid file passes', () => {
    expect(
      problems({
        baseUrl: 'https://sandbox.example.com',
        sandbox: true,
        apiKeyEnv: 'BILLING_API_KEY',
        secondKeyEnv: 'BILLING_SECOND_KEY',
        otherMerchantKeyEnv: 'OTHER_MERCHANT_KEY',
        destructive: false,
        fixtures: { strategy: 'file', file: 'fixtures.yaml' },
        profile: 'full',
        seed: 42,
        reportDir: 'out',
      }),
    ).toEqual([]);
  });

  test('a literal key is refused with a pointer to apiKeyEnv', () => {
    const p = problems({ apiKey: 'sk_live_123' });
    expect(p).toHaveLength(1);
    expect(p[0]).toMatch(/literal API key.*apiKeyEnv/);
    expect(p[0]).not.toContain('sk_live_123');
  });

  test('a key pasted into apiKeyEnv is refused', () => {
    const p = problems({ apiKeyEnv: 'sk_test_abc123' });
    expect(p[0]).toMatch(/apiKeyEnv must be the NAME of an environment variable/);
    expect(p[0]).not.toContain('sk_test_abc123');
  });

  test('one clear line per problem', () => {
    const p = problems({ baseUrl: 'ftp://x', profile: 'deep', seed: -1, colour: true, fixtures: { strategy: 'module' } });
    expect(p).toEqual(
      expect.arrayContaining([
        'baseUrl must be an http:// or https:// URL',
        'profile must be one of quick, full',
        "unknown setting 'colour'",
        expect.stringMatching(/^seed /),
        expect.stringMatching(/fixtures.strategy 'module' needs fixtures.module/),
      ]),
    );
    for (const line of p) expect(line).not.toMatch(/\n/);
  });

  test('unreadable and non-YAML files give one line', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'conform-config-'));
    await expect(loadConfigFile(join(dir, 'missing.yaml'))).rejects.toThrow(/cannot read the config file \(ENOENT\)/);
    await writeFile(join(dir, 'bad.yaml'), 'baseUrl: [unclosed');
    await expect(loadConfigFile(join(dir, 'bad.yaml'))).rejects.toThrow(/not valid YAML/);
  });
});

describe('resolveConfig', () => {
  const env = { BILLING_API_KEY: 'sk_from_env_123456', CONFORM_API_KEY: 'sk_conform_env_999' };

  test('keys come from the named env var; flags override the file', () => {
    const c = resolveConfig({ baseUrl: 'https://a.example', apiKeyEnv: 'BILLING_API_KEY', profile: 'quick', seed: 1 }, { profile: 'full', seed: 7 }, env);
    expect(c.apiKey).toEqual({ value: 'sk_from_env_123456', label: 'BILLING_API_KEY' });
    expect(c.profile).toBe('full');
    expect(c.seed).toBe(7);
    const d = resolveConfig({ baseUrl: 'https://a.example', apiKeyEnv: 'BILLING_API_KEY' }, { baseUrl: 'http://b.example/', apiKey: 'sk_flag_key_123' }, env);
    expect(d.baseUrl).toBe('http://b.example');
    expect(d.apiKey).toEqual({ value: 'sk_flag_key_123', label: 'CONFORM_API_KEY' });
  });

  test('CONFORM_API_KEY is the fallback', () => {
    expect(resolveConfig({}, { baseUrl: 'http://x.example' }, env).apiKey?.label).toBe('CONFORM_API_KEY');
  });

  test('a named but unset env var and a target without key are errors', () => {
    expect(() => resolveConfig({ apiKeyEnv: 'NOPE', secondKeyEnv: 'NOPE2' }, {}, {})).toThrow(/apiKeyEnv names the environment variable NOPE, which is not set[\s\S]*NOPE2/);
    expect(() => resolveConfig({}, { baseUrl: 'http://x.example' }, {})).toThrow(/no API key/);
    expect(() => resolveConfig({}, { baseUrl: 'x.example', apiKey: 'sk_abcdefg' }, {})).toThrow(/--base-url must be an http/);
  });

  test('no base URL and no key is the bundled reference: fine', () => {
    const c = resolveConfig({}, {}, {});
    expect(c.baseUrl).toBeUndefined();
    expect(c.profile).toBe('quick');
    expect(Number.isInteger(c.seed)).toBe(true);
  });

  test('destructive defaults: bundled and sandbox yes, others no, explicit wins', () => {
    const base = resolveConfig({}, { baseUrl: 'http://x.example', apiKey: 'sk_abcdefg' }, {});
    expect(destructiveAllowed(base, true)).toBe(true);
    expect(destructiveAllowed(base, false)).toBe(false);
    expect(destructiveAllowed({ ...base, sandbox: true }, false)).toBe(true);
    expect(destructiveAllowed({ ...base, sandbox: true, destructive: false }, false)).toBe(false);
    expect(destructiveAllowed({ ...base, destructive: true }, false)).toBe(true);
  });

  test('fixture strategy: configured, else reference when possible, else file, else none', () => {
    const base = resolveConfig({}, { baseUrl: 'http://x.example', apiKey: 'sk_abcdefg' }, {});
    expect(chooseFixtureStrategy(base, true, false).strategy).toBe('reference');
    expect(chooseFixtureStrategy(base, false, true).strategy).toBe('reference');
    expect(chooseFixtureStrategy(base, false, false).strategy).toBe('none');
    const withFile = resolveConfig({ fixtures: { file: 'f.yaml' } }, { baseUrl: 'http://x.example', apiKey: 'sk_abcdefg' }, {}, '/etc/conf/conform.config.yaml');
    expect(chooseFixtureStrategy(withFile, false, false)).toMatchObject({ strategy: 'file', file: '/etc/conf/f.yaml' });
    expect(chooseFixtureStrategy({ ...withFile, fixtures: { strategy: 'none' } }, true, true).strategy).toBe('none');
  });
});

describe('accepting unjudged rules', () => {
  test('allowUnjudged (true or rule ids and families) and minJudged validate; anything else is one clear line', () => {
    expect(problems({ allowUnjudged: true, minJudged: 100 })).toEqual([]);
    expect(problems({ allowUnjudged: ['AUTH', 'RATE.PORTAL.LIMIT'] })).toEqual([]);
    expect(problems({ allowUnjudged: 'all' })).toEqual(['allowUnjudged must be true, false or a list of rule ids and families (e.g. [AUTH, RATE.PORTAL.LIMIT])']);
    expect(problems({ allowUnjudged: ['auth'] })).toEqual(['allowUnjudged must be true, false or a list of rule ids and families (e.g. [AUTH, RATE.PORTAL.LIMIT])']);
    expect(problems({ minJudged: -1 })).toHaveLength(1);
  });

  test('flags add to the file: --allow-unjudged alone accepts every gap, --allow-unjudged=IDS adds ids, --min-judged wins', () => {
    const env = {};
    expect(resolveConfig({ allowUnjudged: ['AUTH'], minJudged: 3 }, parseRunArgs(['--allow-unjudged=RATE.PORTAL.LIMIT,WEBHOOKS', '--min-judged', '9']), env).acceptance).toEqual({ allowUnjudged: ['AUTH', 'RATE.PORTAL.LIMIT', 'WEBHOOKS'], minJudged: 9 });
    expect(resolveConfig({ allowUnjudged: ['AUTH'] }, parseRunArgs(['--allow-unjudged']), env).acceptance).toEqual({ allowUnjudged: true });
    expect(resolveConfig({}, {}, env).acceptance).toEqual({});
    expect(() => parseRunArgs(['--min-judged', 'most'])).toThrow(/--min-judged must be a whole number/);
  });
});
