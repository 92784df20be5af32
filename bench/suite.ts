/**
 * npm run bench:suite — wall time and peak RSS of `conform run` against the bundled
 * reference, for the quick and then the full profile.
 *
 * Each profile runs as its own `bin/conform.js run` process, started through its shebang as
 * `npx conform` starts it (the reference boots in it, the suites run in worker threads of
 * it). Peak RSS is sampled from /proc every
 * 50 ms over the process and its descendants (Linux; elsewhere it prints n/a), and the
 * child's own VmHWM (kernel peak) is read at the last sample.
 * BENCH_PROFILES=quick limits the profiles; BENCH_SUITES=a,b limits the suites.
 * BENCH_BASE_URL (with BENCH_API_KEY) runs against a server started apart, e.g. by
 * `conform serve`, so the figures are the engine's alone (the reference's memory is then
 * in the other process, and its rate-limit buckets carry over between profiles).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { mb, statusField, tree } from './process-figures.ts';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const PROFILES = (process.env.BENCH_PROFILES ?? 'quick,full').split(',').filter(Boolean);
const SUITES = process.env.BENCH_SUITES?.split(',').filter(Boolean);
const BASE_URL = process.env.BENCH_BASE_URL;
const TARGET = BASE_URL
  ? ['--base-url', BASE_URL, '--api-key', process.env.BENCH_API_KEY ?? 'sk_test_conform_reference']
  : [];

interface Figures {
  profile: string;
  exitCode: number;
  wallMs: number;
  peakTreeRssKb?: number;
  peakHwmKb?: number;
  summary?: string;
}

function runProfile(profile: string): Promise<Figures> {
  const reportDir = mkdtempSync(join(tmpdir(), `conform-bench-${profile}-`));
  const args = [
    'run',
    '--profile',
    profile,
    '--plain',
    '--report-dir',
    reportDir,
    ...TARGET,
    ...(SUITES ? ['--suite', ...SUITES] : []),
  ];
  const procOk = existsSync('/proc/self/status');
  return new Promise((resolve) => {
    const t0 = performance.now();
    const child = spawn(join(ROOT, 'bin/conform.js'), args, {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, CI: 'true' },
    });
    let peakTree = 0;
    let peakHwm = 0;
    const sample = () => {
      if (!procOk || child.pid === undefined) return;
      const total = tree(child.pid).reduce((sum, p) => sum + (statusField(p, 'VmRSS') ?? 0), 0);
      peakTree = Math.max(peakTree, total);
      peakHwm = Math.max(peakHwm, statusField(child.pid, 'VmHWM') ?? 0);
    };
    const timer = setInterval(sample, 50);
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('close', (code) => {
      clearInterval(timer);
      const wallMs = performance.now() - t0;
      const summary = [...out.split('\n'), ...err.split('\n')]
        .filter((l) => /^(PASSED|FAILED|ERROR):|^conform run:/.test(l))
        .join(' | ');
      resolve({
        profile,
        exitCode: code ?? -1,
        wallMs,
        peakTreeRssKb: procOk ? peakTree : undefined,
        peakHwmKb: procOk ? peakHwm : undefined,
        summary,
      });
    });
  });
}

console.log(
  `bench:suite — conform run against ${BASE_URL ? `${BASE_URL} (engine only)` : 'the bundled reference'}; node ${process.version}, ${(await import('node:os')).cpus().length} CPUs`,
);
const results: Figures[] = [];
for (const profile of PROFILES) {
  const r = await runProfile(profile);
  results.push(r);
  console.log(
    `${profile.padEnd(6)} exit ${r.exitCode}  wall ${(r.wallMs / 1000).toFixed(1)} s  peak RSS ${mb(r.peakTreeRssKb)} (process tree, sampled)  VmHWM ${mb(r.peakHwmKb)}`,
  );
  if (r.summary) console.log(`       ${r.summary}`);
}
const failed = results.filter((r) => r.exitCode !== 0);
if (failed.length)
  console.log(
    `note: ${failed.map((r) => `${r.profile} exited ${r.exitCode}`).join(', ')}; its figures measure an incomplete or failing run.`,
  );
process.exitCode = failed.length ? 1 : 0;
