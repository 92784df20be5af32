/**
 * Which rule keys a source judges through a scenario's judging calls (expectRule,
 * softExpectRule, expectStatus), read from its syntax. A key is a literal (`'A.B.C#part'`), a
 * list of them, a constant of the file (`const RULE = 'A.B.C'`), or a property read whose
 * name the file gives rule keys to (`fam.body`, where a table of the file holds
 * `body: 'A.B.C#blockers-body'`): every key the file gives that name counts, so a table of
 * families is read as judging each family's key. Keys built at run time (a template, a
 * function's result) are not seen.
 */
import ts from 'typescript';

const JUDGING_CALLS = new Set(['expectRule', 'softExpectRule', 'expectStatus']);
const RULE_KEY = /^[A-Z][A-Z0-9_]*(\.[A-Z0-9_]+)+(#[a-z0-9-]+)?$/;

const literal = (n: ts.Node): n is ts.StringLiteral | ts.NoSubstitutionTemplateLiteral =>
  ts.isStringLiteral(n) || ts.isNoSubstitutionTemplateLiteral(n);

/** Rule keys `node` holds as a literal or a list of literals. */
function literalKeys(node: ts.Node | undefined): string[] {
  if (!node) return [];
  if (literal(node)) return RULE_KEY.test(node.text) ? [node.text] : [];
  if (ts.isArrayLiteralExpression(node)) return node.elements.flatMap((e) => literalKeys(e));
  return [];
}

export function judgedIn(source: string, fileName = 'suite.ts'): string[] {
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  // What the file gives names to: constants, and properties of its object literals.
  const constants = new Map<string, string[]>();
  const properties = new Map<string, string[]>();
  const add = (map: Map<string, string[]>, name: string, keys: string[]) => {
    if (keys.length) map.set(name, [...(map.get(name) ?? []), ...keys]);
  };
  const learn = (node: ts.Node): void => {
    if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name))
      add(constants, node.name.text, literalKeys(node.initializer));
    if (ts.isPropertyAssignment(node) && (ts.isIdentifier(node.name) || ts.isStringLiteral(node.name)))
      add(properties, node.name.text, literalKeys(node.initializer));
    ts.forEachChild(node, learn);
  };
  learn(file);
  const keys = (n: ts.Node | undefined): string[] => {
    if (!n) return [];
    if (literal(n)) return literalKeys(n);
    if (ts.isArrayLiteralExpression(n)) return n.elements.flatMap((e) => keys(e));
    if (ts.isIdentifier(n)) return constants.get(n.text) ?? [];
    if (ts.isPropertyAccessExpression(n)) return properties.get(n.name.text) ?? [];
    return [];
  };
  const out: string[] = [];
  const visit = (node: ts.Node): void => {
    if (
      ts.isCallExpression(node) &&
      ts.isPropertyAccessExpression(node.expression) &&
      JUDGING_CALLS.has(node.expression.name.text)
    )
      out.push(...keys(node.arguments[0]));
    ts.forEachChild(node, visit);
  };
  visit(file);
  return out;
}

/** One key touches another when they are the same, or one is a part of the other's rule. */
export const touches = (a: string, b: string): boolean => a === b || a.startsWith(`${b}#`) || b.startsWith(`${a}#`);

/**
 * Rule keys a source gives the properties `names` of its object literals (`ruleId: 'A.B.C'` of
 * a problem a property returns), or, with `within`, of the object a property of that name holds
 * (`positives: { rules: [...] }`: what the contract suite's generated positives judge themselves).
 */
export function keysOfProperties(
  source: string,
  names: readonly string[],
  within?: string,
  fileName = 'x.ts',
): string[] {
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const nameOf = (n: ts.ObjectLiteralElementLike) =>
    ts.isPropertyAssignment(n) && (ts.isIdentifier(n.name) || ts.isStringLiteral(n.name)) ? n.name.text : undefined;
  const keysOf = (o: ts.ObjectLiteralExpression) =>
    o.properties.flatMap((p) =>
      names.includes(nameOf(p) ?? '') ? literalKeys((p as ts.PropertyAssignment).initializer) : [],
    );
  const out: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isObjectLiteralExpression(node)) {
      if (within === undefined) out.push(...keysOf(node));
      else
        for (const p of node.properties)
          if (nameOf(p) === within && ts.isObjectLiteralExpression((p as ts.PropertyAssignment).initializer))
            out.push(...keysOf((p as ts.PropertyAssignment).initializer as ts.ObjectLiteralExpression));
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return out;
}
