/**
 * Over-strict vendors: deviations that DO break the interface document. Each refuses, with a
 * well-formed 400 ValidationError, one exact request the document makes valid, and lets every
 * other request through. A conformance tool must go red on each of them.
 */
import type { Fault, ProxyRequest, ProxyResponse } from '../../src/faults/fault-proxy.ts';
import { authOf, isPlainObject, matchEndpoint, type EndpointKey, type Matched, validationError } from './common.ts';

export interface OverstrictFault {
  name: string;
  /** The document sentence the fault breaks. */
  sentence: string;
  fault: Fault;
}

function refusing(
  name: string,
  endpoint: EndpointKey,
  field: string,
  message: string,
  matches: (req: ProxyRequest, ep: Matched) => boolean,
): Fault {
  return {
    name,
    description: `Refuses with 400 ValidationError (${field}): ${message}`,
    onRequest(req, ctx): ProxyResponse | undefined {
      const ep = matchEndpoint(req.method, req.path);
      // Only the exact case, and only with credentials (a request without them still gets its 401).
      if (!ep || ep.key !== endpoint || !authOf(req) || !matches(req, ep)) return undefined;
      ctx.applied();
      return validationError([{ field, message, code: 'OUT_OF_RANGE' }]);
    },
  };
}

function body(req: ProxyRequest): Record<string, unknown> | undefined {
  return isPlainObject(req.json) ? req.json : undefined;
}

function onlyKeys(req: ProxyRequest, keys: string[]): boolean {
  const b = body(req);
  if (!b) return false;
  const got = Object.keys(b).sort();
  const want = [...keys].sort();
  return got.length === want.length && got.every((k, i) => k === want[i]);
}

const TAX_RATES =
  '**PATCH /v0/customers/{id}** — body (all optional): ... `taxRates` number 0..100 (one rate applied to all plans and metrics) ... ' +
  '/ "Other constants: ... customer `taxRates` 0..100"';

const ALERTS_LIMIT =
  '**GET /v0/alerts** — query: `resourceId` string required; `limit` integer default 10, range 1..100; `offset` integer default ' +
  '0, >= 0. / "Other constants: ... alerts `limit` 1..100 (default 10)"';

export const overstrictFaults: OverstrictFault[] = [
  {
    name: 'overstrict-taxrates-0',
    sentence: TAX_RATES,
    fault: refusing(
      'overstrict-taxrates-0',
      'customers.patch',
      'taxRates',
      'taxRates must be greater than 0',
      (req) => body(req)?.taxRates === 0,
    ),
  },
  {
    name: 'overstrict-taxrates-100',
    sentence: TAX_RATES,
    fault: refusing(
      'overstrict-taxrates-100',
      'customers.patch',
      'taxRates',
      'taxRates must be less than 100',
      (req) => body(req)?.taxRates === 100,
    ),
  },
  {
    name: 'overstrict-externalid-255',
    sentence:
      '`externalId` string or null (max 255; null clears) / "Merchant-defined id in the merchant\'s own system; maximum ' +
      'length 255." / "Other constants: customer `externalId` max length 255"',
    fault: refusing(
      'overstrict-externalid-255',
      'customers.patch',
      'externalId',
      'externalId must be shorter than 255 characters',
      (req) => {
        const v = body(req)?.externalId;
        return typeof v === 'string' && v.length === 255;
      },
    ),
  },
  {
    name: 'overstrict-alerts-resource-wallet',
    sentence: '**PATCH /v0/alerts/{id}** — path `id` alert id. Query: `resource` required, enum `wallet`.',
    fault: refusing(
      'overstrict-alerts-resource-wallet',
      'alerts.patch',
      'resource',
      'resource must be one of the supported resource types',
      (_req, ep) => ep.query.get('resource') === 'wallet',
    ),
  },
  {
    name: 'overstrict-alerts-limit-100',
    sentence: ALERTS_LIMIT,
    fault: refusing(
      'overstrict-alerts-limit-100',
      'alerts.list',
      'limit',
      'limit must be less than 100',
      (_req, ep) => ep.query.get('limit') === '100',
    ),
  },
  {
    name: 'overstrict-alerts-limit-1',
    sentence: ALERTS_LIMIT,
    fault: refusing(
      'overstrict-alerts-limit-1',
      'alerts.list',
      'limit',
      'limit must be greater than 1',
      (_req, ep) => ep.query.get('limit') === '1',
    ),
  },
  {
    name: 'overstrict-product-without-metadata',
    sentence:
      '**POST /v0/products** — body: `name` string required, `description` string required, `merchantId` string required ' +
      '(owner), `metadata` object optional.',
    fault: refusing(
      'overstrict-product-without-metadata',
      'products.create',
      'metadata',
      'metadata is required',
      (req) => onlyKeys(req, ['name', 'description', 'merchantId']),
    ),
  },
  {
    name: 'overstrict-webhooks-enabled-only',
    sentence:
      '**PATCH /v0/webhooks** — turn delivery on or off. / Query: `merchantId` string, optional (defaults to the merchant ' +
      'of the API key). / Body: `enabled` boolean, required.',
    fault: refusing(
      'overstrict-webhooks-enabled-only',
      'webhooks.patch',
      'applicationId',
      'applicationId is required',
      (req) => onlyKeys(req, ['enabled']) && typeof body(req)?.enabled === 'boolean',
    ),
  },
  {
    name: 'overstrict-target-version-1',
    sentence:
      "Body: `targetVersionNumber` integer, 1..2147483647, the number of a published version of the subscription's plan. " +
      '/ "Plans have numbered versions (integer, starting at 1)." / "Other constants: ... `targetVersionNumber` 1..2147483647."',
    fault: refusing(
      'overstrict-target-version-1',
      'subscriptions.versionMigration',
      'targetVersionNumber',
      'targetVersionNumber must be greater than 1',
      (req) => body(req)?.targetVersionNumber === 1,
    ),
  },
];
