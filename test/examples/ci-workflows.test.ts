/**
 * examples/ci/: the GitHub Actions workflow and the GitLab CI jobs parse, and every command
 * they run exists: each `billing-conform` sub-command, and each of its flags in that
 * sub-command's usage. They shard, merge, publish junit.xml, keep the reports and (GitHub)
 * append summary.md to the job summary.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { shardProblem } from '../../src/cli/commands/merge.ts';
import { help, loadCommand } from '../../src/cli/main.ts';
import { initConfig } from '../../src/cli/commands/init.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const PKG = JSON.parse(readFileSync(`${ROOT}package.json`, 'utf8'));
const BINS = Object.keys(PKG.bin);
/** Other programs the examples may run: on every CI image, or installed by the steps. */
const KNOWN_PROGRAMS = ['npm', 'npx', 'cat', 'echo', 'mkdir', 'ls', 'test', 'cp'];

type Json = Record<string, any>;

/** Shell lines to simple commands, each as words (quotes removed; CI expressions kept as one word). */
export function commandsOf(script: string): string[][] {
  const joined = script.replace(/\\\n/g, ' ').replace(/\$\{\{[^}]*\}\}/g, (m) => m.replace(/\s+/g, ''));
  const out: string[][] = [];
  for (const line of joined.split('\n')) {
    const words: string[] = [];
    let word = '';
    let quote: string | undefined;
    let pending = false;
    const flush = () => {
      if (pending) words.push(word);
      word = '';
      pending = false;
    };
    const end = () => {
      flush();
      if (words.length) out.push(words.splice(0));
    };
    for (let i = 0; i < line.length; i++) {
      const c = line[i];
      if (quote) {
        if (c === quote) quote = undefined;
        else word += c;
      } else if (c === '"' || c === "'") {
        quote = c;
        pending = true;
      } else if (c === '#' && !pending) {
        break;
      } else if (/\s/.test(c)) {
        flush();
      } else if (c === ';' || c === '|' || c === '&') {
        end();
        while (line[i + 1] === '|' || line[i + 1] === '&') i++;
      } else if (c === '>') {
        // A redirection: its target is not a command word.
        flush();
        while (line[i + 1] === '>') i++;
        while (line[i + 1] === ' ') i++;
        let j = i + 1;
        let q: string | undefined;
        while (j < line.length && (q || !/[\s;|&]/.test(line[j]))) {
          if (line[j] === '"' || line[j] === "'") q = q === line[j] ? undefined : (q ?? line[j]);
          j++;
        }
        i = j - 1;
      } else {
        word += c;
        pending = true;
      }
    }
    end();
  }
  return out;
}

/** The CLI invocations among commands: [sub-command, ...args] after `npx billing-conform` or `billing-conform`. */
function cliCalls(commands: string[][]): string[][] {
  const calls: string[][] = [];
  for (const words of commands) {
    let i = words[0] === 'npx' ? 1 : 0;
    while (words[i]?.startsWith('-')) i++;
    if (BINS.includes(words[i]?.split('/').pop() ?? '')) calls.push(words.slice(i + 1));
  }
  return calls;
}

async function checkCall(call: string[]): Promise<string[]> {
  const [sub, ...args] = call;
  if (!sub) return ['no sub-command'];
  if (sub.startsWith('-')) return help().includes(sub) ? [] : [`'${sub}' is not a global option of billing-conform`];
  const command = await loadCommand(sub);
  if (!command) return [`'${sub}' is not a billing-conform command`];
  const problems: string[] = [];
  for (const arg of args) {
    if (!arg.startsWith('-')) continue;
    const flag = arg.split('=')[0];
    if (!new RegExp(`(^|[\\s,])${flag.replace(/[-]/g, '\\-')}([\\s,=]|$)`, 'm').test(command.usage))
      problems.push(`'${sub} ${flag}' is not an option of ${sub} (conform ${sub} --help)`);
  }
  return problems;
}

async function checkScripts(scripts: string[]): Promise<{ calls: string[][]; problems: string[] }> {
  const commands = scripts.flatMap(commandsOf);
  const problems: string[] = [];
  for (const words of commands)
    if (!KNOWN_PROGRAMS.includes(words[0])) problems.push(`unknown program '${words[0]}' in: ${words.join(' ')}`);
  const calls = cliCalls(commands);
  for (const call of calls) problems.push(...(await checkCall(call)));
  return { calls, problems };
}

