/**
 * The lenient vendor: a conforming service that, wherever the interface document leaves the
 * form of an answer open, takes the other liberty. In front of a correct implementation and on
 * the documented endpoints only, it:
 *
 * - answers 200 instead of 201 on successful creates;
 * - answers 200 with a JSON body ({ id, object, deleted: true }) instead of an empty 204 on
 *   successful deletes whose status the document does not give;
 * - compresses answers with gzip when the request's Accept-Encoding allows it (or is absent);
 * - writes date-times with the offset `+00:00` instead of `Z` (never inside free-form objects);
 * - adds an undocumented field (`livemode: false`) to resource objects;
 * - adds an undocumented response header (`x-request-id`).
 *
 * Every other path goes through untouched.
 */
import { randomUUID } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import type { Fault, ProxyResponse } from '../../src/faults/fault-proxy.ts';
import { type EndpointKey, is2xx, isPlainObject, matchEndpoint } from './common.ts';

export const LENIENT_CHOICES: ReadonlyArray<{ name: string; sentence: string }> = [
  {
    name: '200 instead of 201 on creates',
    sentence:
      '"Where the success status code is not given below, it is not shown." POST /v0/billingSchedules ("Response: billing ' +
      "schedule object ('BillingSchedule created')\"), POST /v0/products (\"Response: product object ('Product created " +
      'successfully\')"), POST /v0/merchants ("Response: merchant object") and POST /v2/invoices/{id}/refunds ("Response: ' +
      "invoice refund object ('Credit note created')\") give no status; any 2xx with the object keeps them.",
  },
  {
    name: '200 with a body instead of 204 on deletes',
    sentence:
      '"Where the success status code is not given below, it is not shown." DELETE /v0/billingSchedules/{id} ("Response ' +
      "'Deleted'.\"), DELETE /v0/customers/{id} and DELETE /v0/fees/{id} give no success status or body; the vendor answers " +
      '200 with { id, object, deleted: true }.',
  },
  {
    name: 'gzip content coding',
    sentence:
      '"Bodies are JSON (`application/json`)." A content coding does not change the media type, and the document says ' +
      'nothing about content codings. RFC 9110 section 12.5.3 (Accept-Encoding): a request without Accept-Encoding accepts ' +
      'any content coding, a listed coding (or *) with a qvalue above 0 is acceptable, and an empty field value means ' +
      'identity only. The answer then carries Content-Encoding: gzip and Vary: Accept-Encoding.',
  },
  {
    name: 'date-times with +00:00',
    sentence:
      '"Timestamps are ISO 8601 date-time strings." ISO 8601 (and RFC 3339) write UTC as `Z` or as the offset `+00:00`; the ' +
      'document does not say which. Values inside `metadata` (and the not-shown `config`, `usageFilter`, ' +
      '`customPeriodWindows`, `details`) are left as they are.',
  },
  {
    name: 'extra fields on resource objects',
    sentence:
      '"Resource representations carry an `object` field holding the resource type name." The field tables list what a ' +
      'representation carries, never that it carries nothing else (e.g. "Fields of the organization object and the response ' +
      'shape of notificationSettings: not shown."); the vendor adds `livemode: false`.',
  },
  {
    name: 'extra response headers',
    sentence:
      'The document names only the rate headers ("| x-ratelimit-limit | authenticated requests to listed endpoints | The ' +
      'bucket\'s limit. |", "x-ratelimit-remaining", "x-ratelimit-reset", "retry-after") and never forbids others; under ' +
      'RFC 9110 section 5.1 recipients ignore header fields they do not recognize. The vendor adds `x-request-id`.',
  },
];

/** Objects whose contents the document leaves to the client or does not show: never rewritten. */
const FREE_FORM = new Set(['metadata', 'config', 'usageFilter', 'customPeriodWindows', 'details']);

const UTC_Z = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?)Z$/;

