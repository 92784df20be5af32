import { defineCheck, finding, describeStatus, judgeableResponse } from './types.ts';

const REQUIRED = /required|must have/i;

/**
 * A success body validates against the schema the spec declares for the operation and status.
 * Only what is declared is judged: no schema, or a body the document does not show (its
 * schema is then the reference's choice), means nothing to check,
 * and the schemas leave additional properties open (CONV.EXTRA_FIELDS.ALLOWED).
 */
export const responseSchema = defineCheck({
  name: 'response-schema',
  ruleIds: ['SCHEMA.RESPONSE.MATCHES', 'SCHEMA.REQUIRED.PRESENT'],
  description: 'The response body validates against the schema declared for its operation and status.',
  evaluate(ex, ctx, op) {
    if (ex.status === undefined || !op || ex.jsonError || ex.transportError) return;
    // Success bodies only (SCHEMA.RESPONSE.MATCHES); error bodies are the error-shape check's and the scenarios'.
    if (ex.status < 200 || ex.status >= 300) return;
    const declared = judgeableResponse(ctx, op, ex.status);
    if (!declared || declared.schema === undefined || declared.schema === null) return;
    const judged = ['SCHEMA.RESPONSE.MATCHES', 'SCHEMA.REQUIRED.PRESENT'];
    if (ex.body === undefined) {
      return {
        judged,
        findings: [
          finding(
            'response-schema',
            ['SCHEMA.RESPONSE.MATCHES'],
            `Empty body where ${op.operationId} returns a document`,
            `${describeStatus(ex)}: no body, but a schema is declared for this response.`,
            ex,
          ),
        ],
      };
    }
    const result = ctx.spec.validateResponseBody(op.operationId, ex.status, ex.body);
    if (result.valid) return { judged, findings: [] };
    const missing = result.errors.filter((e) => e.keyword === 'required' || (!e.keyword && REQUIRED.test(e.message)));
    const findings = [];
    const list = (errs: typeof result.errors) =>
      errs
        .slice(0, 10)
        .map((e) => `${e.path || '(body)'} ${e.message}`)
        .join('; ');
    // For `required` the path is the missing field's own pointer: name it in the title every output shows.
    const names = [...new Set(missing.map((e) => (e.path || '(body)').replace(/^\//, '').replace(/\//g, '.')))];
    // The fields each finding concerns: an expected failure may be limited to one (config/expectations.ts).
    const fields = (errs: typeof result.errors) => ({ fields: [...new Set(errs.map((e) => e.path || '/'))] });
    if (missing.length)
      findings.push({
        ...finding(
          'response-schema',
          ['SCHEMA.REQUIRED.PRESENT'],
          `Required field${names.length > 1 ? 's' : ''} ${names.slice(0, 3).join(', ')}${names.length > 3 ? '…' : ''} ` +
            `missing in ${op.operationId} response`,
          `${describeStatus(ex)}: ${list(missing)}`,
          ex,
        ),
        ...fields(missing),
      });
    // A body off its schema for any reason, a missing required field included, does not match it.
    findings.push({
      ...finding(
        'response-schema',
        ['SCHEMA.RESPONSE.MATCHES'],
        `${op.operationId} response does not match its schema at ${result.errors[0]?.path || '(body)'}`,
        `${describeStatus(ex)}: ${list(result.errors)}`,
        ex,
      ),
      ...fields(result.errors),
    });
    return { judged, findings };
  },
});
