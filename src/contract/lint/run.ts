/** Runs the whole lint: Spectral (OAS + project ruleset) on the OpenAPI document, then the rules.yaml checks. */
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { relative } from 'node:path';
import { Spectral, Document } from '@stoplight/spectral-core';
import Parsers from '@stoplight/spectral-parsers';
import { parse } from 'yaml';
import { ruleset } from './ruleset.ts';
import { checkRules, rulesSchemaFindings } from './rules-check.ts';
import { jsonPath, type LintFinding, type Severity } from './findings.ts';

export type { LintFinding, Severity } from './findings.ts';
export { projectRules } from './ruleset.ts';
export { rulesChecks } from './rules-check.ts';

export const DEFAULT_SPEC_PATH = fileURLToPath(new URL('../../../spec/openapi.yaml', import.meta.url));
export const DEFAULT_RULES_PATH = fileURLToPath(new URL('../../../spec/rules.yaml', import.meta.url));

export interface LintOptions {
  specPath?: string;
  rulesPath?: string;
}

export interface LintResult {
  findings: LintFinding[];
  errors: number;
  warnings: number;
}

const SEVERITIES: Severity[] = ['error', 'warn', 'info', 'hint'];
const display = (path: string) => {
  const rel = relative(process.cwd(), path);
  return rel && !rel.startsWith('..') ? rel : path;
};

async function readText(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

/** Spectral findings of an OpenAPI text. */
export async function lintOpenApi(text: string, source: string): Promise<LintFinding[]> {
  const spectral = new Spectral();
  spectral.setRuleset(ruleset as never);
  const results = await spectral.run(new Document(text, Parsers.Yaml, source));
  return results.map((r) => ({
    severity: SEVERITIES[r.severity] ?? 'error',
    code: String(r.code),
    source: display(r.source ?? source),
    path: jsonPath(r.path),
    line: r.range.start.line + 1,
    message: r.message,
  }));
}

export async function lint(options: LintOptions = {}): Promise<LintResult> {
  const specPath = options.specPath ?? DEFAULT_SPEC_PATH;
  const rulesPath = options.rulesPath ?? DEFAULT_RULES_PATH;
  return lintTexts({
    specText: await readText(specPath),
    specSource: specPath,
    rulesText: await readText(rulesPath),
    rulesSource: rulesPath,
  });
}

export interface LintTexts {
  /** undefined: the file does not exist. */
  specText: string | undefined;
  specSource: string;
  rulesText: string | undefined;
  rulesSource: string;
}

/** Lints documents held in memory; tests pass broken copies this way. */
export async function lintTexts({ specText, specSource, rulesText, rulesSource }: LintTexts): Promise<LintResult> {
  const findings: LintFinding[] = [];
  let openapi: Record<string, any> | undefined;
  if (specText === undefined) {
    findings.push({
      severity: 'error',
      code: 'spec-missing',
      source: display(specSource),
      path: '',
      message: 'The OpenAPI document does not exist.',
    });
  } else {
    findings.push(...(await lintOpenApi(specText, specSource)));
    try {
      const parsed = parse(specText);
      openapi = parsed && typeof parsed === 'object' ? parsed : undefined;
    } catch {
      openapi = undefined; // Spectral already reported the parse error
    }
  }
  if (rulesText === undefined) {
    findings.push({
      severity: 'error',
      code: 'rules-missing',
      source: display(rulesSource),
      path: '',
      message: 'The rules document does not exist.',
    });
  } else {
    findings.push(...checkRules(rulesText, display(rulesSource), openapi));
    findings.push(...(await rulesSchemaFindings(rulesText, display(rulesSource))));
  }
  findings.sort(
    (a, b) =>
      SEVERITIES.indexOf(a.severity) - SEVERITIES.indexOf(b.severity) ||
      a.source.localeCompare(b.source) ||
      (a.line ?? 0) - (b.line ?? 0),
  );
  return {
    findings,
    errors: findings.filter((f) => f.severity === 'error').length,
    warnings: findings.filter((f) => f.severity === 'warn').length,
  };
}
