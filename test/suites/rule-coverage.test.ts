/**
 * Every rule of spec/rules.yaml about the target (contract, reference) is cited by at least
 * one scenario (a rule id as a string literal in suites/*.suite.ts or their helpers in
 * suites/support/) or one check of the registry. Rules about the tool itself (restraint,
 * client) are never cited there: the project's own tests judge them
 * (test/engine/tool-rules.test.ts). Collected statically: string literals only (comments do
 * not count), through the TypeScript parser.
 */
import { describe, expect, test } from 'vitest';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { judgedPart, loadRules, parseRuleKey, partsOf } from '../../src/contract/rules.ts';
import { checkRuleIds } from '../../src/engine/checks/index.ts';
import { DEFAULT_SUITES_DIR } from '../../src/engine/runner/index.ts';
import { rateLimitedEndpoints, rateLimitKeyList } from '../../src/engine/ratelimit/index.ts';
import { loadSpec } from '../../src/contract/index.ts';

/** A rule id, or one part of a rule: `RULE.ID#part-id`. */
const RULE_ID_SHAPE = /^[A-Z][A-Z0-9_]*(\.[A-Z0-9_]+){2,}(#[a-z][a-z0-9]*(-[a-z0-9]+)*)?$/;

/** Rule-id-shaped string literals (plain, template without substitutions) in TypeScript source. */
export function ruleIdLiterals(source: string, fileName = 'suite.ts'): string[] {
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if ((ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) && RULE_ID_SHAPE.test(node.text))
      found.push(node.text);
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

/** The state model's folder: its judgement keys are cited by the state-model suite through it. */
const MODEL_DIR = fileURLToPath(new URL('../../src/engine/model/', import.meta.url));

/**
 * Rule ids cited by the suites: the `*.suite.ts` files, their helpers in suites/support/, and
 * the state model (src/engine/model/) the state-model suite runs.
 */
async function suiteRuleIds(): Promise<Map<string, string[]>> {
  const byFile = new Map<string, string[]>();
  const support = (await readdir(join(DEFAULT_SUITES_DIR, 'support'))).map((f) => `support/${f}`);
  const files = [...(await readdir(DEFAULT_SUITES_DIR)).filter((f) => f.endsWith('.suite.ts')), ...support];
  for (const name of files.filter((f) => f.endsWith('.ts')).sort()) {
    byFile.set(name, ruleIdLiterals(await readFile(join(DEFAULT_SUITES_DIR, name), 'utf8'), name));
  }
  for (const name of (await readdir(MODEL_DIR)).filter((f) => f.endsWith('.ts')).sort())
    byFile.set(`model/${name}`, ruleIdLiterals(await readFile(join(MODEL_DIR, name), 'utf8'), name));
  return byFile;
}

/** Rule keys in the passive judge's units (src/passive/units/). */
async function passiveUnitKeys(): Promise<string[]> {
  const dir = new URL('../../src/passive/units/', import.meta.url);
  const files = (await readdir(dir)).filter((f) => f.endsWith('.ts'));
  const out: string[] = [];
  for (const f of files) out.push(...ruleIdLiterals(await readFile(new URL(f, dir), 'utf8'), f));
  return out;
}

describe('rule coverage', () => {
  test('the collector finds rule ids in string literals only', () => {
    const src = [
      "// 'COMMENT.ONLY.RULE' in a comment does not count",
      "/* 'BLOCK.COMMENT.RULE' neither */",
      "scenario(['WEBHOOKS.404.NEVER_ENABLED', `ALERTS.LIST.OFFSET`], 'title CONV.ID.PATTERNS inside a sentence', async () => {});",
      't.expectRule("REFUNDS.TOTAL.SUM", ok, \'msg\'); t.expectRule("CUSTOMERS.GET.BY_ID#unknown-404", ok);',
      "const notAnId = 'Not.A.RuleId'; const twoParts = 'CONV.ID';",
    ].join('\n');
    expect(ruleIdLiterals(src)).toEqual([
      'WEBHOOKS.404.NEVER_ENABLED',
      'ALERTS.LIST.OFFSET',
      'REFUNDS.TOTAL.SUM',
      'CUSTOMERS.GET.BY_ID#unknown-404',
    ]);
  });

  test('every rule about the target in spec/rules.yaml is cited by a scenario or a check', async () => {
    const rules = await loadRules();
    const known = new Set(rules.rules.map((r) => r.id));
    const cited = new Set<string>(checkRuleIds().map((k) => parseRuleKey(k).ruleId));
    for (const ids of (await suiteRuleIds()).values())
      for (const id of ids) if (known.has(parseRuleKey(id).ruleId)) cited.add(parseRuleKey(id).ruleId);
    // The rate-limits suite cites each listed endpoint's LIMIT and BUCKET rules as spec/rules.yaml names them.
    for (const ep of await rateLimitedEndpoints(await loadSpec())) cited.add(ep.limitRule).add(ep.bucketRule);
    const uncited = rules.rules
      .filter((r) => r.kind === 'contract' || r.kind === 'reference')
      .map((r) => r.id)
      .filter((id) => !cited.has(id));
    expect(uncited, `rules no scenario or check cites:\n${uncited.join('\n')}`).toEqual([]);
  });

  test("rules about the tool itself are judged by the project's own tests, never by a scenario or a check", async () => {
    const rules = await loadRules();
    const tool = rules.rules.filter((r) => r.kind === 'restraint' || r.kind === 'client').map((r) => r.id);
    expect(tool.length).toBeGreaterThan(0);
    const onTarget = new Set<string>(checkRuleIds());
    for (const ids of (await suiteRuleIds()).values()) for (const id of ids) onTarget.add(id);
    expect(
      tool.filter((id) => onTarget.has(id)),
      'tool rules cited by a scenario or a check',
    ).toEqual([]);
    const judgedHere = new Set(
      ruleIdLiterals(await readFile(new URL('../engine/tool-rules.test.ts', import.meta.url), 'utf8')),
    );
    expect(
      tool.filter((id) => !judgedHere.has(id)),
      'tool rules test/engine/tool-rules.test.ts does not judge',
    ).toEqual([]);
  });

  test('every part of a rule with several parts is judged by name (RULE#part) by a scenario or a check', async () => {
    const rules = await loadRules();
    const keys = new Set<string>(checkRuleIds());
    for (const ids of (await suiteRuleIds()).values()) for (const id of ids) keys.add(id);
    // The rate-limit measuring judges each listed endpoint's LIMIT and BUCKET parts under the keys it computes.
    for (const ep of await rateLimitedEndpoints(await loadSpec())) for (const k of rateLimitKeyList(ep)) keys.add(k);
    const unjudged = rules.rules
      .filter((r) => (r.kind === 'contract' || r.kind === 'reference') && partsOf(r).length > 1)
      .flatMap((r) => partsOf(r).map((p) => `${r.id}#${p.id}`))
      .filter((k) => !keys.has(k));
    expect(unjudged, 'parts no scenario or check judges by name').toEqual([]);
  });

  test('every RULE#part literal in suites, checks and passive units names a part the rule has', async () => {
    const rules = await loadRules();
    const keys = [...checkRuleIds(), ...(await passiveUnitKeys())];
    for (const ids of (await suiteRuleIds()).values()) keys.push(...ids);
    const wrong = keys
      .filter((k) => parseRuleKey(k).part !== undefined)
      .map((k) => [k, judgedPart(rules, k)] as const)
      .filter(([, r]) => 'error' in r)
      .map(([k, r]) => `${k}: ${(r as { error: string }).error}`);
    expect(wrong).toEqual([]);
  });

  test('suites cite no rule-id-shaped literal that spec/rules.yaml does not know', async () => {
    const rules = await loadRules();
    const unknown: string[] = [];
    for (const [file, ids] of await suiteRuleIds())
      for (const id of ids) if (!rules.byId(parseRuleKey(id).ruleId)) unknown.push(`${file}: ${id}`);
    expect(unknown).toEqual([]);
  });
});
