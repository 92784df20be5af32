import { defineCheck, finding, isObject, describeStatus } from './types.ts';
import type { Finding } from '../types.ts';
import { patternOf, perRules, tableOf } from '../predicates.ts';

/** The error code's form (ERRORS.CODE.UPPER_SNAKE) and each named category's status (ERRORS.CATEGORY.MATCHES_STATUS). */
const errorRules = perRules((rules) => ({
  code: patternOf(rules, 'ERRORS.CODE.UPPER_SNAKE'),
  categories: tableOf(rules, 'ERRORS.CATEGORY.MATCHES_STATUS', 'categories'),
}));

/** Problems of a body against the Error shape (message required; error, code strings; details object). */
export function errorShapeProblems(body: unknown): string[] {
  if (!isObject(body))
    return [
      `body is ${body === undefined ? 'empty' : Array.isArray(body) ? 'an array' : typeof body}, not an Error object`,
    ];
  const p: string[] = [];
  if (typeof body.message !== 'string')
    p.push(body.message === undefined ? 'message is missing' : 'message is not a string');
  if (body.error !== undefined && typeof body.error !== 'string') p.push('error is not a string');
  if (body.code !== undefined && typeof body.code !== 'string') p.push('code is not a string');
  if (body.details !== undefined && !isObject(body.details)) p.push('details is not an object');
  return p;
}

/** Problems of a body against the ValidationError shape (message and errors[{field, message, code?}] required). */
export function validationErrorProblems(body: unknown): string[] {
  if (!isObject(body)) return ['body is not a ValidationError object'];
  const p: string[] = [];
  if (typeof body.message !== 'string')
    p.push(body.message === undefined ? 'message is missing' : 'message is not a string');
  if (body.error !== undefined && body.error !== 'validation_error')
    p.push(`error is ${JSON.stringify(body.error)}, not validation_error`);
  if (!Array.isArray(body.errors)) p.push(body.errors === undefined ? 'errors is missing' : 'errors is not an array');
  else
    body.errors.forEach((e, i) => {
      if (!isObject(e)) return void p.push(`errors[${i}] is not an object`);
      if (typeof e.field !== 'string') p.push(`errors[${i}].field is missing or not a string`);
      if (typeof e.message !== 'string') p.push(`errors[${i}].message is missing or not a string`);
      if (e.code !== undefined && typeof e.code !== 'string') p.push(`errors[${i}].code is not a string`);
    });
  return p;
}

export function looksLikeValidationError(body: unknown): boolean {
  return isObject(body) && (body.errors !== undefined || body.error === 'validation_error');
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
      const asError = errorShapeProblems(body);
      const asValidation = validationErrorProblems(body);
      if (asError.length && asValidation.length) {
        const v = looksLikeValidationError(body);
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
      } else if (looksLikeValidationError(body)) {
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
      const problems = errorShapeProblems(body);
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
