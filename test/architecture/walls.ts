/**
 * The architecture's walls as data, and a scanner that reads every import of the project's
 * code (static, type-only, re-exports, dynamic `import()`, `import('x').T` types, `require`)
 * and reports each import that crosses a wall. docs/architecture.md states the same rules.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { dirname, join, posix, relative, resolve, sep } from 'node:path';
import ts from 'typescript';

/** The folders whose imports are checked, relative to the project root. */
export const SCANNED = ['src', 'suites', 'bin', 'mutation', 'bench', 'scripts', 'spec'];

/** The one module through which the CLI reaches the reference server. */
export const REFERENCE_GATE = 'src/cli/reference.ts';

/**
 * Files allowed a computed `import(expr)` (which no scanner can follow), each with why.
 * Any other computed import is reported: it could hide a crossing.
 */
export const COMPUTED_IMPORTS: Record<string, string> = {
  'src/engine/fixtures/module.ts': "loads the team's own fixtures module, named in their config",
  // Its sources, imported by literal path beside it, are what src/cli/compiled.js bundles.
  'bin/conform.js': 'runs the compiled copy of src/cli/main.ts or reference-child.ts (src/cli/compiled.js)',
};

export type Zone =
  'contract' | 'reference' | 'engine' | 'passive' | 'faults' | 'suites' | 'cli' | 'gate' | 'bin' | 'tool' | 'other';

/** The zone of a project-relative path (forward slashes). */
export function zoneOf(path: string): Zone {
  if (path === REFERENCE_GATE) return 'gate';
  const [top, second] = path.split('/');
  if (top === 'spec') return 'contract';
  if (top === 'src') {
    if (second === 'contract') return 'contract';
    if (second === 'reference') return 'reference';
    if (second === 'engine') return 'engine';
    if (second === 'passive') return 'passive';
    if (second === 'faults') return 'faults';
    if (second === 'cli') return 'cli';
    return 'other';
  }
  if (top === 'suites') return 'suites';
  if (top === 'bin') return 'bin';
  if (top === 'bench' || top === 'mutation' || top === 'scripts') return 'tool';
  return 'other';
}

/** Zones each zone may import from (besides itself and packages). docs/architecture.md is this table in prose. */
export const ALLOWED: Record<Zone, Zone[]> = {
  // The contract and its loader (spec/, src/contract): shared by both sides, so it depends on neither.
  contract: [],
  // The reference server reads the contract, nothing of the engine.
  reference: ['contract'],
  // The judging core reaches any target only over HTTP.
  engine: ['contract'],
  // The passive judge (conform proxy, conform judge) applies the core's checks to recorded traffic.
  passive: ['engine', 'contract'],
  // The fault harness (conform faults) breaks a target's answers and runs the core
  // and the passive judge on them; nothing imports it but the CLI and tools.
  faults: ['engine', 'passive', 'contract'],
  suites: ['engine', 'contract'],
  // The CLI drives the engine, and starts the reference only through the gate.
  cli: ['engine', 'passive', 'faults', 'contract', 'gate'],
  gate: ['reference', 'contract'],
  bin: ['cli'],
  // Benchmarks, mutation testing and scripts: either side, never both in one file (below).
  tool: ['engine', 'passive', 'faults', 'suites', 'contract', 'cli', 'reference', 'gate', 'other'],
  // A source file in no known zone (a new src/ folder): the test asks for its place in the walls.
  other: [],
};

const ENGINE_SIDE: Zone[] = ['engine', 'passive', 'faults', 'suites', 'cli'];
const REFERENCE_SIDE: Zone[] = ['reference', 'gate'];

export interface Violation {
  file: string;
  specifier: string;
  rule: string;
}

interface ImportRef {
  specifier?: string;
  line: number;
}

/** Every module reference in one source file; `specifier` is undefined for a computed import. */
export function importsOf(fileName: string, text: string): ImportRef[] {
  const source = ts.createSourceFile(
    fileName,
    text,
    ts.ScriptTarget.Latest,
    false,
    fileName.endsWith('.js') || fileName.endsWith('.mjs') ? ts.ScriptKind.JS : ts.ScriptKind.TS,
  );
  const out: ImportRef[] = [];
  const add = (node: ts.Node, arg: ts.Node | undefined) => {
    const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
    while (arg && (ts.isAsExpression(arg) || ts.isParenthesizedExpression(arg))) arg = arg.expression;
    out.push({ specifier: arg && ts.isStringLiteralLike(arg) ? arg.text : urlLiteral(arg), line });
  };
  const visit = (node: ts.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier)
      add(node, node.moduleSpecifier);
    else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference))
      add(node, node.moduleReference.expression);
    else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) add(node, node.argument.literal);
    else if (
      ts.isCallExpression(node) &&
      (node.expression.kind === ts.SyntaxKind.ImportKeyword ||
        (ts.isIdentifier(node.expression) && node.expression.text === 'require'))
    )
      add(node, node.arguments[0]);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
}

/** `new URL('./x.ts', import.meta.url)` or its `.href`: a literal path after all. */
function urlLiteral(node: ts.Node | undefined): string | undefined {
  if (node && ts.isPropertyAccessExpression(node) && node.name.text === 'href') node = node.expression;
  if (!node || !ts.isNewExpression(node) || !ts.isIdentifier(node.expression) || node.expression.text !== 'URL')
    return undefined;
  const [path, base] = node.arguments ?? [];
  const isImportMetaUrl =
    base && ts.isPropertyAccessExpression(base) && base.name.text === 'url' && ts.isMetaProperty(base.expression);
  return path && ts.isStringLiteralLike(path) && isImportMetaUrl ? path.text : undefined;
}