const github = parse(readFileSync(`${ROOT}examples/ci/github-actions.yml`, 'utf8')) as Json;
const gitlab = parse(readFileSync(`${ROOT}examples/ci/gitlab-ci.yml`, 'utf8')) as Json;

function githubSteps(): Json[] {
  return Object.values(github.jobs as Json).flatMap((j: Json) => j.steps as Json[]);
}

function gitlabScripts(): string[] {
  const jobs = Object.entries(gitlab).filter(([, v]) => v && typeof v === 'object' && !Array.isArray(v)) as [
    string,
    Json,
  ][];
  return jobs.flatMap(([, j]) =>
    ['before_script', 'script', 'after_script'].flatMap((k) => (Array.isArray(j[k]) ? (j[k] as string[]) : [])),
  );
}

describe('the command checker', () => {
  it('splits shell lines into commands and finds the CLI calls, flags included', async () => {
    expect(
      commandsOf(
        'npm ci && npx billing-conform run --shard "$I/3" \\\n  --report-dir r # note\ncat a.md >> "$GITHUB_STEP_SUMMARY"',
      ),
    ).toEqual([
      ['npm', 'ci'],
      ['npx', 'billing-conform', 'run', '--shard', '$I/3', '--report-dir', 'r'],
      ['cat', 'a.md'],
    ]);
    expect(commandsOf('npx billing-conform run --shard ${{ matrix.shard }}/3')[0]).toEqual([
      'npx',
      'billing-conform',
      'run',
      '--shard',
      '${{matrix.shard}}/3',
    ]);
  });

  it('fails on a command, a flag or a program that does not exist', async () => {
    const bad = await checkScripts([
      'npx billing-conform runn',
      'npx billing-conform run --shards 1/2',
      'npx billing-conform merge a --output m',
      'npx billing-conform --versions',
      'curlx http://x',
    ]);
    expect(bad.problems).toEqual([
      "unknown program 'curlx' in: curlx http://x",
      "'runn' is not a billing-conform command",
      "'run --shards' is not an option of run (conform run --help)",
      "'merge --output' is not an option of merge (conform merge --help)",
      "'--versions' is not a global option of billing-conform",
    ]);
    expect(
      (
        await checkScripts([
          'npx billing-conform run --sandbox --shard 1/2 --report-dir=x',
          'npx billing-conform --version',
        ])
      ).problems,
    ).toEqual([]);
  });
});

describe('examples/ci/github-actions.yml', () => {
  it('runs only commands and flags that exist', async () => {
    const { calls, problems } = await checkScripts(
      githubSteps()
        .filter((s) => typeof s.run === 'string')
        .map((s) => s.run as string),
    );
    expect(problems).toEqual([]);
    expect(calls.map((c) => c[0]).sort()).toEqual(['merge', 'run']);
  });

  it('installs, runs one shard per matrix entry, merges them all, and gates on the merge', async () => {
    const shardJob = Object.values(github.jobs as Json).find((j: Json) => j.strategy?.matrix?.shard) as Json;
    const shards = shardJob.strategy.matrix.shard as number[];
    const runStep = (shardJob.steps as Json[]).find((s) => /billing-conform run /.test(s.run ?? ''))!;
    expect(runStep.run).toContain(`--shard \${{ matrix.shard }}/${shards.length}`);
    expect((shardJob.steps as Json[]).some((s) => /^npm ci\b/.test(s.run ?? ''))).toBe(true);
    // The merge must fail when a shard is missing, so that a lost shard cannot pass the gate.
    expect(
      shardProblem(shards.slice(1).map((index) => ({ run: { shard: { index, count: shards.length } } }) as never)),
    ).toMatch(/shard 1\/\d missing/);
    const steps = githubSteps();
    expect(
      steps.some((s) => /billing-conform merge shards\/conformance-shard-\* --out reports\/merged/.test(s.run ?? '')),
    ).toBe(true);
    expect(steps.find((s) => /GITHUB_STEP_SUMMARY/.test(s.run ?? ''))?.run).toBe(
      'cat reports/merged/summary.md >> "$GITHUB_STEP_SUMMARY"',
    );
    expect(steps.some((s) => /junit/.test(s.uses ?? '') && s.with?.report_paths === 'reports/merged/junit.xml')).toBe(
      true,
    );
    expect(steps.filter((s) => /^actions\/upload-artifact@/.test(s.uses ?? '')).map((s) => s.with.path)).toEqual([
      'reports/shard-${{ matrix.shard }}',
      'reports/merged',
    ]);
  });
});

