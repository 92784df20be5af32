import { defineCheck, finding, isObject, describeStatus, type SpecView } from './types.ts';
import type { Finding } from '../types.ts';
import { patternOf, perRules, tableOf } from '../predicates.ts';

/** The error code's form (ERRORS.CODE.UPPER_SNAKE) and each named category's status (ERRORS.CATEGORY.MATCHES_STATUS). */
const errorRules = perRules((rules) => ({
  code: patternOf(rules, 'ERRORS.CODE.UPPER_SNAKE'),
  categories: tableOf(rules, 'ERRORS.CATEGORY.MATCHES_STATUS', 'categories'),
}));

type Schemas = Pick<SpecView, 'validateSchema' | 'componentSchema'>;

/**
 * Problems of a body against one of the spec's own schemas (Error, ValidationError), each as
 * "where what"; a code that breaks the spec's pattern is left to ERRORS.CODE.UPPER_SNAKE.
 */
function schemaProblems(spec: Schemas, name: 'Error' | 'ValidationError', body: unknown): string[] {
  const article = name === 'Error' ? 'an' : 'a';
  if (!isObject(body))
    return [
      `body is ${body === undefined ? 'empty' : Array.isArray(body) ? 'an array' : typeof body}, not ${article} ${name} object`,
    ];
  return spec
    .validateSchema(name, body)
    .errors.filter((e) => !(e.keyword === 'pattern' && e.path === '/code'))
    .map((e) => {
      const where = e.path ? e.path.slice(1).replace(/\//g, '.') : 'body';
      return e.keyword === 'required' ? `${where} is missing` : `${where} ${e.message}`;
    });
}

/** Problems of a body against the spec's Error schema. */
export function errorShapeProblems(body: unknown, spec: Schemas): string[] {
  return schemaProblems(spec, 'Error', body);
}

/**
 * Problems of a body against the spec's ValidationError schema, and an `error` other than the
 * one that schema shows (its default: the category every ValidationError names).
 */
export function validationErrorProblems(body: unknown, spec: Schemas): string[] {
  const p = schemaProblems(spec, 'ValidationError', body);
  const shown = validationCategory(spec);
  if (isObject(body) && body.error !== undefined && shown !== undefined && body.error !== shown)
    p.push(`error is ${JSON.stringify(body.error)}, not ${String(shown)}`);
  return p;
}

/** The `error` every ValidationError names: the default its schema shows. */
function validationCategory(spec: Schemas): unknown {
  return (spec.componentSchema('ValidationError') as { properties?: { error?: { default?: unknown } } } | undefined)
    ?.properties?.error?.default;
}

/** A body that means to be a ValidationError: it lists errors, or names the ValidationError category. */
export function looksLikeValidationError(body: unknown, spec: Schemas): boolean {
  const category = validationCategory(spec);
  return isObject(body) && (body.errors !== undefined || (category !== undefined && body.error === category));
}

/** Error bodies (4xx) match Error, or ValidationError on 400; codes are UPPER_SNAKE; categories match the status. */
export const errorShape = defineCheck({
  name: 'error-shape',
  ruleIds: [
    'ERRORS.ERROR.SHAPE',
    'ERRORS.VALIDATION.SHAPE',
    'ERRORS.400.BODY#shape',
    'ERRORS.ERROR_RESPONSES.SHAPE',
    'ERRORS.CODE.UPPER_SNAKE',
    'ERRORS.CATEGORY.MATCHES_STATUS',
    'AUTH.401.SHAPE#error-body',
    'AUTH.403.SHAPE#error-body',
  ],
  description:
    '4xx bodies are Error (or ValidationError on 400); code is UPPER_SNAKE_CASE; error names the category of the status.',
  evaluate(ex, ctx, op) {
    const s = ex.status;
    if (s === undefined || s < 400 || s >= 500 || !op || ex.jsonError || ex.transportError) return;
    const { code: UPPER_SNAKE, categories: CATEGORY_STATUS } = errorRules(ctx.rules);
    const judged = ['ERRORS.ERROR_RESPONSES.SHAPE'];
    const findings: Finding[] = [];
    const body = ex.body;
    const shapeRules =
      s === 401
        ? ['AUTH.401.SHAPE#error-body', 'ERRORS.ERROR.SHAPE']
        : s === 403
          ? ['AUTH.403.SHAPE#error-body', 'ERRORS.ERROR.SHAPE']
          : ['ERRORS.ERROR_RESPONSES.SHAPE', 'ERRORS.ERROR.SHAPE'];
    if (s === 400) {
      judged.push('ERRORS.400.BODY#shape');
      const asError = errorShapeProblems(body, ctx.spec);
      const asValidation = validationErrorProblems(body, ctx.spec);
      if (asError.length && asValidation.length) {
        const v = looksLikeValidationError(body, ctx.spec);
        judged.push(v ? 'ERRORS.VALIDATION.SHAPE' : 'ERRORS.ERROR.SHAPE');
        findings.push(
          finding(
            'error-shape',
            ['ERRORS.400.BODY#shape', v ? 'ERRORS.VALIDATION.SHAPE' : 'ERRORS.ERROR.SHAPE'],
            '400 body is neither Error nor ValidationError',
            `${describeStatus(ex)}: ${(v ? asValidation : asError).join('; ')}`,
            ex,
          ),
        );
      } else if (looksLikeValidationError(body, ctx.spec)) {
        judged.push('ERRORS.VALIDATION.SHAPE');
        if (asValidation.length)
          findings.push(
            finding(
              'error-shape',
              ['ERRORS.VALIDATION.SHAPE'],
              'Malformed ValidationError',
              `${describeStatus(ex)}: ${asValidation.join('; ')}`,
              ex,
            ),
          );
      } else judged.push('ERRORS.ERROR.SHAPE');
    } else {
      judged.push(...shapeRules.filter((r) => !judged.includes(r)));
      const problems = errorShapeProblems(body, ctx.spec);
      if (problems.length)
        findings.push(
          finding(
            'error-shape',
            shapeRules,
            `${s} body is not in Error shape`,
            `${describeStatus(ex)}: ${problems.join('; ')}`,
            ex,
          ),
        );
    }
    if (isObject(body) && typeof body.code === 'string') {
      judged.push('ERRORS.CODE.UPPER_SNAKE');
      if (!UPPER_SNAKE.test(body.code))
        findings.push(
          finding(
            'error-shape',
            ['ERRORS.CODE.UPPER_SNAKE'],
            'Error code is not UPPER_SNAKE_CASE',
            `${describeStatus(ex)}: code ${JSON.stringify(body.code)}`,
            ex,
          ),
        );
    }
    if (isObject(body) && typeof body.error === 'string' && Object.hasOwn(CATEGORY_STATUS, body.error)) {
      judged.push('ERRORS.CATEGORY.MATCHES_STATUS');
      const want = CATEGORY_STATUS[body.error];
      if (want !== s)
        findings.push(
          finding(
            'error-shape',
            ['ERRORS.CATEGORY.MATCHES_STATUS'],
            `Error category ${body.error} on a ${s}`,
            `${describeStatus(ex)}: error ${JSON.stringify(body.error)} is the category of ${want}.`,
            ex,
          ),
        );
    }
    return { judged, findings };
  },
});
