/** `conform merge`: merges the report.json of shard runs into one report (all four files). */
import { existsSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { CliError, wantsHelp, type Command } from '../command.ts';
import { named } from '../../engine/messages/command-name.ts';
import { MergeError, mergeReports, readReport, writeReports, type Report } from '../../engine/reporters/index.ts';
import { outputStyle } from '../../engine/runner/progress.ts';
import { summaryLines } from '../../engine/reporters/console.ts';

export const usage = `Usage: conform merge <dir|report.json>... --out DIR

Merges the reports of shard runs (conform run --shard i/n) into one, and writes
report.json, junit.xml, report.html and summary.md into DIR. Every shard of the split
must be there, once. Findings and judgements of every shard add up: a rule fails if it
failed in any shard, is an engine error if the tool broke on it, passes if a shard judged
it, else is not judged (with every shard's reasons).

Options:
  --out DIR     where the merged reports go (required)
  -h, --help    this help

Exit codes: as conform run's, for the merged run (0 passed, 1 failed, 2 error or the merge
could not be done, 3 gaps not accepted).`;

export function parseMergeArgs(argv: string[]): { inputs: string[]; out: string } {
  const inputs: string[] = [];
  let out: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--out') {
      out = argv[++i];
      if (!out) throw new CliError('--out needs a directory');
    } else if (a.startsWith('--out=')) out = a.slice(6);
    else if (a.startsWith('-')) throw new CliError(`unknown option '${a}'. Run 'conform merge --help'.`);
    else inputs.push(a);
  }
  if (!inputs.length) throw new CliError('name at least one shard report directory (or report.json)');
  if (!out) throw new CliError('--out DIR is required');
  return { inputs, out };
}

/**
 * Reports of sharded runs merge only when every shard of one split is there once: a
 * missing shard would leave its rules looking never run, and the merge could pass.
 */
export function shardProblem(reports: Pick<Report, 'run'>[]): string | undefined {
  const shards = reports.map((r) => r.run.shard);
  if (shards.every((s) => !s)) return undefined;
  if (shards.some((s) => !s)) return 'some reports come from sharded runs (--shard) and some do not';
  const counts = [...new Set(shards.map((s) => s!.count))];
  if (counts.length > 1) return `the reports come from different splits (${counts.map((c) => `of ${c}`).join(', ')})`;
  const n = counts[0];
  const seen = shards.map((s) => s!.index);
  const twice = seen.find((i, k) => seen.indexOf(i) !== k);
  if (twice !== undefined) return `shard ${twice}/${n} is given twice`;
  const missing = Array.from({ length: n }, (_, k) => k + 1).filter((i) => !seen.includes(i));
  if (missing.length) {
    const many = missing.length > 1;
    return (
      `shard ${missing.map((i) => `${i}/${n}`).join(', ')} missing: ` +
      `without ${many ? 'them' : 'it'} the merge would report ${many ? 'their' : 'its'} rules as never run`
    );
  }
  return undefined;
}

const command: Command = {
  name: 'merge',
  summary: 'Merge shard reports into one',
  usage,
  async run(argv) {
    if (wantsHelp(argv)) {
      console.log(named(usage));
      return 0;
    }
    const { inputs, out } = parseMergeArgs(argv);
    const reports: Report[] = [];
    for (const input of inputs) {
      const path = existsSync(input) && statSync(input).isDirectory() ? join(input, 'report.json') : input;
      if (!existsSync(path)) throw new CliError(`no report at ${path}`);
      try {
        reports.push(await readReport(path));
      } catch (err) {
        throw new CliError(`cannot read ${path}: ${(err as Error).message.split('\n')[0]}`);
      }
    }
    const shards = shardProblem(reports);
    if (shards) throw new CliError(shards);
    let merged: Report;
    try {
      merged = mergeReports(reports, inputs);
    } catch (err) {
      if (err instanceof MergeError) throw new CliError(err.message);
      throw err;
    }
    const dir = resolve(out);
    await writeReports(merged, dir);
    const s = merged.summary;
    const style = outputStyle();
    style.write(`merged ${reports.length} reports`);
    for (const line of summaryLines(style, merged, dir)) style.write(line);
    return s.exitCode;
  },
};

export default command;