describe('examples/ci/gitlab-ci.yml', () => {
  it('runs only commands and flags that exist', async () => {
    const { calls, problems } = await checkScripts(gitlabScripts());
    expect(problems).toEqual([]);
    expect(calls.map((c) => c[0]).sort()).toEqual(['merge', 'run']);
  });

  it('installs, runs parallel shards, merges them, publishes junit.xml and keeps the reports', () => {
    expect(gitlabScripts().some((s) => /^npm ci\b/.test(s))).toBe(true);
    expect(gitlab.conformance.parallel).toBeGreaterThan(1);
    expect(gitlab.conformance.script.join('\n')).toContain('--shard "$CI_NODE_INDEX/$CI_NODE_TOTAL"');
    expect(gitlab['conformance-report'].script.join('\n')).toContain(
      'billing-conform merge reports/shard-* --out reports/merged',
    );
    expect(gitlab['conformance-report'].artifacts.reports.junit).toBe('reports/merged/junit.xml');
    expect(gitlab.conformance.artifacts.when).toBe('always');
  });
});

/** The value following `--seed` in a CLI call. */
function seedOf(call: string[]): string | undefined {
  const i = call.findIndex((a) => a === '--seed' || a.startsWith('--seed='));
  return i < 0 ? undefined : call[i].startsWith('--seed=') ? call[i].slice(7) : call[i + 1];
}

describe('the CI examples can gate a real sandbox', () => {
  const module = readFileSync(`${ROOT}examples/sandbox/conform.fixtures.ts`, 'utf8');
  const config = initConfig('https://sandbox.billing.example.com', 'x.json');

  it('GitHub: the key and the back office come from secrets, in the variables the init config and module read', () => {
    const shardJob = Object.values(github.jobs as Json).find((j: Json) => j.strategy?.matrix?.shard) as Json;
    const runStep = (shardJob.steps as Json[]).find((s) => /billing-conform run /.test(s.run ?? ''))!;
    for (const [name, value] of Object.entries(runStep.env as Record<string, string>))
      expect(value, name).toMatch(/^\$\{\{ secrets\.[A-Z_]+ \}\}$/);
    expect(Object.keys(runStep.env).sort()).toEqual(['BILLING_API_KEY', 'CONFORM_ADMIN_KEY', 'CONFORM_ADMIN_URL']);
    expect(config).toMatch(/^apiKeyEnv: BILLING_API_KEY\b/m);
    for (const v of ['CONFORM_ADMIN_URL', 'CONFORM_ADMIN_KEY']) expect(module).toContain(`process.env.${v}`);
  });

  it('every shard takes one seed, the pipeline’s number (GitHub: run_number; GitLab: CI_PIPELINE_IID)', () => {
    const githubRun = cliCalls(
      githubSteps()
        .filter((s) => typeof s.run === 'string')
        .flatMap((s) => commandsOf(s.run)),
    ).find((c) => c[0] === 'run')!;
    expect(seedOf(githubRun)).toBe('${{github.run_number}}');
    const gitlabRun = cliCalls(gitlabScripts().flatMap(commandsOf)).find((c) => c[0] === 'run')!;
    expect(seedOf(gitlabRun)).toBe('$CI_PIPELINE_IID');
    expect(seedOf(['run', '--shard', '1/3'])).toBeUndefined();
  });

  it('the module path they name is the one init writes (ci-github-run.test.ts loads it in a CommonJS repository)', () => {
    expect(config).toMatch(/^ {2}module: \.\/conform\.fixtures\.mts\b/m);
    for (const file of ['github-actions.yml', 'gitlab-ci.yml']) {
      const text = readFileSync(`${ROOT}examples/ci/${file}`, 'utf8');
      expect(text, file).toMatch(/billing-conform init/);
      expect(text, file).toContain('./conform.fixtures.mts');
      for (const v of ['BILLING_API_KEY', 'CONFORM_ADMIN_URL', 'CONFORM_ADMIN_KEY'].slice(
        file === 'gitlab-ci.yml' ? 0 : 1,
      ))
        expect(text, `${file}: ${v}`).toContain(v);
    }
  });
});
