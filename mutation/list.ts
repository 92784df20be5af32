/**
 * npm run mutation:list [-- FILE... [--grep TEXT]]: the mutants Stryker makes of the files
 * (default: the `mutate` list of mutation/stryker.config.mjs), without running anything,
 * each as a review entry of mutation/survivors.yaml would name it: file, mutator, original,
 * replacement, and `occurrence` where the file holds twins. For writing exact reviews.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Instrumenter } from '@stryker-mutator/instrumenter';
import { stringify } from 'yaml';
import { reportedMutants, type ReportedMutant } from './survivors.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));

const quiet = {
  isTraceEnabled: () => false,
  isDebugEnabled: () => false,
  isInfoEnabled: () => false,
  isWarnEnabled: () => false,
  isErrorEnabled: () => true,
  isFatalEnabled: () => true,
  trace() {},
  debug() {},
  info() {},
  warn() {},
  error() {},
  fatal() {},
};

/** Every mutant of `files` (paths relative to the project), with the original code as a review names it. */
export async function listMutants(files: string[]): Promise<ReportedMutant[]> {
  const sources = files.map((name) => ({
    name,
    content: readFileSync(`${ROOT}${name}`, 'utf8'),
    mutate: true as const,
  }));
  const result = await new Instrumenter(quiet as never).instrument(sources, {
    plugins: null,
    excludedMutations: [],
    ignorers: [],
    noHeader: true,
  } as never);
  // The instrumenter counts lines and columns from 0; Stryker's report (and sliceSource) from 1.
  const report = {
    files: Object.fromEntries(
      sources.map((s) => [
        s.name,
        {
          source: s.content,
          mutants: result.mutants
            .filter((m) => m.fileName === s.name)
            .map((m) => ({
              ...m,
              status: 'Pending',
              location: {
                start: { line: m.location.start.line + 1, column: m.location.start.column + 1 },
                end: { line: m.location.end.line + 1, column: m.location.end.column + 1 },
              },
            })),
        },
      ]),
    ),
  };
  return reportedMutants(report);
}

/** The config's mutate list; a `*` stands for any file name in its folder (the only glob it uses). */
async function defaultFiles(): Promise<string[]> {
  const config = (await import(new URL('./stryker.config.mjs', import.meta.url).href)).default as { mutate: string[] };
  return config.mutate.flatMap((pattern) => {
    if (!pattern.includes('*')) return [pattern];
    const dir = dirname(pattern);
    const re = new RegExp(`^${basename(pattern).replace(/[.]/g, '\\.').replace(/\*/g, '[^/]*')}$`);
    return readdirSync(`${ROOT}${dir}`)
      .filter((f) => re.test(f))
      .sort()
      .map((f) => join(dir, f));
  });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const args = process.argv.slice(2);
  const g = args.indexOf('--grep');
  const grep = g >= 0 ? args.splice(g, 2)[1] : undefined;
  const files = args.length ? args : await defaultFiles();
  const mutants = (await listMutants(files)).filter(
    (m) => !grep || m.original.includes(grep) || m.replacement.includes(grep),
  );
  const entries = mutants.map((m) => ({
    file: m.file,
    mutator: m.mutator,
    original: m.original,
    replacement: m.replacement,
    ...(m.twins > 1 ? { occurrence: m.occurrence } : {}),
    line: m.line,
  }));
  process.stdout.write(stringify(entries, { lineWidth: 0 }));
  console.error(`${mutants.length} mutants (line is for reading only: reviews never name it)`);
}
