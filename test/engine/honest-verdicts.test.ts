/**
 * Never green by accident, end to end with the real suites: the reference server reached with
 * no fixtures exits 3 naming the rules it could not judge. (Targets that answer everything the
 * same wrong way are in test/adversarial/targets.test.ts.)
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startReferenceServer, type RunningReference } from '../../src/reference/index.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

function conform(args: string[], key: string): Promise<{ code: number; stdout: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [join(ROOT, 'bin/conform.js'), 'run', '--plain', ...args],
      {
        cwd: ROOT,
        env: { ...process.env, NO_COLOR: '1', CONFORM_API_KEY: key },
        timeout: 240_000,
        maxBuffer: 16 * 1024 * 1024,
      },
      (err, stdout) => resolve({ code: err ? (typeof err.code === 'number' ? err.code : 99) : 0, stdout }),
    );
  });
}

interface ReportRule {
  id: string;
  verdict: string;
  scope: string;
  judgements: number;
  failureCount: number;
  notJudged: { reason: string; category: string }[];
}

let work: string;
let reference: RunningReference;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'conform-honest-'));
  reference = await startReferenceServer({
    host: '127.0.0.1',
    port: 0,
    database: 'memory',
    apiKey: `sk_test_${randomBytes(12).toString('hex')}`,
  });
}, 60_000);
afterAll(async () => {
  await reference?.close();
});

describe('honest verdicts end to end', () => {
  test('the reference server with fixtures none: exit 3, naming each rule left unjudged for a missing fixture', async () => {
    const config = join(work, 'none.yaml');
    await writeFile(config, `baseUrl: ${reference.baseUrl}\nfixtures:\n  strategy: none\n`);
    const dir = join(work, 'none');
    const r = await conform(
      ['--config', config, '--report-dir', dir, '--suite', 'customers', 'webhooks', 'alerts'],
      reference.apiKey,
    );
    expect(r.code, r.stdout.slice(-3000)).toBe(3);
    const report = JSON.parse(await readFile(join(dir, 'report.json'), 'utf8'));
    const gaps: string[] = report.summary.gaps.unaccepted;
    expect(gaps).toEqual(
      expect.arrayContaining(['CUSTOMERS.TAX_ID.NULL_CLEARS', 'WEBHOOKS.404.NEVER_ENABLED', 'ALERTS.LIST.LIMIT_RANGE']),
    );
    // A narrowed run (--suite): the rules its suites leave out are accepted; the fixture gaps are not.
    expect(report.summary.headline).toMatch(
      /narrowed run: suites (customers|webhooks|alerts), (customers|webhooks|alerts), (customers|webhooks|alerts)$/,
    );
    for (const id of gaps) {
      const rule = (report.rules as ReportRule[]).find((x) => x.id === id)!;
      expect(rule.verdict, id).toBe('not_judged');
      // A gap names the missing fixture, or (a destructive scenario on a target that allows none) the setting.
      expect(
        rule.notJudged.some(
          (n) => (n.category === 'fixture' && /no fixture strategy/.test(n.reason)) || n.category === 'destructive',
        ),
        id,
      ).toBe(true);
    }
    // Rules judged without fixtures are judged; nothing passes on citation alone.
    expect((report.rules as ReportRule[]).filter((x) => x.verdict === 'passed' && x.judgements === 0)).toEqual([]);
    expect(report.summary.rules.passed).toBeGreaterThan(0);
    expect(r.stdout).toMatch(
      new RegExp(
        `^\\d+ applicable rule\\(s\\) not judged and not accepted \\(exit 3\\): .*--allow-unjudged=.*${gaps[0]}`,
        'm',
      ),
    );
    expect(r.stdout).toMatch(/^UNJUDGED \(exit 3\): /m);
    expect(r.stdout).not.toContain(reference.apiKey);
  }, 250_000);
});
