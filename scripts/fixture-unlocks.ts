/**
 * npm run fixtures:unlocks [-- REPORT.json...] — writes, per fixture method, the contract rules
 * whose scenarios asked for it, from the reports of runs of examples/sandbox/conform.fixtures.ts
 * (report.json lists per scenario the fixtures it asked for): the reports given, or two runs it
 * makes against `conform serve --documented-port`. They go to src/engine/fixtures/unlocks.ts
 * (what the skeleton `billing-conform init` writes, `conform fixtures check` and docs/fixtures.md
 * say) and to the "Unlocks:" comments of the example. The first-hour packaging test holds them
 * equal to what its own runs of the example show.
 */
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const TEMPLATE = fileURLToPath(new URL('../examples/sandbox/conform.fixtures.ts', import.meta.url));
export const UNLOCKS_MODULE = fileURLToPath(new URL('../src/engine/fixtures/unlocks.ts', import.meta.url));

interface ReportLike {
  rules: Array<{ id: string; kind: string }>;
  scenarios: Array<{ ruleIds: string[]; fixtures?: string[] }>;
}

/** Fixture method → the contract rules cited by the scenarios that asked for it, over every report. */
export function unlocksFromReports(reports: ReportLike[]): Record<string, string[]> {
  const sets: Record<string, Set<string>> = {};
  for (const report of reports) {
    const contract = new Set(report.rules.filter((r) => r.kind === 'contract').map((r) => r.id));
    for (const s of report.scenarios)
      for (const method of s.fixtures ?? [])
        for (const key of s.ruleIds) {
          // A scenario may cite one part of a rule (RULE.ID#part): the rule needs the fixture all the same.
          const id = key.split('#')[0];
          if (contract.has(id)) (sets[method] ??= new Set()).add(id);
        }
  }
  return Object.fromEntries(Object.entries(sets).map(([m, ids]) => [m, [...ids].sort()]));
}

const DOC_BEFORE_METHOD = /\/\*\*((?:(?!\*\/)[\s\S])*)\*\/\n\s*(?:async\s+)?(\w+)\s*[:(]/g;

/** Method → the rule ids its doc comment lists after "Unlocks:" (methods whose comment has none are left out). */
export function annotatedUnlocks(text: string): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [, doc, method] of text.matchAll(DOC_BEFORE_METHOD)) {
    const at = doc.indexOf('Unlocks:');
    if (at < 0) continue;
    out[method] = doc
      .slice(at + 'Unlocks:'.length)
      .split(/[\s,*]+/)
      .filter((w) => /^[A-Z][A-Z0-9_]*(\.[A-Z0-9_]+)+$/.test(w));
  }
  return out;
}

/** Method → the text of its doc comment (for the recipe checks). */
export function methodDocs(text: string): Record<string, string> {
  return Object.fromEntries([...text.matchAll(DOC_BEFORE_METHOD)].map(([, doc, method]) => [method, doc]));
}

/** The template with each "Unlocks:" comment rewritten from `unlocks` (wrapped to the file's width). */
export function withUnlocks(text: string, unlocks: Record<string, string[]>): string {
  return text.replace(DOC_BEFORE_METHOD, (whole: string, doc: string, method: string) => {
    const at = doc.indexOf('Unlocks:');
    if (at < 0) return whole;
    const indent = /\n(\s*)\*/.exec(doc)?.[1] ?? '     ';
    const ids = unlocks[method] ?? [];
    const lines: string[] = [];
    let line = `${indent}* Unlocks:`;
    if (!ids.length) line += ' no contract rule in the runs measured';
    for (const [i, id] of ids.entries()) {
      const word = ` ${id}${i < ids.length - 1 ? ',' : ''}`;
      if (line.length + word.length > 116) {
        lines.push(line);
        line = `${indent}*  `;
      }
      line += word;
    }
    lines.push(line);
    const head = doc.slice(0, doc.lastIndexOf('\n', at));
    return whole.replace(doc, `${head}\n${lines.join('\n')}\n${indent}`);
  });
}

