/**
 * A rule's constants (id prefixes, patterns, header names, enumerations and other lists, tables,
 * bounds and counts: every kind of param spec/rules.yaml uses) live there and are
 * read from there (src/engine/predicates.ts): a copy in a judge's code is a second definition of
 * the rule that can drift from the first. Scans the judges (the core src/engine, suites/ and the
 * passive judge src/passive) through the TypeScript parser; the fault harness (src/faults), which
 * writes violations on purpose, is not a judge.
 */
import { readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, test } from 'vitest';
import { tsFiles } from './walls.ts';
import { loadRules, type RuleIndex } from '../../src/contract/rules.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SCANNED = ['src/engine', 'src/passive', 'suites'];
const NOT_JUDGES = ['src/faults/'];

interface Constants {
  /** Prefixes, patterns and header names, as string or regex literals. */
  literals: Set<string>;
  /** Names distinctive inside any text (header names, error categories): found in messages and templates too. */
  words: Set<string>;
  /** Lists (params.values, keeps, required, headers...), as sorted `a|b|c` keys of array literals. */
  enums: Map<string, string>;
  /** Tables of names to numbers (params.categories): `name:number` pairs, by rule. */
  tables: Map<string, Set<string>>;
  /** Numbers a rule states that no code has another reason to write (255, 2147483647...). */
  numbers: Map<number, string>;
  /** Numbers by the name of their param (maxAttempts: 5): a declaration of that name holding it is a copy. */
  named: Map<string, { value: number; rule: string }>;
}

/** Numbers too common to tell a copy from another use (counts, percentages, seconds, sizes). */
const COMMON_NUMBERS = new Set([0, 1, 2, 3, 5, 6, 10, 30, 60, 100, 1000]);
/**
 * Params that name things (an operation's method and path, a bucket, an object, fields) rather
 * than state a fact: code writes those names for other reasons.
 */
export const NAMES = new Set(['method', 'path', 'bucket', 'object', 'within', 'fields', 'shownAs']);
const squash = (name: string) => name.replace(/[_-]/g, '').toLowerCase();

export function constantsOf(rules: RuleIndex): Constants {
  const c: Constants = {
    literals: new Set(),
    words: new Set(),
    enums: new Map(),
    tables: new Map(),
    numbers: new Map(),
    named: new Map(),
  };
  const visit = (key: string, v: unknown, rule: string): void => {
    if (NAMES.has(key)) return;
    if (typeof v === 'string') c.literals.add(v);
    else if (typeof v === 'number') {
      if (!COMMON_NUMBERS.has(v)) c.numbers.set(v, rule);
      c.named.set(squash(key), { value: v, rule });
    } else if (Array.isArray(v)) {
      if (v.length > 1 && v.every((x) => typeof x === 'string')) c.enums.set([...v].map(String).sort().join('|'), rule);
      // Header names are distinctive on their own.
      for (const x of v) if (typeof x === 'string' && x.startsWith('x-')) c.literals.add(x);
    } else if (v && typeof v === 'object') {
      const entries = Object.entries(v);
      if (entries.length > 1 && entries.every(([, n]) => typeof n === 'number')) {
        c.tables.set(rule, new Set(entries.map(([k, n]) => `${k}:${n}`)));
        for (const [k] of entries) if (/^[a-z]+(_[a-z]+)+$/.test(k)) c.words.add(k);
      } else for (const [, x] of entries) visit(`${key}.*`, x, rule);
    }
  };
  for (const r of rules.rules) for (const [k, v] of Object.entries(r.params ?? {})) visit(k, v, r.id);
  for (const l of c.literals) if (/^[a-z]+(-[a-z]+)+$/.test(l)) c.words.add(l);
  return c;
}

