/**
 * `conform fixtures init` and `conform fixtures check`, as a user runs them: a skeleton
 * that is a valid fixtures file once uncommented, and a check of a seeded file against a
 * target that says what is left and how many runs.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { validateFixturesFile } from '../../src/engine/fixtures/file/document.ts';
import { FILE_KEYS } from '../../src/engine/fixtures/methods.ts';
import { ReferenceFixtures } from '../../src/engine/fixtures/reference/strategy.ts';
import { HttpClient } from '../../src/engine/http/index.ts';
import { startReferenceServer, type RunningReference } from '../../src/reference/index.ts';
import { ROOT } from './harness.ts';

let ref: RunningReference;
let work: string;
let seed: ReferenceFixtures;
beforeAll(async () => {
  [ref, work] = await Promise.all([
    startReferenceServer({ host: '127.0.0.1', port: 0, database: 'memory', apiKey: 'sk_test_fixtures_cli_0123' }),
    mkdtemp(join(tmpdir(), 'conform-fixtures-cli-')),
  ]);
  seed = new ReferenceFixtures(new HttpClient({ baseUrl: ref.baseUrl, apiKey: ref.apiKey }));
}, 60_000);
afterAll(async () => {
  await ref?.close();
  if (work) await rm(work, { recursive: true, force: true });
});

function conform(
  args: string[],
  env: NodeJS.ProcessEnv = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const proc = spawn(process.execPath, [join(ROOT, 'bin/conform.js'), 'fixtures', ...args], {
    cwd: work,
    env: { ...process.env, NO_COLOR: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  proc.stdout!.on('data', (c) => (stdout += c));
  proc.stderr!.on('data', (c) => (stderr += c));
  return new Promise((resolve) => proc.once('exit', (code) => resolve({ code, stdout, stderr })));
}

/** What a user does with the skeleton: remove the `# ` in front of the key lines. */
const uncomment = (text: string) =>
  text
    .split('\n')
    .map((l) => (/^# ( *)([A-Za-z.]+:|- )/.test(l) ? l.slice(2) : l))
    .join('\n');

describe('conform fixtures', () => {
  test('init writes every catalog key commented out, with its minimum count for --runs, a schema line, and a file that validates once uncommented', async () => {
    const r = await conform(['init', '--runs', '2']);
    expect(r.code, r.stderr).toBe(0);
    const text = await readFile(join(work, 'conform.fixtures.yaml'), 'utf8');
    const schema = /^# yaml-language-server: \$schema=(\S+)$/m.exec(text.split('\n')[0])?.[1];
    expect(schema).toBeDefined();
    expect(join(work, schema!)).toBe(join(ROOT, 'schemas/fixtures.schema.json'));
    for (const f of FILE_KEYS) expect(text, f.key).toContain(`# ${f.what}`);
    // Two runs use up 4 paid invoices each: eight entries.
    expect(text).toMatch(/paidInvoice:\n(#   - .*\n){8}\n/);
    expect(text).toMatch(
      /used by: contract, isolation, refunds-payments; at least 8 entries for 2 runs; 4 used up per run \(by destructive scenarios\)/,
    );
    const { parse } = await import('yaml');
    expect(validateFixturesFile(parse(text), 'skeleton')).toEqual({ version: 1 });
    const full = validateFixturesFile(parse(uncomment(text)), 'uncommented skeleton') as Record<string, unknown>;
    expect(Object.keys(full)).toEqual(
      expect.arrayContaining([
        'merchantId',
        'migration',
        'migrationConflict',
        'readPaths',
        'paidInvoice',
        'webhookEndpoints',
      ]),
    );
    const again = await conform(['init']);
    expect([again.code, again.stderr.trim()]).toEqual([
      2,
      `conform fixtures: ${join(work, 'conform.fixtures.yaml')} exists; pass --force to overwrite it`,
    ]);
    expect((await conform(['init', '--runs', '0'])).code).toBe(2);
  });

  test('check: what is left per key, entries found used up recorded, keys tried, runs left; exit 1 once a run would be short', async () => {
    const [c1, c2, gone] = [await seed.customer(), await seed.customer(), await seed.customer()];
    expect(
      (
        await fetch(`${ref.baseUrl}/v0/customers/${gone.customerId}`, {
          method: 'DELETE',
          headers: { authorization: `Bearer ${ref.apiKey}` },
        })
      ).status,
    ).toBeLessThan(300);
    const invoices = [
      await seed.paidInvoice(),
      await seed.paidInvoice(),
      await seed.paidInvoice(),
      await seed.paidInvoice(),
    ];
    const second = await seed.secondKeySameMerchant();
    const file = join(work, 'check.fixtures.yaml');
    const prices = await seed.prices();
    await writeFile(
      file,
      stringify({
        merchantId: ref.merchantId,
        customer: [c1.customerId, c2.customerId, gone.customerId],
        paidInvoice: invoices,
        secondKeySameMerchant: { keyEnv: 'CHECK_SECOND_KEY' },
        revokedKey: { keyEnv: 'CHECK_REVOKED_KEY' },
        prices: { ...prices, legacy: [...prices.legacy, 'price_conformnosuchlegacy'] },
      }),
    );
    await writeFile(
      join(work, 'conform.config.yaml'),
      stringify({
        baseUrl: ref.baseUrl,
        apiKeyEnv: 'CHECK_API_KEY',
        sandbox: true,
        fixtures: { strategy: 'file', file: './check.fixtures.yaml' },
      }),
    );
    const env = { CHECK_API_KEY: ref.apiKey, CHECK_SECOND_KEY: second.key, CHECK_REVOKED_KEY: second.key };
    const r = await conform(['check'], env);
    expect(r.stdout).not.toContain(ref.apiKey);
    expect(r.stdout).not.toContain(second.key);
    const row = (key: string) =>
      r.stdout
        .split('\n')
        .find((l) => l.startsWith(`${key} `))
        ?.split(/\s{2,}/);
    expect(row('customer')?.slice(0, 6)).toEqual(['customer', '3', '1', '2', '-', 'any']);
    expect(row('customer')?.[6]).toContain(`${gone.customerId} GET /v0/customers/${gone.customerId} answered 404`);
    expect(row('paidInvoice')).toEqual(['paidInvoice', '4', '0', '4', '4', '1', 'no (the ledger alone knows)']);
    expect(r.stdout).toMatch(
      /problem: revokedKey: CHECK_REVOKED_KEY is not refused \(GET \/v0\/customers\/cus_\w+ answered 404, 401 expected for a revoked key\)/,
    );
    expect(r.stdout).toMatch(/problem: prices: GET \/v0\/prices\/price_conformnosuchlegacy answered 404/);
    expect(r.stdout).not.toMatch(/problem: merchantId/);
    expect(r.stdout).toMatch(/runs left: 1 \(bounded by paidInvoice;/);
    expect(r.stdout).toMatch(/not in the file \(their scenarios are not judged\): .*migration\.floating/);
    expect(r.code).toBe(1);
    const ledger = (await readFile(join(work, 'check.fixtures.used.jsonl'), 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(ledger).toEqual([
      expect.objectContaining({
        key: 'customer',
        id: gone.customerId,
        reason: expect.stringMatching(/^found used up: /),
      }),
    ]);

    // Without the revoked key (a valid file otherwise), one run left: exit 0; once the ledger records two invoices used, none: exit 1.
    await writeFile(
      file,
      stringify({
        merchantId: ref.merchantId,
        customer: [c1.customerId],
        paidInvoice: invoices,
        secondKeySameMerchant: { keyEnv: 'CHECK_SECOND_KEY' },
      }),
    );
    expect((await conform(['check'], env)).code).toBe(0);
    await writeFile(
      join(work, 'check.fixtures.used.jsonl'),
      invoices
        .slice(0, 2)
        .map((i) =>
          JSON.stringify({
            key: 'paidInvoice',
            id: i.invoiceId,
            reason: 'handed to a scenario as single-use',
            at: new Date().toISOString(),
          }),
        )
        .join('\n') + '\n',
    );
    const short = await conform(['check'], env);
    expect(short.stdout).toMatch(/runs left: 0 \(bounded by paidInvoice;/);
    expect(short.code).toBe(1);
  });

  test('check without a file, or against an unreachable target, exits 2 with one line', async () => {
    await rm(join(work, 'conform.config.yaml'), { force: true });
    const none = await conform(['check', '--base-url', ref.baseUrl], { CONFORM_API_KEY: ref.apiKey });
    expect([none.code, none.stderr.trim()]).toEqual([
      2,
      'conform fixtures: no fixtures file: pass --file, or set fixtures.file in conform.config.yaml',
    ]);
    const away = await conform(
      ['check', '--file', join(work, 'check.fixtures.yaml'), '--base-url', 'http://127.0.0.1:9'],
      { CONFORM_API_KEY: 'sk_test_nothing_there' },
    );
    expect(away.code).toBe(2);
    expect(away.stderr).toMatch(/^conform fixtures: cannot reach the target at http:\/\/127\.0\.0\.1:9: /);
    expect(existsSync(join(work, 'conform.fixtures.yaml'))).toBe(true);
  });
});