/**
 * Two runs of examples/sandbox, as the first-hour test makes them: `conform serve
 * --documented-port` (the back office on its full port), the module strategy against the
 * documented port. Returns the reports' paths.
 */
async function runTwice(): Promise<string[]> {
  const bin = fileURLToPath(new URL('../bin/conform.js', import.meta.url));
  const key = `sk_test_unlocks_${randomBytes(8).toString('hex')}`;
  const out = mkdtempSync(join(tmpdir(), 'conform-unlocks-'));
  const server = spawn(process.execPath, [bin, 'serve', '--port', '0', '--documented-port', '0'], {
    env: { ...process.env, CONFORM_API_KEY: key },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    let text = '';
    for await (const chunk of server.stdout) {
      text += String(chunk);
      if (/documented endpoints only on/.test(text)) break;
    }
    const adminUrl = /listening on (http:\/\/\S+)/.exec(text)?.[1];
    const baseUrl = /documented endpoints only on (http:\/\/\S+)/.exec(text)?.[1];
    if (!adminUrl || !baseUrl) throw new Error(`conform serve did not start: ${text}`);
    const reports: string[] = [];
    for (const n of [1, 2]) {
      const dir = join(out, `run-${n}`);
      const run = spawnSync(process.execPath, [bin, 'run', '--base-url', baseUrl, '--report-dir', dir, '--plain'], {
        cwd: dirname(TEMPLATE),
        // The example asks the back office with a credential of its own (CONFORM_ADMIN_KEY): here the server's key.
        env: {
          ...process.env,
          BILLING_API_KEY: key,
          CONFORM_ADMIN_URL: adminUrl,
          CONFORM_ADMIN_KEY: key,
          CONFORM_API_KEY: '',
        },
        stdio: ['ignore', 'ignore', 'inherit'],
      });
      console.log(`run ${n} of examples/sandbox: exit ${run.status} (${dir})`);
      reports.push(join(dir, 'report.json'));
    }
    return reports;
  } finally {
    server.kill('SIGTERM');
  }
}

/** src/engine/fixtures/unlocks.ts for `unlocks`, every method listed (in `methods`' order, an empty list where none). */
export async function unlocksModule(unlocks: Record<string, string[]>, methods: readonly string[]): Promise<string> {
  const { format } = await import('prettier');
  const body = methods.map((m) => `  ${m}: ${JSON.stringify(unlocks[m] ?? []).replace(/"/g, "'")},`).join('\n');
  const text = `/**
 * Per fixture method, the contract rules whose scenarios ask for it: what a module that leaves
 * the method out leaves unjudged there. Written by \`npm run fixtures:unlocks\` from two runs of
 * examples/sandbox against a target with only the documented endpoints; the first-hour test
 * holds it to its own runs. Do not edit by hand.
 */
import type { FixtureMethod } from './methods.ts';

export const FIXTURE_UNLOCKS: Record<FixtureMethod, readonly string[]> = {
${body}
};
`;
  const options = (await import('prettier')).resolveConfig(UNLOCKS_MODULE);
  return format(text, { ...(await options), filepath: UNLOCKS_MODULE });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const files = process.argv.length > 2 ? process.argv.slice(2) : await runTwice();
  const unlocks = unlocksFromReports(files.map((f) => JSON.parse(readFileSync(f, 'utf8')) as ReportLike));
  const { FIXTURE_METHODS } = await import('../src/engine/fixtures/methods.ts');
  writeFileSync(UNLOCKS_MODULE, await unlocksModule(unlocks, FIXTURE_METHODS));
  writeFileSync(TEMPLATE, withUnlocks(readFileSync(TEMPLATE, 'utf8'), unlocks));
  console.log(
    `wrote the rules ${Object.keys(unlocks).length} fixture methods unlock into ${UNLOCKS_MODULE} and ${TEMPLATE}`,
  );
}
