/**
 * `conform proxy` and `conform judge` as a user runs them: a rude client (ten retries at
 * once, retry-after ignored) and a polite one (the engine's own client) through the proxy
 * in front of a target that answers 429; the reports on SIGTERM, per client, with no key
 * anywhere; the recorded HAR judged again; --fail-on and --min-judged, the reports saying the
 * same exit code; a proxy no traffic went through exits 3; bad input exits 2 with one line.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { spawn, execFile } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { HttpClient } from '../../src/engine/http/client.ts';
import { clientIdOf } from '../../src/passive/traffic/scrub.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BIN = join(ROOT, 'bin/conform.js');
const RUDE = 'sk_test_rude_client_0123456789';
const POLITE = 'sk_test_polite_client_987654321';
const TIMEOUT_MS = 180_000;

let upstream: Server;
let target: string;
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'conform-proxy-cli-'));
  // A target whose costs report is always used up.
  upstream = createServer((req, res) => {
    const body = req.url?.startsWith('/v0/costs/report')
      ? {
          status: 429,
          headers: {
            'retry-after': '0.2',
            'x-ratelimit-limit': '600',
            'x-ratelimit-remaining': '0',
            'x-ratelimit-reset': '0.2',
          },
          json: { error: 'rate_limit_exceeded', message: 'costs report: 600 per minute used up' },
        }
      : { status: 404, headers: {}, json: { error: 'not_found', message: 'nothing here' } };
    const text = JSON.stringify(body.json);
    res.writeHead(body.status, {
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(text)),
      ...body.headers,
    });
    res.end(text);
  });
  await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', () => r()));
  target = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((r) => upstream?.close(r));
  if (dir) await rm(dir, { recursive: true, force: true });
});

function conform(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [BIN, ...args],
      { cwd: ROOT, env: { ...process.env, NO_COLOR: '1' }, timeout: TIMEOUT_MS },
      (err, stdout, stderr) =>
        resolve({ code: err ? (typeof err.code === 'number' ? err.code : 99) : 0, stdout, stderr }),
    );
  });
}

interface ReportJson {
  rules: Array<{ id: string; verdict: string }>;
  scenarios: Array<{ suite: string; title: string; state: string; ruleIds: string[] }>;
}

describe('conform proxy and conform judge', () => {
  test(
    'the rude client fails the client rules, the polite one passes them; reports on SIGTERM; the HAR judges the same',
    async () => {
      const reports = join(dir, 'live');
      const har = join(dir, 'traffic.har');
      const child = spawn(
        process.execPath,
        [BIN, 'proxy', '--target', target, '--port', '0', '--report-dir', reports, '--har', har, '--plain'],
        { cwd: ROOT, env: { ...process.env, NO_COLOR: '1' } },
      );
      let stdout = '';
      child.stdout.on('data', (d) => (stdout += d));
      child.stderr.on('data', (d) => (stdout += d));
      const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
      const url = await new Promise<string>((resolve, reject) => {
        const timer = setInterval(() => {
          const m = /conform proxy: (http:\/\/[^ ]+) →/.exec(stdout);
          if (m) {
            clearInterval(timer);
            resolve(m[1]);
          }
        }, 50);
        void exited.then((code) => reject(new Error(`conform proxy exited (${code}) before listening: ${stdout}`)));
      });

      // Rude: ten attempts, each as soon as the 429 is in.
      const rude = new HttpClient({ baseUrl: url, apiKey: RUDE, retry429: false });
      for (let i = 0; i < 10; i++) expect((await rude.get('/v0/costs/report')).status).toBe(429);
      // Polite: the engine's client keeps the rule (waits retry-after, stops after five attempts).
      const polite = new HttpClient({ baseUrl: url, apiKey: POLITE, retry429: true });
      expect((await polite.get('/v0/costs/report')).status).toBe(429);

      child.kill('SIGTERM');
      expect(await exited, stdout).toBe(1);
      expect(stdout).toMatch(/client rules failed: .*RETRY\.CLIENT\.WAIT/);
      const report = JSON.parse(await readFile(join(reports, 'report.json'), 'utf8')) as ReportJson;
      const verdict = (id: string) => report.rules.find((r) => r.id === id)?.verdict;
      expect([verdict('RETRY.CLIENT.WAIT'), verdict('RETRY.CLIENT.MAX_ATTEMPTS')]).toEqual(['failed', 'failed']);
      const client = (key: string) =>
        report.scenarios.find((s) => s.suite === 'clients' && s.title === `client ${clientIdOf(key)}`);
      expect(client(RUDE)?.state).toBe('failed');
      expect(client(POLITE)).toMatchObject({
        state: 'passed',
        ruleIds: expect.arrayContaining(['RETRY.CLIENT.WAIT', 'RETRY.CLIENT.MAX_ATTEMPTS']),
      });
      const everything = [
        stdout,
        ...(await Promise.all(
          ['report.json', 'junit.xml', 'report.html', 'summary.md'].map((f) => readFile(join(reports, f), 'utf8')),
        )),
        await readFile(har, 'utf8'),
      ].join('\n');
      for (const key of [RUDE, POLITE]) expect(everything).not.toContain(key);

      const server = await conform([
        'judge',
        har,
        '--fail-on',
        'server',
        '--report-dir',
        join(dir, 'har-server'),
        '--plain',
      ]);
      expect(server.code, server.stdout + server.stderr).toBe(0);
      const clients = await conform([
        'judge',
        har,
        '--fail-on',
        'client',
        '--report-dir',
        join(dir, 'har-client'),
        '--plain',
      ]);
      expect(clients.code, clients.stdout + clients.stderr).toBe(1);
      // The reports say what the process exits with, per --fail-on.
      const summaryOf = async (d: string) =>
        (JSON.parse(await readFile(join(dir, d, 'report.json'), 'utf8')) as { summary: { exitCode: number } }).summary;
      expect([(await summaryOf('har-server')).exitCode, (await summaryOf('har-client')).exitCode]).toEqual([0, 1]);
      const few = await conform([
        'judge',
        har,
        '--fail-on',
        'server',
        '--min-judged',
        '1000',
        '--report-dir',
        join(dir, 'har-few'),
        '--plain',
      ]);
      expect(few.code, few.stdout + few.stderr).toBe(3);
      expect(few.stdout).toMatch(/fewer than 1000 rule\(s\) judged/);
      expect(await summaryOf('har-few')).toMatchObject({ exitCode: 3, verdict: 'unjudged' });
      const again = JSON.parse(await readFile(join(dir, 'har-client', 'report.json'), 'utf8')) as ReportJson;
      const shape = (r: ReportJson) => r.rules.map((x) => `${x.id} ${x.verdict}`);
      expect(shape(again)).toEqual(shape(report));
      // The proxy's own URL, what the clients used, names the same traffic; a URL the file does not hold is refused.
      const [viaProxy, elsewhere] = await Promise.all([
        conform(['judge', har, '--base-url', url, '--fail-on', 'client', '--report-dir', join(dir, 'har-proxy')]),
        conform(['judge', har, '--base-url', 'https://sandbox.example.com', '--report-dir', join(dir, 'har-x')]),
      ]);
      expect(viaProxy.code, viaProxy.stdout + viaProxy.stderr).toBe(1);
      expect(viaProxy.stdout).toContain(
        `: ${target} (${url} is the conform proxy that recorded it, in front of this target)`,
      );
      const proxied = JSON.parse(await readFile(join(dir, 'har-proxy', 'report.json'), 'utf8')) as ReportJson;
      expect(shape(proxied)).toEqual(shape(report));
      expect([elsewhere.code, elsewhere.stderr.trim().split('\n').length]).toEqual([2, 1]);
      expect(elsewhere.stderr.trim()).toMatch(
        new RegExp(
          `^conform judge: .*traffic\\.har: no entry under https://sandbox\\.example\\.com \\((\\d+) entries\\); ` +
            `the API base URLs in it: ${target.replace(/\./g, '\\.')} \\(\\1\\): pass one with --base-url$`,
        ),
      );
    },
    TIMEOUT_MS,
  );

  test(
    'a proxy no traffic went through never passes the gate: exit 3, said in the output and the reports',
    async () => {
      const reports = join(dir, 'empty');
      const r = await conform([
        'proxy',
        '--target',
        target,
        '--port',
        '0',
        '--duration',
        '1s',
        '--report-dir',
        reports,
      ]);
      expect(r.code, r.stdout + r.stderr).toBe(3);
      expect(r.stdout).toMatch(/no exchange was judged: no client sent its requests through the proxy/);
      const summary = await readFile(join(reports, 'summary.md'), 'utf8');
      expect(summary).toMatch(/UNJUDGED \(exit 3\): judged 0 of \d+ rules/);
      // A passive report names the traffic it judged; profile, seed and fixtures do not apply to it.
      expect(summary).toMatch(/ · traffic: live traffic through conform proxy, 0 exchanges from 0 client\(s\) · /);
      expect(summary).not.toMatch(/seed `/);
    },
    TIMEOUT_MS,
  );

  test(
    'bad input exits 2 with one line',
    async () => {
      await writeFile(join(dir, 'not.har'), '[1, 2, 3]');
      const cases: Array<[string[], RegExp]> = [
        [['judge', join(dir, 'missing.har')], /^conform judge: .*missing\.har: no such file/],
        [['judge', join(dir, 'not.har')], /not a HAR file/],
        [['judge'], /name the HAR file/],
        [['proxy'], /--target URL is required/],
        [['proxy', '--target', 'ftp://x'], /must be an http\(s\) URL/],
        [['proxy', '--target', target, '--duration', 'soon'], /--duration must be/],
        [['proxy', '--target', target, '--fail-on', 'everyone'], /--fail-on must be server, client or both/],
        [['judge', join(dir, 'not.har'), '--min-judged', 'many'], /--min-judged must be a whole number/],
        [
          ['proxy', '--target', target, '--port', '0', '--har', join(dir, 'no-such-folder', 'x.har')],
          /^conform proxy: the proxy could not start: ENOENT: no such file or directory, open .*x\.har/,
        ],
      ];
      const runs = await Promise.all(cases.map(([args]) => conform(args)));
      for (const [i, [args, message]] of cases.entries()) {
        const r = runs[i];
        expect([r.code, r.stderr.trim().split('\n').length], `${args.join(' ')}: ${r.stderr}`).toEqual([2, 1]);
        expect(r.stderr).toMatch(message);
      }
    },
    TIMEOUT_MS,
  );
});
