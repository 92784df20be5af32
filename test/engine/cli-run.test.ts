/** End to end: `node bin/conform.js run` against small fake targets, as CI would call it. */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { execFile } from 'node:child_process';
import { mkdtemp, mkdir, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { startFakeBilling, FAKE_KEY } from './helpers/fake-billing.ts';
import { json, startFakeTarget, type FakeTarget } from './helpers/fake-target.ts';
import { handshakeSignature } from '../../src/contract/handshake.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SUITES = join(ROOT, 'test/engine/fixtures-suites');

interface Result {
  code: number;
  stdout: string;
  stderr: string;
}

function conform(args: string[], env: Record<string, string> = {}): Promise<Result> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [join(ROOT, 'bin/conform.js'), ...args],
      { cwd: ROOT, env: { ...process.env, NO_COLOR: '1', CONFORM_API_KEY: '', ...env }, timeout: 240_000 },
      (err, stdout, stderr) => {
        resolve({ code: err ? (typeof err.code === 'number' ? err.code : 99) : 0, stdout, stderr });
      },
    );
  });
}

async function allFiles(dir: string): Promise<string> {
  const names = await readdir(dir);
  return (await Promise.all(names.map((n) => readFile(join(dir, n), 'utf8')))).join('\n');
}

let good: FakeTarget;
let broken: FakeTarget;
let work: string;

beforeAll(async () => {
  [good, broken] = await Promise.all([
    startFakeBilling(),
    startFakeBilling(['drop-required-field', 'ok-instead-of-404']),
  ]);
  work = await mkdtemp(join(tmpdir(), 'conform-cli-'));
});
afterAll(async () => {
  await Promise.all([good.close(), broken.close(), rm(work, { recursive: true, force: true })]);
});