/** The walls one file breaks; `file` is project-relative with forward slashes. */
export function checkFile(file: string, text: string): Violation[] {
  const from = zoneOf(file);
  const violations: Violation[] = [];
  const sides = new Set<'engine' | 'reference'>();
  for (const ref of importsOf(file, text)) {
    if (ref.specifier === undefined) {
      if (!(file in COMPUTED_IMPORTS))
        violations.push({
          file: `${file}:${ref.line}`,
          specifier: '(computed)',
          rule: 'a computed import() hides what it loads: import a literal path',
        });
      continue;
    }
    if (!ref.specifier.startsWith('.')) continue; // a package or a node: builtin
    const target = posix.join(posix.dirname(file), ref.specifier);
    const to = zoneOf(target);
    if (to === from) continue;
    if (ENGINE_SIDE.includes(to)) sides.add('engine');
    if (REFERENCE_SIDE.includes(to)) sides.add('reference');
    if (!ALLOWED[from].includes(to))
      violations.push({ file: `${file}:${ref.line}`, specifier: ref.specifier, rule: ruleText(from, to) });
  }
  if (from === 'tool' && sides.size === 2)
    violations.push({
      file,
      specifier: '(both sides)',
      rule: 'a tool imports the engine side or the reference side, never both',
    });
  return violations;
}

function ruleText(from: Zone, to: Zone): string {
  if (to === 'reference' && from === 'cli') return `the CLI reaches the reference only through ${REFERENCE_GATE}`;
  if (to === 'reference' || to === 'gate') return `${from} never imports the reference server`;
  if (from === 'reference') return `the reference never imports ${to}`;
  if (from === 'contract') return `the contract loader is shared by both sides and imports neither (${to})`;
  return `${from} never imports ${to}`;
}

/** Source files under the scanned folders of `root`, project-relative. */
export function sourceFiles(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const abs = join(dir, e.name);
      if (e.isDirectory()) {
        if (e.name !== 'node_modules') walk(abs);
      } else if (/\.(ts|mts|js|mjs|cjs)$/.test(e.name) && !e.name.endsWith('.d.ts'))
        out.push(relative(root, abs).split(sep).join('/'));
    }
  };
  for (const dir of SCANNED) walk(resolve(root, dir));
  return out.sort();
}

/** The .ts files under an absolute folder, recursively, as absolute paths. */
export async function tsFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...(await tsFiles(p)));
    else if (e.name.endsWith('.ts')) out.push(p);
  }
  return out;
}

/** Every violation under `root`, and how many files were read. */
export function scan(root: string): { files: number; violations: Violation[] } {
  const files = sourceFiles(root);
  const violations = files.flatMap((f) => checkFile(f, readFileSync(join(root, f), 'utf8')));
  return { files: files.length, violations };
}

/** The files under `dirs` and the files under `dirs` each one imports (relative specifiers, type imports too). */
export function importGraph(root: string, dirs: string[]): Map<string, string[]> {
  const inside = (f: string) => dirs.some((d) => f.startsWith(`${d}/`));
  const files = sourceFiles(root).filter(inside);
  const known = new Set(files);
  const graph = new Map<string, string[]>();
  for (const f of files) {
    const targets = importsOf(f, readFileSync(join(root, f), 'utf8'))
      .map((r) => r.specifier)
      .filter((s): s is string => !!s && s.startsWith('.'))
      .map((s) =>
        relative(root, resolve(root, dirname(f), s))
          .split(sep)
          .join('/'),
      )
      .filter((t) => known.has(t));
    graph.set(f, [...new Set(targets)]);
  }
  return graph;
}

/** Each set of modules that import one another round in a circle (Tarjan's strongly connected components). */
export function importCircles(graph: Map<string, string[]>): string[][] {
  let index = 0;
  const order = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const circles: string[][] = [];
  const visit = (v: string): void => {
    order.set(v, index);
    low.set(v, index++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!order.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, order.get(w)!));
    }
    if (low.get(v) === order.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || (graph.get(v) ?? []).includes(v)) circles.push(component.sort());
    }
  };
  for (const v of graph.keys()) if (!order.has(v)) visit(v);
  return circles;
}

/**
 * The graph of a zone's parts: each folder directly under `dir` (src/engine/checks, with all
 * below it) or module at its top (src/engine/run.ts) is one node; an import between two parts
 * is an edge. Parts that import each other round a circle have no layer order between them.
 */
export function partGraph(graph: Map<string, string[]>, dir: string): Map<string, string[]> {
  const partOf = (f: string) => f.slice(dir.length + 1).split('/')[0];
  const parts = new Map<string, Set<string>>();
  for (const [f, targets] of graph) {
    if (!f.startsWith(`${dir}/`)) continue;
    const from = partOf(f);
    const edges = parts.get(from) ?? new Set<string>();
    parts.set(from, edges);
    for (const t of targets) if (t.startsWith(`${dir}/`) && partOf(t) !== from) edges.add(partOf(t));
  }
  return new Map([...parts].map(([p, e]) => [p, [...e].sort()]));
}
