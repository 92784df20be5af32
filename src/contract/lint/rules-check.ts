/** Checks spec/rules.yaml against its schema and against the operations of spec/openapi.yaml. */
import { LineCounter, parseDocument, isNode } from 'yaml';
import { rulesSchemaProblems } from '../rules.ts';
import { RATE_LIMITED_OPERATIONS } from './conventions.ts';
import { isExtension, operations, type Json } from './functions/oas.ts';
import { jsonPath, type LintFinding, type Severity } from './findings.ts';

const ID_FORMAT = /^[A-Z][A-Z_]*\.[A-Z0-9][A-Z0-9_]*\.[A-Z0-9][A-Z0-9_]*$/;

/** Rule check codes and what each proves. */
export const rulesChecks = {
  'rules-parse': 'rules.yaml is valid YAML.',
  'rules-schema': 'rules.yaml validates against spec/rules.schema.json.',
  'rules-id-format': 'Each id is FAMILY.SUBJECT.ASPECT in upper case, its first part the rule family.',
  'rules-id-unique': 'Ids are unique.',
  'rules-section': 'Each rule names the document section it comes from.',
  'rules-operation-exists': 'Each operation a rule names exists in spec/openapi.yaml.',
  'rules-contract-extension': 'A contract rule never names a reference-extension operation only.',
  'rules-tool-kind':
    'A rule about the tool itself (kind restraint or client) says in its notes why nothing on a target ' +
    'can show it, and where it is judged instead.',
  'rules-rate-params': 'Each rate-limited operation has a RATE.*.LIMIT rule whose params match its method and path.',
} as const;

export function checkRules(rulesText: string, rulesSource: string, openapi: Json | undefined): LintFinding[] {
  const out: LintFinding[] = [];
  const lines = new LineCounter();
  const yamlDoc = parseDocument(rulesText, { lineCounter: lines });
  const add = (severity: Severity, code: keyof typeof rulesChecks, segments: (string | number)[], message: string) => {
    const node = yamlDoc.getIn(segments, true);
    const offset = isNode(node) && node.range ? node.range[0] : undefined;
    out.push({
      severity,
      code,
      source: rulesSource,
      path: jsonPath(segments),
      line: offset === undefined ? undefined : lines.linePos(offset).line,
      message,
    });
  };
  if (yamlDoc.errors.length) {
    for (const e of yamlDoc.errors)
      out.push({
        severity: 'error',
        code: 'rules-parse',
        source: rulesSource,
        path: '',
        line: e.linePos?.[0]?.line,
        message: e.message.split('\n')[0],
      });
    return out;
  }
  const doc = yamlDoc.toJS() as Json;
  const rules: Json[] = Array.isArray(doc?.rules) ? doc.rules : [];
  checkParsed(rules, openapi, add);
  return out;
}

type Add = (severity: Severity, code: keyof typeof rulesChecks, segments: (string | number)[], message: string) => void;

