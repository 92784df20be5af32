/**
 * A red run reads once: one schema fault that many scenarios meet is printed once while the run
 * goes, and the closing block and summary.md count the scenarios that saw it, instead of a FAIL
 * line for each. The progress line counts against the run's whole number of scenarios.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startReferenceServer, type RunningReference } from '../../src/reference/index.ts';
import { startProxy, type RunningProxy } from '../../src/faults/fault-proxy.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
let ref: RunningReference;
let proxy: RunningProxy;
let work: string;

beforeAll(async () => {
  ref = await startReferenceServer({ host: '127.0.0.1', port: 0, database: 'memory' });
  // Every customer answer loses validTaxAddress, a field the document marks required.
  proxy = await startProxy({
    upstream: ref.baseUrl,
    fault: {
      name: 'customer without validTaxAddress',
      onResponse(req, res) {
        const b = res.json as Record<string, unknown> | undefined;
        if (/^\/v0\/customers\/[^/?]+$/.test(req.path.split('?')[0]) && b?.object === 'customer')
          delete b.validTaxAddress;
      },
    },
  });
  work = await mkdtemp(join(tmpdir(), 'conform-red-once-'));
});
afterAll(async () => {
  await proxy?.close();
  await ref?.close();
  if (work) await rm(work, { recursive: true, force: true });
});

test('one schema fault seen by many scenarios: printed once, counted in the closing block and summary.md', async () => {
  const dir = join(work, 'r');
  const { code, stdout } = await new Promise<{ code: number; stdout: string }>((resolve) =>
    execFile(
      process.execPath,
      [
        join(ROOT, 'bin/conform.js'),
        'run',
        '--base-url',
        proxy.url,
        '--suite',
        'customers',
        'isolation',
        '--report-dir',
        dir,
        '--plain',
        '--seed',
        '1',
      ],
      {
        cwd: work,
        env: { ...process.env, CONFORM_API_KEY: ref.apiKey },
        timeout: 240_000,
        maxBuffer: 32 * 1024 * 1024,
      },
      (err, out) => resolve({ code: err ? Number((err as { code?: number }).code ?? 99) : 0, stdout: out }),
    ),
  );
  expect(code, stdout).toBe(1);
  const title = /Required field validTaxAddress missing in getCustomer response/;
  // Printed once while the run goes, however many scenarios read a customer.
  const printed = stdout.split('\n').filter((l) => /^\s+\[SCHEMA\.REQUIRED\.PRESENT/.test(l) && title.test(l));
  expect(printed).toHaveLength(1);
  // The closing block counts the scenarios that saw it.
  const closing =
    /^ {2}SCHEMA\.REQUIRED\.PRESENT: Required field validTaxAddress missing in \w+ response \((\d+) findings in (\d+) scenarios\)$/m.exec(
      stdout,
    );
  expect(closing, stdout).not.toBeNull();
  expect(Number(closing![2])).toBeGreaterThan(1);
  const md = await readFile(join(dir, 'summary.md'), 'utf8');
  expect(md.match(/- \*\*SCHEMA\.REQUIRED\.PRESENT\*\*/g)).toHaveLength(1);
  expect(md).toMatch(new RegExp(`in ${closing![2]} scenarios\\)`));
  // Progress lines count against the whole run from the first one on.
  const totals = [...stdout.matchAll(/^… \d+ of (\d+) scenarios done/gm)].map((m) => Number(m[1]));
  expect(new Set(totals).size).toBeLessThanOrEqual(1);
  const last = /; (\d+) scenarios in [\d.]+ s$/m.exec(stdout);
  if (totals.length) expect(totals[0]).toBe(Number(last![1]));
}, 300_000);