/** Rewrites date-times to +00:00 and adds `livemode` to resource objects, in place. Returns whether it changed anything. */
function rewrite(node: unknown): boolean {
  let changed = false;
  if (Array.isArray(node)) {
    node.forEach((v, i) => {
      if (typeof v === 'string') {
        const m = UTC_Z.exec(v);
        if (m) {
          node[i] = `${m[1]}+00:00`;
          changed = true;
        }
      } else if (rewrite(v)) changed = true;
    });
    return changed;
  }
  if (!isPlainObject(node)) return false;
  if (typeof node.object === 'string' && node.object !== 'list' && !('livemode' in node)) {
    node.livemode = false;
    changed = true;
  }
  for (const [k, v] of Object.entries(node)) {
    if (FREE_FORM.has(k)) continue;
    if (typeof v === 'string') {
      const m = UTC_Z.exec(v);
      if (m) {
        node[k] = `${m[1]}+00:00`;
        changed = true;
      }
    } else if (rewrite(v)) changed = true;
  }
  return changed;
}

/** Whether an Accept-Encoding value (undefined: header absent) allows gzip (RFC 9110 section 12.5.3). */
export function acceptsGzip(value: string | undefined): boolean {
  if (value === undefined) return true;
  if (value.trim() === '') return false;
  let gzip: number | undefined;
  let star: number | undefined;
  for (const item of value.split(',')) {
    const [rawName, ...params] = item.split(';');
    const name = rawName.trim().toLowerCase();
    let q = 1;
    for (const p of params) {
      const [k, v] = p.split('=').map((s) => s.trim());
      if (k.toLowerCase() === 'q' && v !== undefined) {
        const n = Number(v);
        q = Number.isFinite(n) ? n : 0;
      }
    }
    if (name === 'gzip' || name === 'x-gzip') gzip = Math.max(gzip ?? 0, q);
    else if (name === '*') star = q;
  }
  return (gzip ?? star ?? 0) > 0;
}

const DELETED_OBJECT: Partial<Record<EndpointKey, string>> = {
  'billingSchedules.delete': 'billing_schedule',
  'customers.delete': 'customer',
  'fees.delete': 'fee',
};

function appendVary(existing: string | undefined, name: string): string {
  if (!existing) return name;
  const parts = existing.split(',').map((s) => s.trim().toLowerCase());
  return parts.includes(name.toLowerCase()) || parts.includes('*') ? existing : `${existing}, ${name}`;
}

export const lenientVendor: Fault = {
  name: 'lenient-vendor',
  description:
    'A conforming vendor that takes the liberties the document leaves open: 200 on creates, 200 with a body on deletes, ' +
    'gzip, +00:00 date-times, extra fields and extra headers.',

  onRequest(req) {
    if (!matchEndpoint(req.method, req.path)) return undefined;
    // The vendor does its own compression: ask the server behind for identity so the answer can be edited.
    // (A copy, so onResponse still sees the client's Accept-Encoding; the raw body is forwarded as sent.)
    return { ...req, headers: { ...req.headers, 'accept-encoding': 'identity' }, json: undefined };
  },

  onResponse(req, res, ctx): ProxyResponse | undefined {
    const ep = matchEndpoint(req.method, req.path);
    if (!ep) return undefined;
    // Already encoded by the server behind (it should not be): leave the answer alone.
    if (res.headers['content-encoding'] && res.headers['content-encoding'].toLowerCase() !== 'identity')
      return undefined;

    let status = res.status;
    const headers: Record<string, string> = { ...res.headers };
    let body = res.body;
    let json = res.json;

    if (is2xx(status)) {
      if (status === 201) status = 200;
      if (json !== undefined && rewrite(json)) body = Buffer.from(JSON.stringify(json));
      const deletedObject = DELETED_OBJECT[ep.key];
      if (status === 204 && deletedObject) {
        status = 200;
        json = { id: ep.params[0], object: deletedObject, deleted: true };
        body = Buffer.from(JSON.stringify(json));
        headers['content-type'] = 'application/json; charset=utf-8';
      }
    }

    headers['x-request-id'] = `req_${randomUUID().replace(/-/g, '')}`;

    if (body.length > 0 && status !== 204 && status !== 304 && acceptsGzip(req.headers['accept-encoding'])) {
      body = gzipSync(body);
      json = undefined;
      headers['content-encoding'] = 'gzip';
      headers['vary'] = appendVary(headers['vary'], 'Accept-Encoding');
    }

    ctx.applied();
    return { status, headers, body, json };
  },
};
