/**
 * A rule's constants (id prefixes, id patterns, enumerations, the fields an update keeps) live in spec/rules.yaml and are
 * read from there (src/engine/predicates.ts): a copy in a judge's code is a second definition of
 * the rule that can drift from the first. Scans the judges (the core src/engine, suites/ and the
 * passive judge src/passive) through the TypeScript parser; the fault harness (src/faults), which
 * writes violations on purpose, is not a judge.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, test } from 'vitest';
import { loadRules, type RuleIndex } from '../../src/contract/rules.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SCANNED = ['src/engine', 'src/passive', 'suites'];
const NOT_JUDGES = ['src/faults/'];

interface Constants {
  /** Prefixes and pattern sources, as string or regex literals. */
  literals: Set<string>;
  /** Enumerations and the fields an update keeps (params.values, params.keeps), as sorted `a|b|c` keys of array literals. */
  enums: Map<string, string>;
}

export function constantsOf(rules: RuleIndex): Constants {
  const literals = new Set<string>();
  const enums = new Map<string, string>();
  for (const r of rules.rules) {
    const p = (r.params ?? {}) as Record<string, unknown>;
    if (typeof p.prefix === 'string') literals.add(p.prefix);
    for (const source of Object.values((p.patterns ?? {}) as Record<string, string>)) literals.add(source);
    for (const list of [p.values, p.keeps])
      if (Array.isArray(list) && list.length > 1) enums.set([...list].map(String).sort().join('|'), r.id);
  }
  return { literals, enums };
}

/** Copies of the constants in one source file: `line: what`. */
export function copiesIn(source: string, c: Constants, fileName = 'file.ts'): string[] {
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found: string[] = [];
  const at = (n: ts.Node) => file.getLineAndCharacterOfPosition(n.getStart()).line + 1;
  const visit = (node: ts.Node): void => {
    if ((ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) && c.literals.has(node.text))
      found.push(`${at(node)}: '${node.text}'`);
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
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

async function tsFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...(await tsFiles(p)));
    else if (e.name.endsWith('.ts')) out.push(p);
  }
  return out;
}

describe('rule constants are read from spec/rules.yaml, never copied', () => {
  test('the scanner finds a copied prefix, pattern, enumeration and list of kept fields', async () => {
    const c = constantsOf(await loadRules());
    const src = [
      "const a = id.startsWith('crn_');",
      'const b = /^org_[a-zA-Z0-9]+$/;',
      "const s = ['ISSUED', 'VOIDED'];",
      "const k = ['notifyPeriod', 'config', 'enabled', 'recipients'];",
      "const fine = prefixOf(rules, 'REFUNDS.ID.PREFIX'); const t = 'a crn_ in a sentence';",
    ].join('\n');
    expect(copiesIn(src, c)).toEqual([
      "1: 'crn_'",
      '2: /^org_[a-zA-Z0-9]+$/ (^org_[a-zA-Z0-9]+$)',
      '3: [ISSUED, VOIDED] (REFUNDS.STATUS.ENUM)',
      '4: [notifyPeriod, config, enabled, recipients] (ALERTS.UPDATE.PARTIAL)',
    ]);
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
