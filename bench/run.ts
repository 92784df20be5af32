/**
 * npm run bench:run — where `conform run` spends its time and memory, quick profile:
 *
 * - **bundled**: `bin/conform.js run` with no target and CI unset (the README's first command:
 *   the reference boots in a child process forked first thing);
 * - **running target**: the same against a `conform serve` started once beforehand (`--sandbox`,
 *   as for a sandbox: destructive scenarios run), so the figures are the engine's alone.
 *
 * Each is run BENCH_RUNS times (default 5) after one warm-up; it prints the median of each phase
 * the run marks (CONFORM_PHASES=1: process start to CLI ready, config read, target ready,
 * probed, fixtures chosen, vitest started, scenarios done, reports written, closed; ms since the
 * process started), the wall time and the peak RSS (the process tree, sampled every 50 ms, and
 * the process's own VmHWM). With BENCH_BASELINE=<commit> the same runs of that commit (a git
 * worktree beside this checkout, sharing node_modules) alternate with these, A B A B, and the
 * ratio this/baseline of each median is printed: ratios hold when the machine's speed drifts.
 * Run it alone on the machine.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, symlinkSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { measure, mb, median, type Measured } from './process-figures.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const BASELINE = process.env.BENCH_BASELINE;
const KEY = 'sk_test_bench_run_0123456789';

interface Tree {
  label: string;
  root: string;
}

/** A worktree of `commit` beside this checkout, sharing its node_modules. */
function worktree(commit: string): string {
  const dir = join(tmpdir(), `conform-bench-baseline-${commit.slice(0, 12)}`);
  if (!existsSync(dir)) {
    execFileSync('git', ['worktree', 'add', '--detach', '-f', dir, commit], { cwd: ROOT, stdio: 'ignore' });
    symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  }
  return dir;
}

/** `conform serve` of a tree on a free port, answering once it listens. */
async function serve(tree: Tree): Promise<{ url: string; stop(): void }> {
  const child = spawn(process.execPath, [join(tree.root, 'bin/conform.js'), 'serve', '--port', '0'], {
    cwd: tree.root,
    env: { ...process.env, CONFORM_API_KEY: KEY, DATABASE_URL: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    const seen = (d: Buffer) => {
      out += d;
      const m = /(http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (m) resolve(m[1]);
    };
    child.stdout.on('data', seen);
    child.stderr.on('data', seen);
    child.on('exit', (code) => reject(new Error(`conform serve exited ${code}: ${out.slice(-400)}`)));
  });
  return { url, stop: () => child.kill('SIGTERM') };
}

interface Figures {
  wallMs: number;
  peakTreeRssKb?: number;
  peakHwmKb?: number;
  phases: Record<string, number>;
  verdict: string;
}

async function once(tree: Tree, target?: string): Promise<Figures> {
  const reportDir = mkdtempSync(join(tmpdir(), 'conform-bench-run-'));
  const args = [join(tree.root, 'bin/conform.js'), 'run', '--plain', '--report-dir', reportDir];
  // No --reference for the bundled run: with CI cleared, a run without a target tests the bundled
  // reference, in this checkout and in baselines older than the flag alike.
  if (target) args.push('--base-url', target, '--sandbox');
  const m: Measured = await measure(process.execPath, args, {
    cwd: tree.root,
    env: { ...process.env, CI: '', CONFORM_PHASES: '1', CONFORM_API_KEY: KEY, DATABASE_URL: '' },
  });
  const line = /^conform-phases (.*)$/m.exec(m.stderr)?.[1];
  const verdict = /^(PASSED|FAILED|UNJUDGED|ERROR) \(exit \d\)/m.exec(m.stdout)?.[0] ?? `exit ${m.code}`;
  return {
    wallMs: m.wallMs,
    peakTreeRssKb: m.peakTreeRssKb,
    peakHwmKb: m.peakHwmKb,
    phases: line ? (JSON.parse(line).phases as Record<string, number>) : {},
    verdict,
  };
}

function summary(runs: Figures[]): Record<string, number> {
  const out: Record<string, number> = {
    wall: median(runs.map((r) => r.wallMs)),
    'peak RSS, process tree (kB)': median(runs.map((r) => r.peakTreeRssKb ?? 0)),
    'VmHWM (kB)': median(runs.map((r) => r.peakHwmKb ?? 0)),
  };
  for (const name of Object.keys(runs[0]?.phases ?? {}))
    out[name] = median(runs.map((r) => r.phases[name] ?? Number.NaN));
  return out;
}

function show(label: string, mine: Record<string, number>, base?: Record<string, number>): void {
  console.log(`\n${label}`);
  for (const [name, v] of Object.entries(mine)) {
    const text = /kB/.test(name) ? mb(v) : `${(v / 1000).toFixed(2)} s`;
    const b = base?.[name];
    const ratio =
      b && Number.isFinite(b) && b > 0
        ? `   ×${(v / b).toFixed(2)} of baseline (${/kB/.test(name) ? mb(b) : `${(b / 1000).toFixed(2)} s`})`
        : '';
    console.log(`  ${name.padEnd(30)} ${text.padStart(9)}${ratio}`);
  }
}

const trees: Tree[] = [{ label: 'this checkout', root: ROOT }];
if (BASELINE) trees.push({ label: `baseline ${BASELINE}`, root: worktree(BASELINE) });
console.log(
  `bench:run — conform run, quick profile; ${RUNS} runs each after a warm-up, medians; node ${process.version}, ${cpus().length} CPUs`,
);

for (const kind of ['bundled', 'running target'] as const) {
  const servers = kind === 'running target' ? await Promise.all(trees.map((t) => serve(t))) : [];
  try {
    const results = trees.map(() => [] as Figures[]);
    for (let i = 0; i <= RUNS; i++)
      for (let t = 0; t < trees.length; t++) {
        const r = await once(trees[t], servers[t]?.url);
        if (i > 0) results[t].push(r);
        if (i > 0)
          console.log(`  ${kind}, ${trees[t].label}, run ${i}: ${(r.wallMs / 1000).toFixed(1)} s, ${r.verdict}`);
      }
    const mine = summary(results[0]);
    const base = results[1] ? summary(results[1]) : undefined;
    show(
      `${kind} (${kind === 'bundled' ? 'no target: the bundled reference, forked at start' : 'the engine alone'})`,
      mine,
      base,
    );
  } finally {
    for (const s of servers) s.stop();
  }
}
