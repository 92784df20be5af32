/**
 * API paths are read from the contract (`spec.pathFor(operationId, params)`, src/contract), never
 * written out: a path copied from spec/openapi.yaml can drift from it. Scans the judges (src/engine,
 * src/passive, suites/) through the TypeScript parser for string and template literal texts
 * starting with /v0/ or /v2/; the few that must stay literals (a path no operation declares, on
 * purpose) are listed in ALLOWED with why. A new literal fails, and so does an entry of ALLOWED no
 * longer found.
 */
import { readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, test } from 'vitest';
import { tsFiles } from './walls.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SCANNED = ['src/engine', 'src/passive', 'suites'];
const API_PATH = /^\/v[02]\//;

interface Allowed {
  file: string;
  literal: string;
  reason: string;
}

/** The path literals that stay, each with why no operation's path fits (file relative to the root, forward slashes). */
export const ALLOWED: Allowed[] = [
  {
    file: 'src/engine/target/probe.ts',
    literal: '/v0/conformProbeNoSuchRoute/',
    reason: 'the control of the probe: a route no document declares, whose 404 a route-level 404 is compared with',
  },
];

/** The texts of the string and template literals in one source file starting with /v0/ or /v2/: `line: text`. */
export function pathLiteralsIn(source: string, fileName = 'file.ts'): Array<{ line: number; text: string }> {
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found: Array<{ line: number; text: string }> = [];
  const visit = (node: ts.Node): void => {
    // A template's head, middles and tail are tokens of their own: `${base}/v0/...` is found by its middle.
    const text =
      ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node) || ts.isTemplateLiteralToken(node)
        ? (node as ts.LiteralLikeNode).text
        : undefined;
    if (text !== undefined && API_PATH.test(text))
      found.push({ line: file.getLineAndCharacterOfPosition(node.getStart()).line + 1, text });
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

/** Literals not in the allow-list (`file:line: text`) and allow-list entries no longer found. */
export function compareWithAllowed(
  found: Array<{ file: string; line: number; text: string }>,
  allowed: Allowed[] = ALLOWED,
): { unlisted: string[]; stale: string[] } {
  const key = (file: string, text: string) => `${file} ${text}`;
  const listed = new Set(allowed.map((a) => key(a.file, a.literal)));
  const seen = new Set(found.map((f) => key(f.file, f.text)));
  return {
    unlisted: found.filter((f) => !listed.has(key(f.file, f.text))).map((f) => `${f.file}:${f.line}: ${f.text}`),
    stale: allowed.filter((a) => !seen.has(key(a.file, a.literal))).map((a) => `${a.file}: ${a.literal}`),
  };
}

describe('API paths are read from the contract (spec.pathFor), never written out', () => {
  test('the scanner finds a path in a string, a template without and with substitutions, in any of its parts', () => {
    const src = [
      "const a = '/v0/customers';",
      'const b = `/v2/invoices`;',
      'const c = `/v0/customers/${id}/x`;',
      'const d = `${base}/v0/items/${id}`;',
      "const e = http.get('/v2/invoices/' + id);",
      "const fine = spec.pathFor('getCustomer', { id }); const g = 'GET /v0/customers'; const h = '/v1/x';",
      '// a comment naming /v0/customers is no literal',
      "const i = { path: '/v0/webhooks' };",
    ].join('\n');
    expect(pathLiteralsIn(src)).toEqual([
      { line: 1, text: '/v0/customers' },
      { line: 2, text: '/v2/invoices' },
      { line: 3, text: '/v0/customers/' },
      { line: 4, text: '/v0/items/' },
      { line: 5, text: '/v2/invoices/' },
      { line: 8, text: '/v0/webhooks' },
    ]);
  });

  test('a literal missing from the allow-list and an entry no longer found are both reported', () => {
    const allowed: Allowed[] = [
      { file: 'a.ts', literal: '/v0/kept', reason: 'on purpose' },
      { file: 'a.ts', literal: '/v0/gone', reason: 'removed since' },
    ];
    const found = [
      { file: 'a.ts', line: 3, text: '/v0/kept' },
      { file: 'a.ts', line: 9, text: '/v0/new' },
      { file: 'b.ts', line: 1, text: '/v0/kept' },
    ];
    expect(compareWithAllowed(found, allowed)).toEqual({
      unlisted: ['a.ts:9: /v0/new', 'b.ts:1: /v0/kept'],
      stale: ['a.ts: /v0/gone'],
    });
  });

  test('every entry of the allow-list says why', () => {
    for (const a of ALLOWED) expect(a.reason.trim().length, `${a.file}: ${a.literal}`).toBeGreaterThan(10);
  });

  test('src/engine, src/passive and suites/ hold no path literal but those allowed', async () => {
    const found: Array<{ file: string; line: number; text: string }> = [];
    for (const dir of SCANNED)
      for (const f of await tsFiles(join(ROOT, dir))) {
        const file = relative(ROOT, f).split('\\').join('/');
        for (const hit of pathLiteralsIn(await readFile(f, 'utf8'), file)) found.push({ file, ...hit });
      }
    expect(compareWithAllowed(found)).toEqual({ unlisted: [], stale: [] });
  });
});