function checkParsed(rules: Json[], openapi: Json | undefined, add: Add): void {
  const seen = new Map<string, number>();
  rules.forEach((rule, i) => {
    const id = rule?.id;
    if (typeof id !== 'string' || !ID_FORMAT.test(id))
      add(
        'error',
        'rules-id-format',
        ['rules', i, 'id'],
        `Rule entry ${i}: id ${JSON.stringify(id)} is not FAMILY.SUBJECT.ASPECT in upper case.`,
      );
    else if (typeof rule.family === 'string' && !id.startsWith(`${rule.family}.`))
      add(
        'error',
        'rules-id-format',
        ['rules', i, 'id'],
        `Rule ${id}: the id does not start with its family ${rule.family}.`,
      );
    if (typeof id === 'string') {
      if (seen.has(id))
        add(
          'error',
          'rules-id-unique',
          ['rules', i, 'id'],
          `Rule ${id} (entry ${i}) repeats the id of entry ${seen.get(id)}.`,
        );
      else seen.set(id, i);
    }
    if (typeof rule?.section !== 'string' || rule.section.trim().length === 0)
      add('error', 'rules-section', ['rules', i], `Rule ${id ?? `entry ${i}`} names no document section.`);
    if (
      (rule?.kind === 'restraint' || rule?.kind === 'client') &&
      (typeof rule.notes !== 'string' || !/\btest\//.test(rule.notes))
    )
      add(
        'error',
        'rules-tool-kind',
        ['rules', i, 'kind'],
        `Rule ${id ?? `entry ${i}`} is of kind ${rule.kind}: its notes must say why no target can show it ` +
          'and name the test/ file that judges it.',
      );
  });
  if (!openapi) return;
  const ops = new Map(operations(openapi).map((o) => [o.operation.operationId as string, o]));
  rules.forEach((rule, i) => {
    const names: unknown[] = Array.isArray(rule?.operations) ? rule.operations : [];
    names.forEach((name, j) => {
      if (typeof name !== 'string' || !ops.has(name))
        add(
          'error',
          'rules-operation-exists',
          ['rules', i, 'operations', j],
          `Rule ${rule.id}: operation ${String(name)} does not exist in the OpenAPI document.`,
        );
    });
    const known = names.filter((n): n is string => typeof n === 'string' && ops.has(n));
    if (rule?.kind === 'contract' && known.length > 0 && known.every((n) => isExtension(ops.get(n)!.operation)))
      add(
        'error',
        'rules-contract-extension',
        ['rules', i, 'operations'],
        `Rule ${rule.id} is a contract rule but names only reference extensions (${known.join(', ')}); ` +
          'make it kind: reference or name documented operations.',
      );
  });
  for (const opId of RATE_LIMITED_OPERATIONS) {
    const entry = ops.get(opId);
    const index = rules.findIndex(
      (r) =>
        typeof r?.id === 'string' &&
        /^RATE\.[A-Z0-9_]+\.LIMIT$/.test(r.id) &&
        Array.isArray(r.operations) &&
        r.operations.includes(opId),
    );
    if (index < 0) {
      add('error', 'rules-rate-params', ['rules'], `No RATE.*.LIMIT rule names the rate-limited operation ${opId}.`);
      continue;
    }
    const p = rules[index].params ?? {};
    const problems: string[] = [];
    if (!Number.isInteger(p.limit) || p.limit < 1) problems.push('params.limit must be a positive integer');
    if (typeof p.windowSeconds !== 'number' || p.windowSeconds <= 0)
      problems.push('params.windowSeconds must be a positive number');
    if (p.bucket !== 'merchant' && p.bucket !== 'subscription')
      problems.push('params.bucket must be merchant or subscription');
    if (entry && (String(p.method).toLowerCase() !== entry.method || p.path !== entry.path))
      problems.push(`params.method/path (${p.method} ${p.path}) must be ${entry.method.toUpperCase()} ${entry.path}`);
    if (problems.length)
      add('error', 'rules-rate-params', ['rules', index, 'params'], `Rule ${rules[index].id}: ${problems.join('; ')}.`);
  }
}

/** Schema findings not already covered by the specific checks (id format, section). */
export async function rulesSchemaFindings(rulesText: string, rulesSource: string): Promise<LintFinding[]> {
  const lines = new LineCounter();
  const yamlDoc = parseDocument(rulesText, { lineCounter: lines });
  if (yamlDoc.errors.length) return [];
  const problems = await rulesSchemaProblems(yamlDoc.toJS());
  return problems
    .filter((p) => !/\/(id|section)$/.test(p.instancePath) && !/'section'/.test(p.message))
    .map((p) => {
      const segments = p.instancePath
        .split('/')
        .slice(1)
        .map((s) => (/^\d+$/.test(s) ? Number(s) : s));
      const node = yamlDoc.getIn(segments, true);
      const offset = isNode(node) && node.range ? node.range[0] : undefined;
      return {
        severity: 'error' as const,
        code: 'rules-schema',
        source: rulesSource,
        path: jsonPath(segments),
        line: offset === undefined ? undefined : lines.linePos(offset).line,
        message: `${p.instancePath || '(root)'} ${p.message}`,
      };
    });
}