describe('conform run', () => {
  test('a conforming target missing a fixture: exit 3 naming the unjudged rule; --allow-unjudged accepts it (exit 0); progress lines, four report files, no key anywhere', async () => {
    const dir = join(work, 'good');
    const r = await conform(
      ['run', '--base-url', good.baseUrl, '--suites-dir', SUITES, '--report-dir', dir, '--seed', '7', '--verbose'],
      { CONFORM_API_KEY: FAKE_KEY },
    );
    expect(r.stderr).toBe('');
    expect(r.code).toBe(3);
    expect(r.stdout).toMatch(/^PASS demo > a customer reads back by id \[CUSTOMERS.GET.BY_ID\]/m);
    expect(r.stdout).toMatch(/^NOT JUDGED demo > needs a fixture the target cannot give/m);
    expect(r.stdout).toMatch(/not judged \(fixture\): fixture 'merchantWithoutWebhooks' unavailable/);
    expect(r.stdout).toMatch(
      /^UNJUDGED \(exit 3\): judged \d+ of \d+ rules \(\d+ passed, 0 failed; \d+ not judged\) — narrowed run: suites demo$/m,
    );
    expect(r.stdout).toMatch(/^FAMILY\s+PASSED\s+FAILED\s+NOT JUDGED\s+ENGINE ERROR$/m);
    expect(r.stdout).toMatch(
      /^ {2}\[missing fixture\] fixture 'merchantWithoutWebhooks' unavailable: .* — WEBHOOKS.404.NEVER_ENABLED$/m,
    );
    expect(r.stdout).toMatch(
      /^2 applicable rule\(s\) not judged and not accepted \(exit 3\): .* --allow-unjudged=WEBHOOKS.404.NEVER_ENABLED,CUSTOMERS.DELETE.UNBLOCKED /m,
    );
    expect(r.stdout).toMatch(/^UNJUDGED \(exit 3\): judged.*; \d+ scenarios in/m);
    const accepted = await conform(
      [
        'run',
        '--base-url',
        good.baseUrl,
        '--suites-dir',
        SUITES,
        '--report-dir',
        join(work, 'good-accepted'),
        '--allow-unjudged=WEBHOOKS,CUSTOMERS.DELETE.UNBLOCKED',
      ],
      { CONFORM_API_KEY: FAKE_KEY },
    );
    expect(accepted.code, accepted.stdout).toBe(0);
    expect(accepted.stdout).toMatch(/^\d+ rule\(s\) not judged, gap accepted by the run's settings$/m);
    expect(accepted.stdout).toMatch(/^PASSED \(exit 0\): judged/m);
    expect(r.stdout).not.toMatch(/\u001b\[/);
    expect((await readdir(dir)).sort()).toEqual(['junit.xml', 'report.html', 'report.json', 'summary.md']);
    const report = JSON.parse(await readFile(join(dir, 'report.json'), 'utf8'));
    expect(report.run).toMatchObject({ seed: 7, profile: 'quick', target: { baseUrl: good.baseUrl, bundled: false } });
    expect(report.summary).toMatchObject({
      exitCode: 3,
      gaps: { unaccepted: ['WEBHOOKS.404.NEVER_ENABLED', 'CUSTOMERS.DELETE.UNBLOCKED'] },
    });
    expect(
      report.rules
        .filter((x: { verdict: string }) => x.verdict === 'passed')
        .every((x: { judgements: number }) => x.judgements > 0),
    ).toBe(true);
    const ajv = new Ajv2020({ strict: true, allErrors: true });
    (addFormats as unknown as (a: Ajv2020) => void)(ajv);
    const validate = ajv.compile(JSON.parse(await readFile(join(ROOT, 'schemas/report.schema.json'), 'utf8')));
    expect(validate(report), JSON.stringify(validate.errors)).toBe(true);
    expect(`${r.stdout}${r.stderr}${await allFiles(dir)}`).not.toContain(FAKE_KEY);
  }, 180_000);

  test('a broken target: exit 1, naming the broken rules, with evidence and a redacted replay', async () => {
    const dir = join(work, 'broken');
    const r = await conform([
      'run',
      '--base-url',
      broken.baseUrl,
      '--api-key',
      FAKE_KEY,
      '--suites-dir',
      SUITES,
      '--report-dir',
      dir,
      '--plain',
    ]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^FAIL demo > a customer reads back by id/m);
    expect(r.stdout).toMatch(
      /\[SCHEMA.REQUIRED.PRESENT\] Required field validTaxAddress missing in getCustomer response/,
    );
    // The verdict, then the failed rules before anything else.
    const closing = r.stdout.slice(r.stdout.indexOf('FAILED (exit 1)'));
    expect(closing).toMatch(/^FAILED \(exit 1\): judged[^\n]*\n\nfailed: \d+ rule\(s\)\n/);
    expect(closing).toMatch(/^ {2}SCHEMA.REQUIRED.PRESENT: /m);
    expect(closing).toMatch(/^ {2}STATUS.404.UNKNOWN_RESOURCE: .*\n {6}GET \/v0\/customers\/\S+ → 200/m);
    const report = JSON.parse(await readFile(join(dir, 'report.json'), 'utf8'));
    const rule = report.rules.find((x: { id: string }) => x.id === 'STATUS.404.UNKNOWN_RESOURCE');
    expect(rule.verdict).toBe('failed');
    expect(rule.failures[0].exchange).toMatchObject({ method: 'GET', status: 200 });
    expect(rule.failures[0].replay).toContain('"Authorization: Bearer $CONFORM_API_KEY"');
    expect(await readFile(join(dir, 'summary.md'), 'utf8')).toContain('**STATUS.404.UNKNOWN_RESOURCE**');
    expect(`${r.stdout}${r.stderr}${await allFiles(dir)}`).not.toContain(FAKE_KEY);
  });

  test('nothing listening: exit 2 with one line', async () => {
    const r = await conform(
      ['run', '--base-url', 'http://127.0.0.1:1', '--suites-dir', SUITES, '--report-dir', join(work, 'none')],
      { CONFORM_API_KEY: FAKE_KEY },
    );
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/^conform run: cannot reach the target at http:\/\/127.0.0.1:1: connection refused/);
    expect(r.stderr).not.toContain(FAKE_KEY);
  });

  test('https:// at a plain-HTTP port: exit 2 with one line saying the target does not speak TLS', async () => {
    const url = good.baseUrl.replace('http:', 'https:');
    const r = await conform(['run', '--base-url', url, '--suites-dir', SUITES, '--report-dir', join(work, 'tls')], {
      CONFORM_API_KEY: FAKE_KEY,
    });
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toEqual([
      `conform run: cannot reach the target at ${url}: the target does not speak TLS (an https:// URL pointed at a plain-HTTP port? use http://, or the port that serves TLS)`,
    ]);
  });

  test('a rejected key: exit 2 with one line', async () => {
    const r = await conform([
      'run',
      '--base-url',
      good.baseUrl,
      '--api-key',
      'sk_wrong_key_0000000',
      '--suites-dir',
      SUITES,
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toMatch(/rejected the API key \(401/);
    expect(r.stderr).not.toContain('sk_wrong_key_0000000');
  });

  test.each([
    [['run', '--profile', 'deep'], /--profile must be quick or full/],
    [['run', '--seed', '-1'], /--seed must be an integer in 0\.\.2147483647, got '-1'/],
    [['run', '--seed', '2147483648'], /--seed must be an integer in 0\.\.2147483647/],
    [['faults', '--seed', 'x'], /--seed must be an integer in 0\.\.2147483647, got 'x'/],
    [['faults', '--profile', 'deep'], /--profile must be quick or full/],
    [['run', '--shard', '3/2'], /--shard must be i\/n/],
    [['run', '--bogus'], /unknown option '--bogus'/],
    [['run', '--base-url', 'http://x.example'], /no API key/],
    [
      ['run', '--suites-dir', SUITES, '--suite', 'nope', '--base-url', 'http://x.example'],
      /unknown suite 'nope'; available: demo/,
    ],
  ])('bad input %j: exit 2 with one line', async (args, message) => {
    const r = await conform(args as string[], args.includes('--suite') ? { CONFORM_API_KEY: 'sk_abcdefgh' } : {});
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(message as RegExp);
  });

  test('a config file with a literal key is refused; with env var names it works', async () => {
    const bad = join(work, 'bad.yaml');
    await writeFile(bad, `baseUrl: ${good.baseUrl}\napiKey: ${FAKE_KEY}\n`);
    const r = await conform(['run', '--config', bad, '--suites-dir', SUITES]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/literal API key/);
    expect(r.stderr).not.toContain(FAKE_KEY);
    const ok = join(work, 'ok.yaml');
    await writeFile(
      ok,
      `baseUrl: ${good.baseUrl}\napiKeyEnv: FAKE_BILLING_KEY\nsandbox: true\nprofile: quick\nreportDir: ok-reports\n`,
    );
    const r2 = await conform(['run', '--config', ok, '--suites-dir', SUITES, '--verbose'], {
      FAKE_BILLING_KEY: FAKE_KEY,
    });
    expect(r2.code).toBe(3);
    // sandbox: true allows the destructive scenario, which then runs.
    expect(r2.stdout).toMatch(/^PASS demo > a destructive scenario/m);
    expect(await readdir(join(work, 'ok-reports'))).toContain('report.json');
  }, 180_000);

  test('fixture strategy: a configured fixtures.file wins over a target signing the reference handshake; without it the handshake picks reference', async () => {
    const ext = await startFakeTarget((req, res) => {
      if (req.headers.authorization !== `Bearer ${FAKE_KEY}`)
        return json(res, 401, { error: 'unauthorized', message: 'no key' });
      const path = new URL(req.url!, 'http://x').pathname;
      if (req.method === 'POST' && path === '/v0/referenceHandshake') {
        const { challenge } = JSON.parse(req.bodyText);
        return json(res, 200, { challenge, signature: handshakeSignature(FAKE_KEY, challenge) });
      }
      if (path === '/v0/alerts') return json(res, 400, { error: 'bad_request', message: 'resourceId is required' });
      return json(res, 404, { error: 'not_found', message: 'no such route' });
    });
    try {
      const withFile = join(work, 'with-file.yaml');
      await writeFile(
        withFile,
        `baseUrl: ${ext.baseUrl}\napiKeyEnv: FAKE_BILLING_KEY\nfixtures:\n  file: ${join(ROOT, 'test/engine/fixtures/samples/minimal.fixtures.yaml')}\n`,
      );
      const [fileRun, probeRun] = await Promise.all([
        conform(['run', '--config', withFile, '--suites-dir', SUITES, '--report-dir', join(work, 'fx-file')], {
          FAKE_BILLING_KEY: FAKE_KEY,
        }),
        conform(['run', '--base-url', ext.baseUrl, '--suites-dir', SUITES, '--report-dir', join(work, 'fx-probe')], {
          CONFORM_API_KEY: FAKE_KEY,
        }),
      ]);
      expect(fileRun.stdout).toMatch(/ · fixtures file · /);
      expect(fileRun.code).not.toBe(2);
      expect(JSON.parse(await readFile(join(work, 'fx-file', 'report.json'), 'utf8')).run.fixtures.strategy).toBe(
        'file',
      );
      expect(probeRun.stdout).toMatch(/ · fixtures reference · /);
      expect(JSON.parse(await readFile(join(work, 'fx-probe', 'report.json'), 'utf8')).run.fixtures.strategy).toBe(
        'reference',
      );
      // The probes send no documented request beyond the base URL's two GETs (an unknown customer, alerts).
      expect(ext.requests.filter((r) => r.method === 'GET' && r.url.startsWith('/v0/prices'))).toEqual([]);
    } finally {
      await ext.close();
    }
  }, 180_000);

  test('an empty suites folder: exit 2, never a fake result', async () => {
    const empty = join(work, 'empty-suites');
    await mkdir(empty, { recursive: true });
    const r = await conform(['run', '--base-url', good.baseUrl, '--api-key', FAKE_KEY, '--suites-dir', empty]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/holds no \*\.suite\.ts files yet/);
  });

  test('shards run separately and merge into one report', async () => {
    const s1 = join(work, 'shard1');
    const s2 = join(work, 'shard2');
    const [a, b] = await Promise.all([
      conform([
        'run',
        '--base-url',
        broken.baseUrl,
        '--api-key',
        FAKE_KEY,
        '--suites-dir',
        SUITES,
        '--shard',
        '1/2',
        '--report-dir',
        s1,
      ]),
      conform([
        'run',
        '--base-url',
        broken.baseUrl,
        '--api-key',
        FAKE_KEY,
        '--suites-dir',
        SUITES,
        '--shard',
        '2/2',
        '--report-dir',
        s2,
      ]),
    ]);
    // One suite file: one shard runs it, the other has nothing to do: nothing judged is never a pass.
    expect([a.code, b.code].sort(), `${a.stdout}${a.stderr}\n---\n${b.stdout}${b.stderr}`).toEqual([1, 3]);
    expect(`${a.stdout}${b.stdout}`).toMatch(/^UNJUDGED \(exit 3\): judged 0 of \d+ rules/m);
    expect(`${a.stdout}${b.stdout}`).toMatch(
      /^nothing was judged: the selection \(suites demo, shard 2\/2\) holds no scenario/m,
    );
    const out = join(work, 'merged');
    const m = await conform(['merge', s1, s2, '--out', out]);
    expect(m.code).toBe(1);
    expect((await readdir(out)).sort()).toEqual(['junit.xml', 'report.html', 'report.json', 'summary.md']);
    const merged = JSON.parse(await readFile(join(out, 'report.json'), 'utf8'));
    expect(merged.run.mergedFrom).toEqual([s1, s2]);
    expect(merged.rules.find((x: { id: string }) => x.id === 'SCHEMA.REQUIRED.PRESENT').verdict).toBe('failed');
    expect(merged.summary.headline).toMatch(/^judged [1-9]\d* of \d+ rules/);
    expect(m.stdout).toMatch(/^FAILED \(exit 1\): judged [1-9]\d* of \d+ rules/m);
  }, 180_000);

  test('--help on run and merge', async () => {
    const r = await conform(['run', '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/--shard i\/n/);
    // The key is better passed in the environment than on a command line.
    expect(r.stdout).toMatch(
      /--api-key KEY .*\$CONFORM_API_KEY[\s\S]*prefer the variable: a key on the command line is visible/,
    );
    const m = await conform(['merge', '--help']);
    expect(m.code).toBe(0);
    expect(m.stdout).toMatch(/--out DIR/);
  });
});

describe('scenario API through a run', () => {
  test('retry, not-judged ends, soft checks, engine errors and hangs land in the report as they should', async () => {
    const dir = join(work, 'features');
    const r = await conform([
      'run',
      '--base-url',
      good.baseUrl,
      '--api-key',
      FAKE_KEY,
      '--suites-dir',
      join(SUITES, 'features'),
      '--report-dir',
      dir,
      '--verbose',
    ]);
    expect(r.code).toBe(1);
    const report = JSON.parse(await readFile(join(dir, 'report.json'), 'utf8'));
    const sc = Object.fromEntries(report.scenarios.map((s: { title: string }) => [s.title, s]));
    const rule = Object.fromEntries(report.rules.map((x: { id: string }) => [x.id, x]));
    expect(sc['rate-limit scenarios send once and see the 429']).toMatchObject({ state: 'passed', exchanges: 1 });
    expect(sc['other scenarios obey the retry rule: five attempts']).toMatchObject({ state: 'passed', exchanges: 5 });
    expect(sc['soft checks carry on and notes are kept']).toMatchObject({
      state: 'failed',
      notes: ['an advisory note'],
      findings: 1,
    });
    expect(rule['CUSTOMERS.TAX_ID.NULL_CLEARS'].verdict).toBe('failed');
    // The part the scenario judged passed; the rule's other part (unknown-404) no scenario here judged.
    expect(rule['CUSTOMERS.GET.BY_ID'].parts.find((p: { id: string }) => p.id === 'answers-resource').verdict).toBe(
      'passed',
    );
    expect(rule['CUSTOMERS.GET.BY_ID'].verdict).toBe('not_judged');
    expect(sc['a not-judged end names its reason and category']).toMatchObject({
      state: 'skipped',
      skipReason: 'the target has no wallets',
    });
    expect(rule['ALERTS.LIST.PAGINATED']).toMatchObject({
      verdict: 'not_judged',
      reasons: ['the target has no wallets'],
      notJudged: [{ category: 'fixture' }],
    });
    expect(sc["an unexpected error is an engine error, never the target's failure"]).toMatchObject({
      state: 'error',
      error: expect.stringMatching(/deeper|undefined/),
    });
    expect(rule['PRICES.GET.BY_ID']).toMatchObject({
      verdict: 'engine_error',
      failureCount: 0,
      engineErrors: [{ stack: expect.stringContaining('api.suite.ts') }],
    });
    expect(rule['PRODUCTS.CREATE.OBJECT']).toMatchObject({
      verdict: 'not_judged',
      reasons: ["scenario 'citing a rule without judging it passes nothing' ended without judging it"],
    });
    expect(rule['SCHEDULES.OWNER.EXACTLY_ONE'].verdict).toBe('passed');
    expect(rule['SCHEDULES.END_DATE.PRESENT']).toMatchObject({
      verdict: 'not_judged',
      notJudged: [{ reason: 'endDate defaulting is not shown on this target', category: 'target' }],
    });
    // No answer in time is the target's slowness, not a broken rule; a reset connection is no answer at all.
    expect(rule['PAYMENTS.GET.BY_ID']).toMatchObject({ verdict: 'not_judged', failureCount: 0 });
    for (const n of rule['PAYMENTS.GET.BY_ID'].notJudged)
      expect(n).toMatchObject({
        category: 'slow',
        reason: expect.stringMatching(
          /^target too slow: GET \/v0\/customers\/cus_demo1: no complete response within 300 ms \(timeout\); --request-timeout raises the limit \(p50 /,
        ),
      });
    expect(rule['WALLETS.AUTO_TOPUP.SHAPE'].verdict).toBe('failed');
    expect(rule['WALLETS.AUTO_TOPUP.SHAPE'].failures.map((f: { title: string }) => f.title)).toContain(
      'No usable response',
    );
    expect(rule['MERCHANTS.CREATE.OBJECT']).toMatchObject({
      verdict: 'not_judged',
      reasons: ['runs in the full profile only (--profile full)'],
      notJudged: [{ category: 'profile' }],
    });
    expect(r.stdout).toMatch(
      /^engine errors \(the tool broke, not the target\): \d+ rule\(s\)\n {2}PRICES.GET.BY_ID: /m,
    );
    expect(rule['RATE.RETRY_AFTER.ON_429'].verdict).toBe('passed');
    expect(r.stdout).toMatch(/^PASS api > rate-limit scenarios send once and see the 429/m);
  });

  test('an engine error alone exits 2', async () => {
    const only = join(work, 'engine-error-suites');
    await mkdir(only, { recursive: true });
    await writeFile(
      join(only, 'crash.suite.ts'),
      `import { scenario } from '${join(ROOT, 'src/engine/scenario/index.ts')}';\nscenario(['PRICES.GET.BY_ID'], 'the tool breaks', async (t) => { const res = await t.http.get('/v0/customers/cus_demo1'); (res.body as any).missing.deeper; });\n`,
    );
    const r = await conform([
      'run',
      '--base-url',
      good.baseUrl,
      '--api-key',
      FAKE_KEY,
      '--suites-dir',
      only,
      '--report-dir',
      join(work, 'engine-error'),
      '--allow-unjudged',
    ]);
    expect(r.code, r.stdout).toBe(2);
    expect(r.stdout).toMatch(
      /^ERROR \(exit 2\): judged \d+ of \d+ rules \(\d+ passed, 0 failed; \d+ not judged, 1 engine error\)/m,
    );
  });

  test('--fail-on-skip: a run that would pass exits 3 when a scenario ended early (not for the profile), naming it and why', async () => {
    const args = [
      'run',
      '--base-url',
      good.baseUrl,
      '--api-key',
      FAKE_KEY,
      '--suites-dir',
      join(SUITES, 'skips'),
      '--allow-unjudged',
    ];
    const [plain, strict] = await Promise.all([
      conform([...args, '--report-dir', join(work, 'skips')]),
      conform([...args, '--report-dir', join(work, 'skips-strict'), '--fail-on-skip']),
    ]);
    expect(plain.code, plain.stdout).toBe(0);
    expect(strict.code).toBe(3);
    expect(strict.stdout).toMatch(
      /--fail-on-skip: 1 scenario\(s\) ended early \(exit 3\): skips > a scenario the target gives nothing to judge: the target pages nothing/,
    );
    // Every report says what the process returns.
    const report = JSON.parse(await readFile(join(work, 'skips-strict', 'report.json'), 'utf8'));
    expect(report.summary).toMatchObject({ exitCode: 3, verdict: 'unjudged' });
    expect(await readFile(join(work, 'skips-strict', 'summary.md'), 'utf8')).toMatch(/UNJUDGED \(exit 3\)/);
    expect(await readFile(join(work, 'skips-strict', 'junit.xml'), 'utf8')).toMatch(/type="UnjudgedRules"/);
  }, 180_000);
});