/** Copies of the constants in one source file: `line: what`. */
export function copiesIn(source: string, c: Constants, fileName = 'file.ts'): string[] {
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found: string[] = [];
  const at = (n: ts.Node) => file.getLineAndCharacterOfPosition(n.getStart()).line + 1;
  const visit = (node: ts.Node): void => {
    const text =
      ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node) || ts.isTemplateLiteralToken(node)
        ? (node as ts.LiteralLikeNode).text
        : undefined;
    if (text !== undefined && c.literals.has(text)) found.push(`${at(node)}: '${text}'`);
    else if (text !== undefined)
      for (const w of c.words)
        if (new RegExp(`(^|[^a-z_-])${w}([^a-z_-]|$)`).test(text)) found.push(`${at(node)}: '${w}' in a text`);
    if (ts.isRegularExpressionLiteral(node)) {
      const body = node.text.slice(1, node.text.lastIndexOf('/'));
      const copied = [...c.literals].find((l) => body === l || (l.length > 2 && body.startsWith(`^${l}`)));
      if (copied) found.push(`${at(node)}: ${node.text} (${copied})`);
    }
    if (ts.isArrayLiteralExpression(node) && node.elements.length > 1) {
      const values = node.elements.map((e) => (ts.isStringLiteral(e) ? e.text : undefined));
      if (values.every((v) => v !== undefined)) {
        const rule = c.enums.get([...values].sort().join('|'));
        if (rule) found.push(`${at(node)}: [${values.join(', ')}] (${rule})`);
      }
    }
    if (ts.isObjectLiteralExpression(node) && node.properties.length > 1) {
      const pairs = node.properties.map((p) =>
        ts.isPropertyAssignment(p) && ts.isNumericLiteral(p.initializer)
          ? `${p.name.getText(file).replace(/^['"]|['"]$/g, '')}:${p.initializer.text}`
          : undefined,
      );
      for (const [rule, table] of c.tables)
        if (pairs.every((x) => x !== undefined && table.has(x)))
          found.push(`${at(node)}: { ${pairs.join(', ')} } (${rule})`);
    }
    if (ts.isNumericLiteral(node)) {
      const rule = c.numbers.get(Number(node.text));
      if (rule) found.push(`${at(node)}: ${node.text} (${rule})`);
    }
    if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name) && node.initializer) {
      const named = c.named.get(squash(node.name.text));
      if (named && ts.isNumericLiteral(node.initializer) && Number(node.initializer.text) === named.value)
        found.push(`${at(node)}: ${node.name.text} = ${node.initializer.text} (${named.rule})`);
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

describe('rule constants are read from spec/rules.yaml, never copied', () => {
  test('the scanner finds a copied prefix, pattern, header name, enumeration, list, table, bound and named number', async () => {
    const c = constantsOf(await loadRules());
    const src = [
      "const a = id.startsWith('crn_');",
      'const b = /^org_[a-zA-Z0-9]+$/;',
      "const s = ['ISSUED', 'VOIDED'];",
      "const k = ['notifyPeriod', 'config', 'enabled', 'recipients'];",
      "const fine = prefixOf(rules, 'REFUNDS.ID.PREFIX'); const t = 'a crn_ in a sentence';",
      'const code = /^[A-Z][A-Z0-9]*(_[A-Z0-9]+)*$/;',
      "const h = 'x-ratelimit-reset';",
      'const m = `429 without ${x} retry-after`; const e = `error rate_limit_exceeded`;',
      'const table = { not_found: 404, conflict: 409 };',
      "const longest = 'x'.repeat(255);",
      'const MAX_ATTEMPTS = 5;',
      "const required = ['name', 'description', 'merchantId'];",
      'const fine2 = { a: 404, b: 1 }; const attempts = 5; const n = 42;',
    ].join('\n');
    expect(copiesIn(src, c)).toEqual([
      "1: 'crn_'",
      '2: /^org_[a-zA-Z0-9]+$/ (^org_[a-zA-Z0-9]+$)',
      '3: [ISSUED, VOIDED] (REFUNDS.STATUS.ENUM)',
      '4: [notifyPeriod, config, enabled, recipients] (ALERTS.UPDATE.PARTIAL)',
      '6: /^[A-Z][A-Z0-9]*(_[A-Z0-9]+)*$/ (^[A-Z][A-Z0-9]*(_[A-Z0-9]+)*$)',
      "7: 'x-ratelimit-reset'",
      "8: 'retry-after' in a text",
      "8: 'rate_limit_exceeded' in a text",
      '9: { not_found:404, conflict:409 } (ERRORS.CATEGORY.MATCHES_STATUS)',
      '10: 255 (CUSTOMERS.EXTERNAL_ID.MAX_LENGTH)',
      '11: MAX_ATTEMPTS = 5 (RETRY.CLIENT.MAX_ATTEMPTS)',
      '12: [name, description, merchantId] (PRODUCTS.CREATE.REQUIRED)',
    ]);
  });

  test('every kind of param spec/rules.yaml uses is one the scanner reads (a string, number, list or table) or names a thing', async () => {
    const rules = await loadRules();
    const unread: string[] = [];
    // A flag (RATE.DASHBOARD.EXEMPT's observableWithMerchantKey) has no literal to copy: code branches on it.
    const kind = (v: unknown): boolean =>
      typeof v === 'boolean' ||
      typeof v === 'string' ||
      typeof v === 'number' ||
      (Array.isArray(v) && v.every((x) => typeof x === 'string')) ||
      (!!v && typeof v === 'object' && !Array.isArray(v) && Object.values(v).every((x) => kind(x)));
    for (const r of rules.rules)
      for (const [k, v] of Object.entries(r.params ?? {}))
        if (!NAMES.has(k) && !kind(v)) unread.push(`${r.id} params.${k}: ${JSON.stringify(v)}`);
    expect(unread).toEqual([]);
  });

  test('no judge in src/engine, src/passive or suites/ holds a copy', async () => {
    const c = constantsOf(await loadRules());
    const copies: string[] = [];
    for (const dir of SCANNED) {
      for (const f of await tsFiles(join(ROOT, dir))) {
        const rel = relative(ROOT, f);
        if (NOT_JUDGES.some((p) => rel.startsWith(p))) continue;
        for (const hit of copiesIn(await readFile(f, 'utf8'), c, rel)) copies.push(`${rel}:${hit}`);
      }
    }
    expect(copies).toEqual([]);
  });
});
