/**
 * A team's first hour, as a new user walks it, from the packed tarball: a fresh `npm init -y`
 * repository (CommonJS), `npm install --save-dev` of the tarball (no engine warning),
 * `billing-conform init` (the skeleton: `fixtures check` names every method not provided yet,
 * and a first run leaves their scenarios not judged, exit 3, failing nothing), then `init
 * --example` and the config pointed at the worked example, the reference from the installed
 * package as the sandbox (`conform serve`: the back office on its full port, the suites on its
 * documented port): `fixtures check` all ready, two runs green, then a proxy that drops a
 * required field from the customer answers turns the gate red and the replay command in
 * report.json shows the field missing again. Also from that install: fixtures modules of every
 * extension load in a CommonJS and an ES-module repository, and the "Unlocks:" comments of the
 * example (the lists the skeleton and the docs show) are what the two runs show.
 *
 * The install takes packages from npm's cache where it can (--prefer-offline); the registry
 * is asked only for what the cache lacks.
 */
import { once } from 'node:events';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { annotatedUnlocks, unlocksFromReports } from '../../scripts/fixture-unlocks.ts';
import { expectGreen, run, serve, type GateReport, type Result, type Served } from './support.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const NPX = process.platform === 'win32' ? 'npx.cmd' : 'npx';
const KEY = 'sk_test_first_hour_0123456789';
const CI = { CI: 'true', CONFORM_API_KEY: '' };

let work: string;
let app: string;
let tarball: string;
let installed: Result;
let target: Served;
let proxy: http.Server | undefined;
/** What the team exported in its shell: the sandbox's key, the back office. */
let shell: Record<string, string>;
const reports: GateReport[] = [];
const t0 = Date.now();
const elapsed = () => `${Math.round((Date.now() - t0) / 1000)} s`;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'conform-first-hour-'));
  const pack = await run(NPM, ['pack', '--json', '--pack-destination', work], ROOT);
  expect(pack.code, pack.stderr).toBe(0);
  tarball = join(work, JSON.parse(pack.stdout.slice(pack.stdout.search(/^\[/m)))[0].filename);
  app = join(work, 'app');
  await mkdir(app);
  const init = await run(NPM, ['init', '-y'], app);
  expect(init.code, init.stderr).toBe(0);
  installed = await run(
    NPM,
    ['install', '--save-dev', tarball, '--prefer-offline', '--no-audit', '--no-fund', '--loglevel', 'warn'],
    app,
  );
  expect(installed.code, installed.stderr).toBe(0);
  target = await serve([join(app, 'node_modules', '.bin', 'billing-conform')], app, KEY);
  shell = { BILLING_API_KEY: KEY, CONFORM_ADMIN_URL: target.adminUrl, CONFORM_ADMIN_KEY: KEY };
  console.log(`packed, installed and serving: ${elapsed()}`);
}, 300_000);

afterAll(async () => {
  proxy?.close();
  await target?.stop();
  if (work) await rm(work, { recursive: true, force: true });
});

/** `npx billing-conform ...` in the team's repository. */
const cli = (args: string[], env: Record<string, string> = {}, cwd = app) =>
  run(NPX, ['billing-conform', ...args], cwd, { ...CI, ...env });

const readReport = async (dir: string) =>
  JSON.parse(await readFile(join(app, dir, 'report.json'), 'utf8')) as GateReport;

