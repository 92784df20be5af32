/** Error bodies: their shape, message, code and category, on whichever operation a suite exercises. */
import { bodyOf, expectAll, fault, got, is4xx, json, req } from './helpers.ts';
import type { CatalogFault } from './types.ts';

const notFound = (code = 'CUSTOMER_NOT_FOUND') =>
  json(404, { error: 'not_found', message: 'Customer cus_x not found', code });
/** A ValidationError answer to an externalId too long. */
export const invalid = () =>
  json(400, {
    error: 'validation_error',
    message: 'invalid request',
    errors: [{ field: 'externalId', message: 'at most 255 characters', code: 'MAX_LENGTH' }],
  });

/** In catalog order, between the list-envelope and status-500 faults. */
export const errorShapeFaults: CatalogFault[] = [
  fault({
    name: 'errors-404-without-message',
    area: 'conventions',
    description: '404 bodies carry only error, no message',
    rules: ['ERRORS.ERROR.SHAPE'],
    suites: ['merchants', 'prices'],
    onResponse(_r, res, ctx) {
      const b = bodyOf(res);
      if (res.status !== 404 || typeof b?.message !== 'string') return;
      delete b.message;
      ctx.applied();
    },
    demo: {
      steps: [{ req: req('GET', '/v0/merchants/org_nobody'), res: notFound() }],
      verify: (o) => expectAll([o.response.status === 404 && got(o)?.message === undefined, 'message still there']),
    },
  }),
  fault({
    name: 'errors-409-blank-message',
    area: 'conventions',
    description: '409 bodies keep message, but empty',
    rules: ['ERRORS.MESSAGE.READABLE'],
    suites: ['delete-blockers'],
    onResponse(_r, res, ctx) {
      const b = bodyOf(res);
      if (res.status !== 409 || typeof b?.message !== 'string') return;
      b.message = '';
      ctx.applied();
    },
    demo: {
      steps: [
        {
          req: req('DELETE', '/v0/fees/fee_demo1'),
          res: json(409, {
            error: 'conflict',
            message: 'fee has blockers',
            code: 'FEE_HAS_BLOCKERS',
            details: { blockers: [] },
          }),
        },
      ],
      verify: (o) => expectAll([got(o)?.message === '', `message ${JSON.stringify(got(o)?.message)}`]),
    },
  }),
  fault({
    name: 'errors-code-lowercase',
    area: 'conventions',
    description: 'error codes are lower case (customer_not_found), not UPPER_SNAKE_CASE',
    rules: ['ERRORS.CODE.UPPER_SNAKE'],
    suites: ['customers'],
    onResponse(_r, res, ctx) {
      const b = bodyOf(res);
      if (!is4xx(res) || !b) return;
      b.code = typeof b.code === 'string' ? b.code.toLowerCase() : String(b.error ?? 'error').toLowerCase();
      ctx.applied();
    },
    demo: {
      steps: [{ req: req('GET', '/v0/customers/cus_nobody'), res: notFound() }],
      verify: (o) => expectAll([got(o)?.code === 'customer_not_found', `code ${got(o)?.code}`]),
    },
  }),
  fault({
    name: 'errors-category-mismatch',
    area: 'conventions',
    description: "404 bodies say error 'bad_request'",
    rules: ['ERRORS.CATEGORY.MATCHES_STATUS'],
    suites: ['customers'],
    onResponse(_r, res, ctx) {
      const b = bodyOf(res);
      if (res.status !== 404 || !b) return;
      b.error = 'bad_request';
      ctx.applied();
    },
    demo: {
      steps: [{ req: req('GET', '/v0/customers/cus_nobody'), res: notFound() }],
      verify: (o) => expectAll([got(o)?.error === 'bad_request', `error ${got(o)?.error}`]),
    },
  }),
  fault({
    name: 'errors-validation-without-errors',
    area: 'conventions',
    description: 'ValidationError bodies lose their errors array',
    rules: ['ERRORS.VALIDATION.SHAPE'],
    suites: ['customers'],
    onResponse(_r, res, ctx) {
      const b = bodyOf(res);
      if (res.status !== 400 || b?.errors === undefined) return;
      delete b.errors;
      b.error = 'validation_error';
      ctx.applied();
    },
    demo: {
      steps: [{ req: req('PATCH', '/v0/customers/cus_demo1', { externalId: 'z'.repeat(256) }), res: invalid() }],
      verify: (o) => expectAll([o.response.status === 400 && got(o)?.errors === undefined, 'errors still there']),
    },
  }),
];

/** Between the schema-type and enum-case faults in the catalog. */
export const bareBadRequest: CatalogFault = fault({
  name: 'errors-400-bare',
  area: 'conventions',
  description: '400 bodies carry only {error: bad_request}: neither an Error (no message) nor a ValidationError',
  rules: ['ERRORS.400.BODY'],
  suites: ['customers'],
  onResponse(_r, res, ctx) {
    if (res.status !== 400 || !bodyOf(res)) return;
    ctx.applied();
    return json(400, { error: 'bad_request' });
  },
  demo: {
    steps: [{ req: req('PATCH', '/v0/customers/cus_demo1', { externalId: 'z'.repeat(256) }), res: invalid() }],
    verify: (o) =>
      expectAll([
        o.response.status === 400 && got(o)?.message === undefined && got(o)?.errors === undefined,
        'the body is still an Error',
      ]),
  },
});
