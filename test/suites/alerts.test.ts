/**
 * The alerts suite passes against the bundled reference and fails, citing the right
 * rules, when a fault proxy in front of it breaks an alerts rule.
 */
import { describe, test } from 'vitest';
import type { ProxyRequest } from '../../src/faults/fault-proxy.ts';
import { expectAllPassed, isPatch, useInProcessRun } from './helpers/in-process-run.ts';

const SUITE = 'alerts';
const { run, expectFailed } = useInProcessRun(SUITE);

/** Rewrites the query of a request (the proxy forwards `req.path`). */
function withQuery(req: ProxyRequest, edit: (q: URLSearchParams) => boolean): boolean {
  const url = new URL(req.path, 'http://proxy.invalid');
  if (!edit(url.searchParams)) return false;
  req.path = `${url.pathname}?${url.searchParams}`;
  return true;
}
const isListAlerts = (req: ProxyRequest) => req.method === 'GET' && /^\/v0\/alerts(\?|$)/.test(req.path);

describe('alerts suite', () => {
  test('passes against the unaltered reference: no failure, no skip', async () => {
    expectAllPassed(await run());
  });

  test('fails on a default page of 20, limit 0 accepted, a missing resourceId accepted and PATCH without resource=wallet accepted', async () => {
    const results = await run({
      name: 'default-limit-20, limit-0-accepted, resourceId-optional, resource-optional',
      onRequest(req, ctx) {
        if (isListAlerts(req)) {
          const changed = withQuery(req, (q) => {
            if (!q.has('resourceId')) return false;
            if (!q.has('limit')) q.set('limit', '20');
            else if (q.get('limit') === '0') q.set('limit', '1');
            else return false;
            return true;
          });
          if (changed) ctx.applied();
          else if (!new URL(req.path, 'http://proxy.invalid').searchParams.has('resourceId')) {
            ctx.applied();
            return {
              status: 200,
              headers: { 'content-type': 'application/json' },
              body: Buffer.from(
                JSON.stringify({ object: 'list', data: [], pagination: { limit: 10, offset: 0, total: 0 } }),
              ),
            };
          }
        }
        if (
          isPatch(req, '/v0/alerts/') &&
          withQuery(req, (q) => (q.get('resource') === 'wallet' ? false : (q.set('resource', 'wallet'), true)))
        )
          ctx.applied();
      },
    });
    expectFailed(results, [
      'ALERTS.LIST.LIMIT_DEFAULT',
      'ALERTS.LIST.LIMIT_RANGE',
      'ALERTS.LIST.RESOURCE_ID_REQUIRED',
      'ALERTS.UPDATE.RESOURCE_REQUIRED',
      'VALIDATION.BOUNDS.400',
      'VALIDATION.REQUIRED.400',
    ]);
  });

  test('fails on a negative offset accepted, resource=customer read as wallet, and a PATCH that ignores the fields sent', async () => {
    const results = await run({
      name: 'negative-offset-accepted, resource-enum-ignored, patch-ignored',
      onRequest(req, ctx) {
        if (
          isListAlerts(req) &&
          withQuery(req, (q) => (Number(q.get('offset')) < 0 ? (q.set('offset', '0'), true) : false))
        )
          ctx.applied();
        if (
          isPatch(req, '/v0/alerts/') &&
          withQuery(req, (q) =>
            q.has('resource') && q.get('resource') !== 'wallet' ? (q.set('resource', 'wallet'), true) : false,
          )
        )
          ctx.applied();
        if (isPatch(req, '/v0/alerts/') && req.json && typeof req.json === 'object') {
          req.json = {};
          ctx.applied();
        }
      },
    });
    expectFailed(results, [
      'ALERTS.LIST.OFFSET',
      'ALERTS.UPDATE.OK',
      'ALERTS.UPDATE.RESOURCE_REQUIRED',
      'VALIDATION.ENUM.400',
      'VALIDATION.BOUNDS.400',
    ]);
  });
});
