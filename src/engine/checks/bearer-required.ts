import { defineCheck, finding, describeStatus } from './types.ts';

/** `Authorization: Bearer <token>`, as the document's security scheme asks. */
const BEARER = /^Bearer\s+\S+/i;

/**
 * Security applies globally: a request to a documented operation without a bearer token (no
 * Authorization, or one of another scheme) gets 401. Whether a bearer key is valid is not
 * visible in one exchange: a request that carries one is not judged here.
 */
export const bearerRequired = defineCheck({
  name: 'bearer-required',
  ruleIds: ['AUTH.BEARER.REQUIRED'],
  description: 'A request to a documented operation without a bearer token gets 401.',
  evaluate(ex, _ctx, op) {
    if (!op || op.extension || ex.status === undefined) return;
    const authorization = ex.requestHeaders.authorization;
    if (authorization !== undefined && BEARER.test(authorization.trim())) return;
    const sent =
      authorization === undefined ? 'without Authorization' : 'with an Authorization that is not a bearer token';
    return {
      judged: ['AUTH.BEARER.REQUIRED'],
      findings:
        ex.status === 401
          ? []
          : [
              finding(
                'bearer-required',
                ['AUTH.BEARER.REQUIRED'],
                'A request without a bearer token was not refused with 401',
                `${describeStatus(ex)}: sent ${sent}; every operation requires Authorization: Bearer <API_KEY>.`,
                ex,
              ),
            ],
    };
  },
});
