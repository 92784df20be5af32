/**
 * examples/ci/github-actions.yml, run: its steps in a team's repository (package.json as
 * `npm init -y` writes it, billing-conform linked in node_modules as an install would, the two
 * files `billing-conform init` writes, the fixtures module filled in as the worked example) against `conform serve --documented-port`, the sandbox
 * module's back office on the full port. Every shard of the matrix runs its `run:` step with
 * the step's env, the secrets standing for a real sandbox's; the artifacts go from the shard
 * job to the report job as upload/download-artifact would move them; the merge step is the
 * gate. Expressions other than matrix.shard, github.run_number and secrets.* fail the test.
 */
import { cp, mkdir, mkdtemp, readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { expectGreen, run, serve, type GateReport, type Served } from '../packaging/support.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const API_KEY = 'sk_test_ci_example_0123456789';
const RUN_NUMBER = '4242';

type Json = Record<string, any>;
const workflow = parse(await readFile(join(ROOT, 'examples/ci/github-actions.yml'), 'utf8')) as Json;

/** A value of the workflow with its expressions evaluated; an expression this test does not know fails it. */
function evaluate(text: string, vars: { shard?: number; secrets: Record<string, string> }): string {
  return text.replace(/\$\{\{\s*([^}]+?)\s*\}\}/g, (_, expr: string) => {
    if (expr === 'matrix.shard' && vars.shard !== undefined) return String(vars.shard);
    if (expr === 'github.run_number') return RUN_NUMBER;
    const secret = /^secrets\.(\w+)$/.exec(expr)?.[1];
    if (secret) return vars.secrets[secret] ?? ''; // an unset secret is an empty string
    throw new Error(`the test cannot evaluate \${{ ${expr} }}`);
  });
}

let work: string;
let target: Served;
let secrets: Record<string, string>;
const outputs: string[] = [];

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'conform-ci-github-'));
  target = await serve([process.execPath, join(ROOT, 'bin/conform.js')], work, API_KEY);
  secrets = {
    BILLING_SANDBOX_API_KEY: API_KEY,
    BILLING_BACKOFFICE_URL: target.adminUrl,
    BILLING_BACKOFFICE_KEY: API_KEY,
  };
  // The team's repository: npm init -y's package.json, the package linked where npm installs it.
  await writeFile(
    join(work, 'package.json'),
    JSON.stringify({ name: 'deploy', version: '1.0.0', type: 'commonjs', devDependencies: { 'billing-conform': '*' } }),
  );
  await mkdir(join(work, 'node_modules', '.bin'), { recursive: true });
  await symlink(ROOT, join(work, 'node_modules', 'billing-conform'), 'dir');
  await symlink('../billing-conform/bin/conform.js', join(work, 'node_modules', '.bin', 'billing-conform'));
  const init = await run(
    join(work, 'node_modules/.bin/billing-conform'),
    ['init', '--base-url', target.baseUrl, '--example'],
    work,
  );
  expect(init.code, init.stderr).toBe(0);
  // The team has filled in the skeleton: here with the worked example, its back office the reference's full port.
  await cp(join(work, 'conform.fixtures.example.mts'), join(work, 'conform.fixtures.mts'));
}, 120_000);

afterAll(async () => {
  await target?.stop();
  if (work) await rm(work, { recursive: true, force: true });
});

/** Runs one job's steps; returns the exit code of each `run:` step by its name (or command). */
async function runJob(job: Json, vars: { shard?: number; secrets: Record<string, string> }): Promise<Json> {
  const codes: Record<string, number> = {};
  for (const step of job.steps as Json[]) {
    const uses = String(step.uses ?? '');
    const w = Object.fromEntries(
      Object.entries((step.with ?? {}) as Json).map(([k, v]) => [k, evaluate(String(v), vars)]),
    );
    if (/^actions\/(checkout|setup-node)@/.test(uses)) continue; // the repository is here, node is this one
    if (step.run === 'npm ci') continue; // installed: node_modules/billing-conform is linked
    if (/^actions\/upload-artifact@/.test(uses)) {
      await cp(join(work, w.path), join(work, '.artifacts', w.name), { recursive: true });
    } else if (/^actions\/download-artifact@/.test(uses)) {
      const pattern = new RegExp(`^${w.pattern.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*')}$`);
      for (const name of (await readdir(join(work, '.artifacts'))).filter((n) => pattern.test(n)))
        await cp(join(work, '.artifacts', name), join(work, w.path, name), { recursive: true });
    } else if (/^mikepenz\/action-junit-report@/.test(uses)) {
      expect((await stat(join(work, w.report_paths))).size).toBeGreaterThan(0);
    } else if (typeof step.run === 'string') {
      const env = Object.fromEntries(
        Object.entries((step.env ?? {}) as Json).map(([k, v]) => [k, evaluate(String(v), vars)]),
      );
      const r = await run('bash', ['-eo', 'pipefail', '-c', evaluate(step.run, vars)], work, {
        CI: 'true',
        GITHUB_STEP_SUMMARY: join(work, 'step-summary.md'),
        CONFORM_API_KEY: '',
        ...env,
      });
      outputs.push(r.stdout, r.stderr);
      codes[step.name ?? step.run] = r.code;
      if (r.code !== 0 && !step['continue-on-error'])
        throw new Error(
          `step '${step.name ?? step.run}' exited ${r.code}:\n${r.stdout.slice(0, 3000)}\n${r.stderr.slice(-1500)}`,
        );
    } else throw new Error(`a step this test cannot run: ${JSON.stringify(step)}`);
  }
  return codes;
}

describe('examples/ci/github-actions.yml against a documented-endpoints-only sandbox', () => {
  it('every shard (one seed, the run number), then the merge: a green gate, the job summary written, the secrets never printed', async () => {
    const jobs = Object.values(workflow.jobs as Json) as Json[];
    const shardJob = jobs.find((j) => j.strategy?.matrix?.shard)!;
    const reportJob = jobs.find((j) => j !== shardJob)!;
    const t0 = Date.now();
    // The matrix's jobs run at once, as on GitHub, against the same sandbox.
    await Promise.all(
      (shardJob.strategy.matrix.shard as number[]).map(async (shard) => {
        const codes = await runJob(shardJob, { shard, secrets });
        console.log(`shard ${shard}: exit ${Object.values(codes).join()}, ${Math.round((Date.now() - t0) / 1000)} s`);
        const report = JSON.parse(
          await readFile(join(work, `reports/shard-${shard}/report.json`), 'utf8'),
        ) as GateReport;
        expect(report.run.seed, `shard ${shard}`).toBe(Number(RUN_NUMBER));
      }),
    );
    const codes = await runJob(reportJob, { secrets });
    console.log(`report job: ${JSON.stringify(codes)}, ${Math.round((Date.now() - t0) / 1000)} s in all`);
    const merged = JSON.parse(await readFile(join(work, 'reports/merged/report.json'), 'utf8')) as GateReport;
    expect(merged.run.seed).toBe(Number(RUN_NUMBER));
    expectGreen(merged, codes['Merge the shard reports (the gate)'], 'merged', outputs.join('\n'));
    expect(await readFile(join(work, 'step-summary.md'), 'utf8')).toBe(
      await readFile(join(work, 'reports/merged/summary.md'), 'utf8'),
    );
    // Fixtures came from the module through the back office: every scenario that asked got what it needed.
    expect(merged.scenarios.filter((s) => s.fixtures?.length).length).toBeGreaterThan(50);
    for (const out of outputs) expect(out).not.toContain(API_KEY);
  }, 600_000);
});
