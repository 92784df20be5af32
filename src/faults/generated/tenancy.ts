/**
 * Cross-merchant faults, one per documented operation that names a resource or a merchant
 * (a path id, a `merchantId` / `resourceId` in the query, or a merchant, order or
 * subscription id in the body): the operation is not scoped to the key's merchant, so a
 * key reaches what another merchant's key reached before (see ../catalog/tenancy.ts for
 * how the proxy emulates that). A path parameter that names no resource of a merchant
 * (`crmProvider`) and parameters the document does not show (the costs report's
 * `productId`, the line items' `invoiceId`) give no fault.
 */
import type { Operation, Spec } from '../../contract/index.ts';
import type { ProxyRequest } from '../fault-proxy.ts';
import { bodyOf, DEMO_KEY, expectAll, json, pathOf, queryOf, withQuery } from '../catalog/helpers.ts';
import type { DemoOutcome } from '../catalog/types.ts';
import { leak, learnOwners } from '../catalog/tenancy.ts';
import { placement } from './ops.ts';
import { sampleRequest } from './response.ts';
import type { GeneratedFault } from './types.ts';

const NAMING_QUERY = ['merchantId', 'resourceId'];
const NAMING_BODY = ['merchantId', 'resourceId', 'orderId', 'subscriptionId'];
const isIdParam = (name: string): boolean => name === 'id' || /Id$/.test(name);
/** The documented fields of the request body (none where the document does not show the body). */
const bodyFields = (op: Operation): Record<string, unknown> =>
  op.notShown.some((n) => /payload|body shape/.test(n)) ? {} : (op.requestBody?.schema?.properties ?? {});

/** The ids a request of `op` names: path parameters, and merchantId/resourceId in the query or the body. */
function namedIds(spec: Spec, op: Operation, r: ProxyRequest): string[] | undefined {
  const m = spec.matchPath(r.method, pathOf(r));
  if (m?.operation.operationId !== op.operationId) return undefined;
  const q = queryOf(r);
  const b = bodyOf(r) ?? {};
  return [...Object.values(m.params), ...NAMING_QUERY.map((k) => q.get(k)), ...NAMING_BODY.map((k) => b[k])].filter(
    (v): v is string => typeof v === 'string' && v.length > 0,
  );
}

function takesAnId(op: Operation): boolean {
  const body = bodyFields(op);
  return (
    op.parameters.some(
      (p) => (p.in === 'path' && isIdParam(p.name)) || (p.in === 'query' && NAMING_QUERY.includes(p.name)),
    ) || NAMING_BODY.some((k) => k in body)
  );
}

export function crossMerchantFaults(spec: Spec, ops: Operation[]): GeneratedFault[] {
  return ops.filter(takesAnId).map((op) => {
    const { area, suites } = placement(op.operationId);
    const body = bodyFields(op);
    const demoReq = sampleRequest(
      op,
      ['POST', 'PATCH', 'PUT'].includes(op.method)
        ? Object.fromEntries(NAMING_BODY.filter((k) => k in body).map((k) => [k, 'org_demo1']))
        : undefined,
    );
    const q = queryOf(demoReq);
    for (const p of op.parameters)
      if (p.in === 'query' && NAMING_QUERY.includes(p.name) && !q.has(p.name)) q.set(p.name, 'org_demo1');
    withQuery(demoReq, q);
    return {
      name: `gen-${op.operationId}-cross-merchant`,
      area,
      kind: 'cross-merchant',
      operationId: op.operationId,
      description: `${op.method} ${op.pathTemplate} is not scoped to the key's merchant: a key reaches another merchant's resource`,
      rules: ['AUTH.MERCHANT.ISOLATION'],
      suites: [...new Set([...suites, 'isolation'])].sort(),
      onResponse(r, res, ctx) {
        const ids = namedIds(spec, op, r);
        // A 2xx to a request naming an id in its body also tells whose it is.
        learnOwners(r, res, ctx, ids ?? []);
        if (ids?.length) return leak(r, res, ctx, ids);
      },
      demo: {
        steps: [
          {
            req: { ...demoReq, headers: { ...demoReq.headers, authorization: DEMO_KEY } },
            res: json(200, { object: 'demo', id: 'x_demo0', merchantId: 'org_demo1' }),
          },
          {
            req: { ...demoReq, headers: { ...demoReq.headers, authorization: 'Bearer sk_test_other0key' } },
            res: (f) =>
              f.headers.authorization === DEMO_KEY
                ? json(200, { object: 'demo', id: 'x_demo0' })
                : json(404, { error: 'not_found', message: 'not found' }),
          },
        ],
        verify: (o: DemoOutcome) => expectAll([o.response.status === 200, `the other key got ${o.response.status}`]),
      },
    } satisfies GeneratedFault;
  });
}
