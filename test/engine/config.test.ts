import { describe, expect, test } from 'vitest';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import {
  chooseFixtureStrategy,
  ConfigError,
  destructiveAllowed,
  loadConfigFile,
  resolveConfig,
  validateConfig,
} from '../../src/engine/config/index.ts';
import { parseRunArgs } from '../../src/cli/commands/run.ts';
import { publishedSchemas, SCHEMA_FILES } from '../../src/engine/published-schemas.ts';
import { configSchema } from '../../src/engine/config/schema.ts';

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
    const p = problems({
      baseUrl: 'ftp://x',
      profile: 'deep',
      seed: -1,
      colour: true,
      fixtures: { strategy: 'module' },
    });
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

  test('a fixtures program: a command line or a list of arguments, needed by strategy command', () => {
    expect(problems({ fixtures: { strategy: 'command' } })).toEqual([
      "fixtures.strategy 'command' needs fixtures.command (the program serving the fixtures)",
    ]);
    expect(problems({ fixtures: { command: [] } })).toHaveLength(1);
    expect(problems({ fixtures: { strategy: 'command', command: 'python3 fixtures.py' } })).toEqual([]);
    expect(problems({ fixtures: { strategy: 'command', command: ['python3', 'fixtures.py'] } })).toEqual([]);
    const c = resolveConfig(
      { baseUrl: 'https://a.example', fixtures: { command: ['python3', 'fixtures.py'] } },
      {},
      { CONFORM_API_KEY: 'sk_conform_env_999' },
      '/teams/billing/conform.config.yaml',
    );
    expect(c.fixtures.command).toEqual({ run: ['python3', 'fixtures.py'], cwd: '/teams/billing' });
    expect(chooseFixtureStrategy(c, false, false)).toMatchObject({
      strategy: 'command',
      reason: 'fixtures.command is given',
    });
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
    const c = resolveConfig(
      { baseUrl: 'https://a.example', apiKeyEnv: 'BILLING_API_KEY', profile: 'quick', seed: 1 },
      { profile: 'full', seed: 7 },
      env,
    );
    expect(c.apiKey).toMatchObject({ value: 'sk_from_env_123456', label: 'BILLING_API_KEY' });
    expect(c.profile).toBe('full');
    expect(c.seed).toBe(7);
    const d = resolveConfig(
      { baseUrl: 'https://a.example', apiKeyEnv: 'BILLING_API_KEY' },
      { baseUrl: 'http://b.example/', apiKey: 'sk_flag_key_123' },
      env,
    );
    expect(d.baseUrl).toBe('http://b.example');
    expect(d.apiKey).toMatchObject({ value: 'sk_flag_key_123', label: 'CONFORM_API_KEY', from: '--api-key' });
  });

  test('CONFORM_API_KEY is the fallback', () => {
    expect(resolveConfig({}, { baseUrl: 'http://x.example' }, env).apiKey?.label).toBe('CONFORM_API_KEY');
  });

  test('a named but unset env var and a target without key are errors', () => {
    expect(() => resolveConfig({ apiKeyEnv: 'NOPE', secondKeyEnv: 'NOPE2' }, {}, {})).toThrow(
      /apiKeyEnv names the environment variable NOPE, which is not set[\s\S]*NOPE2/,
    );
    expect(() => resolveConfig({}, { baseUrl: 'http://x.example' }, {})).toThrow(/no API key/);
    expect(() => resolveConfig({}, { baseUrl: 'x.example', apiKey: 'sk_abcdefg' }, {})).toThrow(
      /--base-url must be an http/,
    );
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
    const withFile = resolveConfig(
      { fixtures: { file: 'f.yaml' } },
      { baseUrl: 'http://x.example', apiKey: 'sk_abcdefg' },
      {},
      '/etc/conf/conform.config.yaml',
    );
    expect(chooseFixtureStrategy(withFile, false, false)).toMatchObject({ strategy: 'file', file: '/etc/conf/f.yaml' });
    expect(chooseFixtureStrategy({ ...withFile, fixtures: { strategy: 'none' } }, true, true).strategy).toBe('none');
  });
});

