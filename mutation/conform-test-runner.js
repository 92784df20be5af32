/**
 * A Stryker test runner whose tests are the conformance suites: every run is
 * `conform run --profile quick --suite ...` against the bundled reference booted from
 * Stryker's sandbox, where src/reference is instrumented. A mutant is killed when the
 * run exits non-zero (a rule failed, or the mutated server could not even boot).
 *
 * Dry run: one `conform serve` boot, then one `conform run` per suite, each with
 * mutation/coverage-hook.mjs preloaded. Mutants reached while booting are static (see
 * mutantRun); the others run only the suites that reached them.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { INSTRUMENTER_CONSTANTS } from '@stryker-mutator/api/core';
import { PluginKind, commonTokens, declareClassPlugin } from '@stryker-mutator/api/plugin';
import { DryRunStatus, MutantRunStatus, TestStatus } from '@stryker-mutator/api/test-runner';

const HOOK = fileURLToPath(new URL('./coverage-hook.mjs', import.meta.url));
const EMPTY = () => ({ static: {}, perTest: {} });
const COVERAGE_FILE = '.conform-mutation-coverage.json';

class ConformTestRunner {
  static inject = [commonTokens.logger, commonTokens.options];

  constructor(log, options) {
    this.log = log;
    const own = options.conform ?? {};
    this.workers = own.workers ?? 1; // vitest workers per conform run
    this.seed = own.seed ?? 1;
    this.dryRunParallel = own.dryRunParallel ?? 2;
    this.cwd = process.cwd(); // Stryker starts each test runner inside its sandbox
    this.tmp = mkdtempSync(join(tmpdir(), 'conform-mutation-'));
    this.config = join(this.tmp, 'conform.config.yaml');
    writeFileSync(this.config, `concurrency: ${this.workers}\nprofile: quick\nseed: ${this.seed}\n`);
  }

  capabilities() {
    return { reloadEnvironment: true }; // every run is a new process
  }

  suites() {
    this.suiteNames ??= readdirSync(join(this.cwd, 'suites'))
      .filter((f) => f.endsWith('.suite.ts'))
      .map((f) => f.replace(/\.suite\.ts$/, ''))
      .sort();
    return this.suiteNames;
  }

  async dryRun({ coverageAnalysis, timeout }) {
    const wantCoverage = coverageAnalysis !== 'off';
    const boot = wantCoverage ? await this.bootCoverage(timeout) : EMPTY();
    const perTest = {};
    const tests = [];
    const queue = [...this.suites()];
    let timedOut;
    const work = async () => {
      for (let suite = queue.shift(); suite && !timedOut; suite = queue.shift()) {
        const started = Date.now();
        const res = await this.conformRun([suite], { timeout, coverage: wantCoverage });
        if (res.timedOut) return void (timedOut = suite);
        const timeSpentMs = Date.now() - started;
        if (res.code === 0) tests.push({ id: suite, name: suite, status: TestStatus.Success, timeSpentMs });
        else
          tests.push({ id: suite, name: suite, status: TestStatus.Failed, failureMessage: res.message, timeSpentMs });
        // What the suite reached beyond booting (booting is the static coverage).
        if (wantCoverage)
          perTest[suite] = Object.fromEntries(
            Object.entries(res.coverage.static).filter(([id]) => !(id in boot.static)),
          );
        this.log.info(
          `dry run: suite ${suite} ${res.code === 0 ? 'passed' : `FAILED (${res.message})`} in ${(timeSpentMs / 1000).toFixed(1)} s`,
        );
      }
    };
    await Promise.all(Array.from({ length: this.dryRunParallel }, work));
    if (timedOut) return { status: DryRunStatus.Timeout, reason: `suite ${timedOut} timed out` };
    tests.sort((a, b) => a.id.localeCompare(b.id));
    // Shared with the other test runner processes (same sandbox): static mutants use it.
    if (wantCoverage) writeFileSync(join(this.cwd, COVERAGE_FILE), JSON.stringify(perTest));
    return {
      status: DryRunStatus.Complete,
      tests,
      ...(wantCoverage ? { mutantCoverage: { static: boot.static, perTest } } : {}),
    };
  }

  /**
   * A runtime mutant runs the suites that reached it (Stryker's testFilter). A static one
   * (reached while booting) first runs the suites that reach its file; if it survives
   * those, the other suites run too, so a survivor has always faced every suite.
   */
  async mutantRun({ activeMutant, testFilter, timeout, sandboxFileName }) {
    const all = this.suites();
    const passes = testFilter ? [testFilter] : splitPasses(this.fileSuites(sandboxFileName), all);
    let ran = 0;
    for (const suites of passes) {
      const res = await this.conformRun(suites, { timeout, mutant: activeMutant.id });
      ran += suites.length;
      if (res.timedOut) return { status: MutantRunStatus.Timeout, reason: `conform run exceeded ${timeout} ms` };
      if (res.code !== 0)
        return {
          status: MutantRunStatus.Killed,
          killedBy: res.failedSuites.length ? res.failedSuites : suites,
          failureMessage: res.message,
          nrOfTests: ran,
        };
    }
    return { status: MutantRunStatus.Survived, nrOfTests: ran };
  }

  /** The suites that reached any mutant of a file in the dry run (once per file). */
  fileSuites(sandboxFileName) {
    this.perTest ??= readJson(join(this.cwd, COVERAGE_FILE)) ?? {};
    this.byFile ??= new Map();
    if (!this.byFile.has(sandboxFileName)) {
      let ids = new Set();
      try {
        ids = new Set(
          [...readFileSync(sandboxFileName, 'utf8').matchAll(/stryMutAct_\w+\("(\d+)"\)/g)].map((m) => m[1]),
        );
      } catch {
        // An unreadable file: no suite is known to reach it, so every suite runs at once.
      }
      const suites = Object.entries(this.perTest)
        .filter(([, covered]) => Object.keys(covered).some((id) => ids.has(id)))
        .map(([suite]) => suite);
      this.byFile.set(sandboxFileName, suites);
    }
    return this.byFile.get(sandboxFileName);
  }

  async dispose() {
    rmSync(this.tmp, { recursive: true, force: true });
  }

  /** Boots the reference once (`conform serve`) and stops it: what that reaches is static. */
  bootCoverage(timeout) {
    const file = join(this.tmp, 'boot.json');
    return new Promise((resolve, reject) => {
      const child = this.spawn(['serve', '--port', '0', '--host', '127.0.0.1'], { CONFORM_MUTANT_COVERAGE: file });
      let out = '';
      const timer = setTimeout(() => child.kill('SIGKILL'), timeout);
      child.stdout.on('data', (d) => {
        out += d;
        if (/listening on/.test(out)) child.kill('SIGTERM');
      });
      child.stderr.on('data', (d) => (out += d));
      child.on('close', () => {
        clearTimeout(timer);
        try {
          resolve(JSON.parse(readFileSync(file, 'utf8')));
        } catch {
          reject(new Error(`conform serve wrote no coverage; it printed: ${out.slice(0, 500)}`));
        }
      });
    });
  }

  /** One `conform run` of some suites; the exit code, failed rules and suites, and coverage if asked. */
  conformRun(suites, { timeout, mutant, coverage }) {
    const dir = mkdtempSync(join(this.tmp, 'run-'));
    const env = {};
    if (mutant !== undefined) env[INSTRUMENTER_CONSTANTS.ACTIVE_MUTANT_ENV_VARIABLE] = mutant;
    if (coverage) env.CONFORM_MUTANT_COVERAGE = join(dir, 'coverage.json');
    // Against the reference every fixture exists: a skip means the mutant broke one.
    const args = [
      'run',
      '--plain',
      '--fail-on-skip',
      '--config',
      this.config,
      '--report-dir',
      join(dir, 'report'),
      '--suite',
      ...suites,
    ];
    return new Promise((resolve) => {
      const child = this.spawn(args, env);
      let out = '';
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        try {
          process.kill(-child.pid, 'SIGKILL');
        } catch {
          child.kill('SIGKILL');
        }
      }, timeout);
      child.stdout.on('data', (d) => (out += d));
      child.stderr.on('data', (d) => (out += d));
      child.on('close', (code) => {
        clearTimeout(timer);
        const result = { code, timedOut, ...outcome(dir, out) };
        if (coverage) result.coverage = readJson(join(dir, 'coverage.json')) ?? EMPTY();
        rmSync(dir, { recursive: true, force: true });
        resolve(result);
      });
    });
  }

  spawn(args, extraEnv) {
    const env = { ...process.env, CI: 'true', NO_COLOR: '1', ...extraEnv };
    delete env.DATABASE_URL; // the bundled reference runs in memory, as `conform run` boots it
    const node = ['--import', HOOK, join(this.cwd, 'bin/conform.js'), ...args];
    return spawn(process.execPath, node, { cwd: this.cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  }
}

/** The file's suites first, then the rest; everything at once when the file has none. */
export function splitPasses(first, all) {
  const rest = all.filter((s) => !first.includes(s));
  return first.length && rest.length ? [first, rest] : [all];
}

function readJson(file) {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return undefined;
  }
}

/** The failed rules (report.json) or, when no report was written, the run's last lines. */
export function outcome(dir, out) {
  const report = readJson(join(dir, 'report', 'report.json'));
  const failed = (report?.rules ?? []).filter((r) => r.verdict === 'failed' && r.scope === 'target');
  if (failed.length) {
    const failedSuites = [
      ...new Set((report.scenarios ?? []).filter((s) => s.state === 'failed').map((s) => s.suite)),
    ].filter(Boolean);
    return { failedSuites, message: `failed rules: ${failed.map((r) => r.id).join(', ')}` };
  }
  const tail = out.trim().split('\n').slice(-3).join(' | ');
  return { failedSuites: [], message: tail || 'no output' };
}

export const strykerPlugins = [declareClassPlugin(PluginKind.TestRunner, 'conform', ConformTestRunner)];