/** A proxy in front of `to` that drops `validTaxAddress` (required) from every customer it answers. */
async function fieldDroppingProxy(to: string): Promise<string> {
  const upstream = new URL(to);
  proxy = http.createServer((req, res) => {
    const up = http.request(
      { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers },
      async (answer) => {
        const chunks: Buffer[] = [];
        for await (const c of answer) chunks.push(c as Buffer);
        let body = Buffer.concat(chunks);
        if (/^\/v0\/customers\/[^/?]+$/.test((req.url ?? '').split('?')[0]) && body.length) {
          const json = JSON.parse(body.toString()) as Record<string, unknown>;
          delete json.validTaxAddress;
          body = Buffer.from(JSON.stringify(json));
        }
        res.writeHead(answer.statusCode ?? 502, { ...answer.headers, 'content-length': String(body.length) });
        res.end(body);
      },
    );
    up.on('error', () => res.writeHead(502).end());
    req.pipe(up);
  });
  proxy.listen(0, '127.0.0.1');
  await once(proxy, 'listening');
  return `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
}

/** Status line and JSON body of `curl -i` output. */
function answerOf(out: string): { status: number; body: Record<string, unknown> } {
  const [head, ...rest] = out.split(/\r?\n\r?\n/);
  return { status: Number(/^HTTP\/\S+ (\d{3})/.exec(head)?.[1]), body: JSON.parse(rest.join('\n\n')) };
}

describe('a new user’s first hour, from the packed tarball', () => {
  it('installs into an npm init -y repository with no engine warning (cookie stays below 2)', async () => {
    expect(`${installed.stdout}${installed.stderr}`).not.toMatch(/EBADENGINE|Unsupported engine/);
    const cookie = JSON.parse(await readFile(join(app, 'node_modules/cookie/package.json'), 'utf8'));
    expect(cookie.version).toMatch(/^1\./);
    expect(JSON.parse(await readFile(join(app, 'package.json'), 'utf8')).type).toBe('commonjs');
  });

  it('init writes the skeleton: fixtures check names every method not provided yet, a first run fails nothing (exit 3)', async () => {
    const init = await cli(['init', '--base-url', target.baseUrl]);
    expect(init.code, init.stderr).toBe(0);
    expect(init.stdout).toContain('npx billing-conform fixtures check');
    expect(init.stdout).toContain('npx billing-conform run');
    const check = await cli(['fixtures', 'check'], shell);
    expect(check.code, check.stdout + check.stderr).toBe(1);
    expect(check.stdout).toMatch(/^0 ready, \d+ not provided, 0 broken$/m);
    expect(check.stdout).toMatch(/^not provided {2}customer +not provided yet \(unlocks \d+ rules: /m);
    const first = await cli(['run', '--suite', 'customers', '--report-dir', 'reports/skeleton'], shell);
    console.log(`skeleton run: exit ${first.code}, ${elapsed()}`);
    expect(first.code, first.stdout.slice(-1500)).toBe(3);
    const report = await readReport('reports/skeleton');
    expect(report.rules.filter((r) => r.verdict === 'failed').map((r) => r.id)).toEqual([]);
    expect(JSON.stringify(report.rules)).toContain('not provided yet');
  }, 300_000);

  it('init --example, two runs green against the sandbox, then a field-dropping proxy turns the gate red and the replay shows it', async () => {
    const example = await cli(['init', '--example']);
    expect(example.code, example.stderr).toBe(0);
    expect(await readFile(join(app, 'conform.fixtures.example.mts'), 'utf8')).toBe(
      await readFile(join(app, 'node_modules/billing-conform/examples/sandbox/conform.fixtures.ts'), 'utf8'),
    );
    // The team points its config at the worked example, as the first-hour section of the README says.
    const config = join(app, 'conform.config.yaml');
    await writeFile(
      config,
      (await readFile(config, 'utf8')).replace('./conform.fixtures.mts', './conform.fixtures.example.mts'),
    );
    const check = await cli(['fixtures', 'check'], shell);
    expect(check.code, check.stdout + check.stderr).toBe(0);
    expect(check.stdout).toMatch(/^\d+ ready, 0 not provided, 0 broken$/m);
    for (const n of [1, 2]) {
      const r = await cli(['run', '--report-dir', `reports/run-${n}`], shell);
      console.log(`run ${n}: exit ${r.code}, ${elapsed()}`);
      const report = await readReport(`reports/run-${n}`);
      reports.push(report);
      expectGreen(report, r.code, `run ${n}`, `${r.stdout}${r.stderr}`);
      expect(r.stdout).toMatch(/^billing-conform run \S+: http:\/\/127\.0\.0\.1:\d+/m);
      expect(`${r.stdout}${r.stderr}`).not.toContain(KEY);
    }

    // Red: a normal run (no setting to keep anything): what a failure names is kept, so its replay finds it.
    const via = await fieldDroppingProxy(target.baseUrl);
    const red = await cli(['run', '--base-url', via, '--suite', 'customers', '--report-dir', 'reports/red'], shell);
    console.log(`red run: exit ${red.code}, ${elapsed()}`);
    expect(red.code, red.stdout.slice(-1500)).toBe(1);
    const report = await readReport('reports/red');
    const failed = report.rules.filter((r) => r.verdict === 'failed').map((r) => r.id);
    expect(failed).toContain('CUSTOMERS.VALID_TAX_ADDRESS.PRESENT');
    expect((report as { kept?: { module?: boolean } }).kept?.module, 'the module was asked to keep what it made').toBe(
      true,
    );
    // Every output names the field that went missing, and the console opens its closing block with the verdict.
    const closing = red.stdout.slice(red.stdout.indexOf('FAILED (exit 1)'));
    expect(closing.split('\n')[0]).toMatch(/^FAILED \(exit 1\): judged/);
    expect(closing.slice(0, closing.indexOf('\n\n', closing.indexOf('failed:')))).toContain('validTaxAddress');
    const summary = await readFile(join(app, 'reports/red/summary.md'), 'utf8');
    expect(summary).toContain('CUSTOMERS.VALID_TAX_ADDRESS.PRESENT');
    expect(summary).toContain('validTaxAddress');
    const junit = await readFile(join(app, 'reports/red/junit.xml'), 'utf8');
    expect(junit).toMatch(/<failure message="[^"]*validTaxAddress/);
    // No scenario line says FAIL without naming the rule that failed in it.
    for (const line of red.stdout.split('\n').filter((l) => l.startsWith('FAIL ')))
      expect(line, line).toMatch(/\[failed: [A-Z_.#a-z-]+/);

    // The replay of the failing read, sourced as a developer would: in a clean shell, the variables it names set.
    const failure = report.rules
      .find((r) => r.id === 'CUSTOMERS.VALID_TAX_ADDRESS.PRESENT')!
      .failures.find((f) => f.exchange?.method === 'GET' && f.replay)!;
    const script = failure.replay!;
    expect(script).not.toContain('***');
    expect(script).not.toContain(KEY);
    const named = [...new Set([...script.matchAll(/\$\{?([A-Z_][A-Z0-9_]*)/g)].map((m) => m[1]))];
    expect(named.length).toBeGreaterThan(0);
    for (const v of named) expect(Object.keys(shell), `the replay names $${v}, which the team never set`).toContain(v);
    // A variable the shell must be given says where its key comes from.
    for (const [, v, why] of script.matchAll(/\$\{([A-Z_][A-Z0-9_]*):\?([^}]*)\}/g)) expect(why.trim(), v).not.toBe('');
    const sourced = (text: string) =>
      writeFile(join(app, 'replay.sh'), `${text}\n`).then(() =>
        run(
          'env',
          ['-i', `PATH=${process.env.PATH}`, ...named.map((v) => `${v}=${shell[v]}`), 'bash', '-c', '. ./replay.sh'],
          app,
        ),
      );
    const replayed = await sourced(script);
    const seen = answerOf(replayed.stdout);
    expect(seen.status, replayed.stderr).toBe(200);
    expect(seen.body.object).toBe('customer');
    expect(seen.body).not.toHaveProperty('validTaxAddress');
    // The same request straight to the sandbox: the field is there, so the proxy is what the gate caught.
    const direct = await sourced(script.split(via).join(target.baseUrl));
    expect(answerOf(direct.stdout).body).toHaveProperty('validTaxAddress');
  }, 900_000);

  it('installs on a clean runner from a committed vendored tarball: a fresh clone, npm ci, an empty npm cache', async () => {
    const repo = join(work, 'team-repo');
    await mkdir(join(repo, 'vendor'), { recursive: true });
    const git = (args: string[], cwd = repo) => run('git', args, cwd, { GIT_TERMINAL_PROMPT: '0' });
    expect((await git(['init', '-q'])).code).toBe(0);
    await writeFile(join(repo, 'package.json'), JSON.stringify({ name: 'team-repo', private: true }, null, 2));
    await writeFile(join(repo, '.gitignore'), 'node_modules/\n*.tgz\n!vendor/*.tgz\nreports/\n');
    const vendored = join(repo, 'vendor', tarball.split('/').pop()!);
    await writeFile(vendored, await readFile(tarball));
    const add = await run(
      NPM,
      ['install', '--save-dev', `./vendor/${tarball.split('/').pop()}`, '--prefer-offline', '--no-audit', '--no-fund'],
      repo,
    );
    expect(add.code, add.stderr).toBe(0);
    expect(JSON.parse(await readFile(join(repo, 'package.json'), 'utf8')).devDependencies['billing-conform']).toMatch(
      /^file:vendor\//,
    );
    await git(['add', '-A']);
    expect((await git(['-c', 'user.email=t@example.com', '-c', 'user.name=t', 'commit', '-qm', 'gate'])).code).toBe(0);
    const clone = join(work, 'runner-clone');
    expect((await git(['clone', '-q', repo, clone], work)).code).toBe(0);
    const cache = await mkdtemp(join(work, 'empty-cache-'));
    const ci = await run(NPM, ['ci', '--cache', cache, '--no-audit', '--no-fund', '--loglevel', 'warn'], clone);
    console.log(`clean clone, npm ci with an empty cache: exit ${ci.code}, ${elapsed()}`);
    expect(ci.code, ci.stderr).toBe(0);
    expect(`${ci.stdout}${ci.stderr}`).not.toMatch(/billing-conform@[^ ]* \((pre|post)?install|prepare/);
    const version = await run(join(clone, 'node_modules', '.bin', 'billing-conform'), ['--version'], clone);
    expect(version.code, version.stderr).toBe(0);
  }, 600_000);

  it('the worked example unlocks, per fixture method, the contract rules whose scenarios asked for it in the two runs', async () => {
    expect(reports.length).toBe(2);
    const annotated = annotatedUnlocks(await readFile(join(app, 'conform.fixtures.example.mts'), 'utf8'));
    expect(annotated, '`npm run fixtures:unlocks` rewrites them from two runs of the example').toEqual(
      unlocksFromReports(reports),
    );
  });

  it('fixtures modules load in a CommonJS and an ES-module repository: .ts, .mts, .cts, .js, .mjs', async () => {
    // merchant() through the back office; the products suite asks for it and nothing else.
    const body = `{
  async merchant() {
    const ex = await ctx.http.with({ baseUrl: process.env.CONFORM_ADMIN_URL }).post('/v0/apiKeys', { name: 'first hour' });
    if (ex.status !== 201) throw new FixtureUnavailable('merchant', 'the back office answered ' + ex.status);
    ctx.registerSecret(ex.body.secret);
    return { merchantId: ex.body.merchantId };
  },
}`;
    const esm = (typed: boolean) =>
      `import { FixtureUnavailable${typed ? ', type FixtureModuleContext' : ''} } from 'billing-conform/fixtures';\n` +
      `export default (ctx${typed ? ': FixtureModuleContext' : ''}) => (${typed ? body.replace(/ex\.body\./g, '(ex.body as any).') : body});\n`;
    const cjs = `const { FixtureUnavailable } = require('billing-conform/fixtures');\nmodule.exports = (ctx) => (${body});\n`;
    const hosts = { commonjs: app, module: join(app, 'esm-host') };
    await mkdir(hosts.module, { recursive: true });
    await writeFile(
      join(hosts.module, 'package.json'),
      JSON.stringify({ name: 'esm-host', private: true, type: 'module' }),
    );
    const cases: Array<{ host: keyof typeof hosts; file: string }> = [];
    for (const host of ['commonjs', 'module'] as const)
      for (const ext of ['ts', 'mts', 'cts', 'js', 'mjs']) {
        const file = `host.fixtures.${ext}`;
        const text = ext === 'js' && host === 'commonjs' ? cjs : esm(/ts$/.test(ext));
        await writeFile(join(hosts[host], file), text);
        await writeFile(
          join(hosts[host], `${ext}.config.yaml`),
          `apiKeyEnv: BILLING_API_KEY\nfixtures:\n  strategy: module\n  module: ./${file}\n`,
        );
        cases.push({ host, file });
      }
    const outcomes: string[] = [];
    for (let i = 0; i < cases.length; i += 2)
      await Promise.all(
        cases.slice(i, i + 2).map(async ({ host, file }) => {
          const dir = join(hosts[host], `reports-${file}`);
          const ext = file.split('.').pop();
          // The installed link itself (npx adds nothing here but time), from the host's own folder.
          const r = await run(
            join(app, 'node_modules', '.bin', 'billing-conform'),
            [
              'run',
              '--config',
              `${ext}.config.yaml`,
              '--base-url',
              target.baseUrl,
              '--suite',
              'products',
              '--report-dir',
              dir,
            ],
            hosts[host],
            { ...CI, ...shell },
          );
          const report =
            r.code === 2 ? undefined : (JSON.parse(await readFile(join(dir, 'report.json'), 'utf8')) as GateReport);
          const passed = report?.rules.find((x) => x.id === 'PRODUCTS.CREATE.OBJECT')?.verdict;
          outcomes.push(
            `${host} ${file}: exit ${r.code}, PRODUCTS.CREATE.OBJECT ${passed}` +
              (r.code === 0 ? '' : ` (${`${r.stdout}${r.stderr}`.trim().slice(-600)})`),
          );
        }),
      );
    console.log(`host types: ${elapsed()}`);
    expect(outcomes.sort()).toEqual(
      cases.map(({ host, file }) => `${host} ${file}: exit 0, PRODUCTS.CREATE.OBJECT passed`).sort(),
    );
  }, 600_000);
});