describe('strict files: never a silent run against the bundled reference', () => {
  test('an empty file, or one of comments only, is an error', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'conform-config-'));
    for (const [name, text] of [
      ['empty.yaml', ''],
      ['comments.yaml', '# baseUrl: https://x.example\n\n'],
    ]) {
      await writeFile(join(dir, name), text);
      await expect(loadConfigFile(join(dir, name))).rejects.toThrow(/holds no settings; give at least baseUrl/);
    }
  });

  test('an unknown key is an error, naming it', () => {
    expect(problems({ baseURL: 'https://x.example' })).toEqual(["unknown setting 'baseURL'. Did you mean 'baseUrl'?"]);
    expect(problems({ fixtures: { stratgey: 'file' } })).toEqual([
      "unknown setting 'fixtures.stratgey'. Did you mean 'strategy'?",
    ]);
  });

  test('settings that describe a target, with no base URL anywhere, are an error', () => {
    const env = { K: 'sk_test_abcdef' };
    expect(() => resolveConfig({ apiKeyEnv: 'K', merchantId: 'org_1' }, {}, env)).toThrow(
      /apiKeyEnv, merchantId describe a target, but no baseUrl is given/,
    );
    expect(resolveConfig({ apiKeyEnv: 'K' }, { baseUrl: 'https://x.example' }, env).baseUrl).toBe('https://x.example');
    expect(resolveConfig({ profile: 'full' }, {}, env).baseUrl).toBeUndefined();
  });

  test('--sandbox is sandbox: true', () => {
    const flags = { baseUrl: 'http://x.example', apiKey: 'sk_abcdefg' };
    expect(resolveConfig({}, flags, {}).sandbox).toBe(false);
    const c = resolveConfig({}, { ...flags, sandbox: true }, {});
    expect(c.sandbox).toBe(true);
    expect(destructiveAllowed(c, false)).toBe(true);
    expect(resolveConfig({ sandbox: true }, flags, {}).sandbox).toBe(true);
  });
});

describe('schemas/config.schema.json and docs/config.md', () => {
  const read = async (rel: string) => readFile(new URL(`../../${rel}`, import.meta.url), 'utf8');

  test('the published schema is the one the CLI validates with (npm run schemas rewrites it)', async () => {
    const published = JSON.parse(await read(SCHEMA_FILES.config));
    expect(published, `${SCHEMA_FILES.config} is stale: run npm run schemas`).toEqual(publishedSchemas().config);
  });

  test('the published schema agrees with the CLI on valid and invalid files', async () => {
    const validate = new Ajv2020({ strict: true, allowUnionTypes: true, allErrors: true }).compile(
      JSON.parse(await read(SCHEMA_FILES.config)),
    );
    const samples: unknown[] = [
      {
        baseUrl: 'https://x.example',
        apiKeyEnv: 'K',
        sandbox: true,
        fixtures: { strategy: 'module', module: 'f.ts' },
        timeoutMs: 5000,
        concurrency: 2,
      },
      { baseUrl: 'https://x.example', colour: true },
      { profile: 'deep' },
      { seed: -1 },
      { apiKeyEnv: 'sk_live_1' },
      { fixtures: { strategy: 'file', file: '' } },
      { timeoutMs: 1.5 },
    ];
    for (const doc of samples) expect(validate(doc), JSON.stringify(doc)).toBe(problems(doc).length === 0);
  });

  test('every setting has a description and a row in docs/config.md', async () => {
    const doc = await read('docs/config.md');
    const keys: [string, { description?: string }][] = [];
    for (const [k, v] of Object.entries(configSchema.properties)) {
      keys.push([k, v]);
      if ('properties' in v) for (const [sub, sv] of Object.entries(v.properties)) keys.push([`${k}.${sub}`, sv]);
    }
    expect(keys.length).toBeGreaterThan(15);
    for (const [k, v] of keys) {
      expect(v.description, k).toMatch(/\w{3,}/);
      if (!('properties' in v)) expect(doc, `docs/config.md has no row for ${k}`).toContain(`| \`${k}\` |`);
    }
  });
});

describe('accepting unjudged rules', () => {
  test('allowUnjudged (true or rule ids and families) and minJudged validate; anything else is one clear line', () => {
    expect(problems({ allowUnjudged: true, minJudged: 100 })).toEqual([]);
    expect(problems({ allowUnjudged: ['AUTH', 'RATE.PORTAL.LIMIT'] })).toEqual([]);
    expect(problems({ allowUnjudged: 'all' })).toEqual([
      'allowUnjudged must be true, false or a list of rule ids and families (e.g. [AUTH, RATE.PORTAL.LIMIT])',
    ]);
    expect(problems({ allowUnjudged: ['auth'] })).toEqual([
      'allowUnjudged must be true, false or a list of rule ids and families (e.g. [AUTH, RATE.PORTAL.LIMIT])',
    ]);
    expect(problems({ minJudged: -1 })).toHaveLength(1);
  });

  test('flags add to the file: --allow-unjudged alone accepts every gap, --allow-unjudged=IDS adds ids, --min-judged wins', () => {
    const env = {};
    expect(
      resolveConfig(
        { allowUnjudged: ['AUTH'], minJudged: 3 },
        parseRunArgs(['--allow-unjudged=RATE.PORTAL.LIMIT,WEBHOOKS', '--min-judged', '9']),
        env,
      ).acceptance,
    ).toEqual({ allowUnjudged: ['AUTH', 'RATE.PORTAL.LIMIT', 'WEBHOOKS'], minJudged: 9 });
    expect(resolveConfig({ allowUnjudged: ['AUTH'] }, parseRunArgs(['--allow-unjudged']), env).acceptance).toEqual({
      allowUnjudged: true,
    });
    expect(resolveConfig({}, {}, env).acceptance).toEqual({});
    expect(() => parseRunArgs(['--min-judged', 'most'])).toThrow(/--min-judged must be a whole number/);
  });
});
