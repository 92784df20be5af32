/**
 * npm run types [-- DIR] — writes types/ (or DIR): the TypeScript declarations of the package's
 * public entry `billing-conform/fixtures` (src/engine/fixtures/public.ts: the fixtures module
 * interface) and of what it reaches. types/ is committed, so that installing the package (from
 * a tarball or from git) runs no script of its own; test/packaging/types-current.test.ts fails
 * when it no longer matches the sources.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const ENTRY = 'src/engine/fixtures/public.ts';
const OUT = process.argv[2] ?? 'types';

const options: ts.CompilerOptions = {
  declaration: true,
  emitDeclarationOnly: true,
  allowImportingTsExtensions: true,
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  target: ts.ScriptTarget.ES2022,
  strict: true,
  skipLibCheck: true,
  types: ['node'],
  rootDir: join(ROOT, 'src'),
  outDir: resolve(ROOT, OUT),
  newLine: ts.NewLineKind.LineFeed,
};

rmSync(resolve(ROOT, OUT), { recursive: true, force: true });
const program = ts.createProgram([join(ROOT, ENTRY)], options);
let written = 0;
const result = program.emit(
  undefined,
  (file, text) => {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, text);
    written++;
  },
  undefined,
  true,
);
// Type errors are `npm run typecheck`'s to report; declarations are written regardless.
const errors = result.diagnostics.filter((d) => d.category === ts.DiagnosticCategory.Error);
if (errors.length)
  console.error(
    ts.formatDiagnostics(errors, {
      getCanonicalFileName: (f) => f,
      getCurrentDirectory: () => ROOT,
      getNewLine: () => '\n',
    }),
  );
console.log(`types: ${written} declaration files for ${ENTRY} in ${OUT}/`);
