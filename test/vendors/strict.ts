/**
 * The strict vendor: a conforming service that, wherever the interface document leaves a
 * decision open, refuses. It stands in front of a correct implementation and, on the
 * documented endpoints only:
 *
 * - answers 400 ValidationError for empty strings, and for zero or negative numbers (or
 *   decimal strings), in request fields whose bounds the document does not state;
 * - answers 400 ValidationError for body fields the document does not list for the operation;
 * - answers 409 (Error, code SCHEDULE_EXISTS) for a second billing schedule for an order that
 *   already has a live one made through it;
 * - answers 403 (Error) when a body or query names a merchant other than the key's own where
 *   the document lets it name one.
 *
 * It never refuses a value the document states is valid. Every other path goes through untouched.
 */
import type { Fault, FaultContext, ProxyRequest, ProxyResponse } from '../../src/faults/fault-proxy.ts';
import {
  authOf,
  credentialsRejected,
  errorResponse,
  type EndpointKey,
  type FieldError,
  is2xx,
  isPlainObject,
  matchEndpoint,
  type Matched,
  responseJson,
  validationError,
} from './common.ts';

export const STRICT_CHOICES: ReadonlyArray<{ name: string; sentence: string }> = [
  {
    name: 'non-empty strings where no bound is stated',
    sentence:
      'Body fields are typed only ("`name` string, `catalogId` string ..."; "`description` string, `enabled` boolean, `name` string"; ' +
      '"`reason` string, optional"; "`name` string required, `description` string required, `merchantId` string required (owner)"; ' +
      '"`taxId` string or null (null deletes it), `externalId` string or null (max 255; null clears)"; "`paymentMethod` string"), ' +
      'and the only bounds stated are: "Other constants: customer `externalId` max length 255; customer `taxRates` 0..100; alerts ' +
      '`limit` 1..100 (default 10), `offset` >= 0 (default 0); `targetVersionNumber` 1..2147483647." and "Limits of endpoints ' +
      'outside the table and size limits of payloads: not shown." So an empty string in those fields (or an empty `merchantId` / ' +
      '`resourceId` query value) is refused with "400 | Request not understood or missing required parameters; body is Error or ValidationError."',
  },
  {
    name: 'source rule order is positive',
    sentence:
      '"`order` integer" (PATCH /v0/sourceRules/{ruleId}) and "| order | integer | yes | Lower numbers are evaluated first. |": ' +
      'no lower bound is stated, so `order` <= 0 is refused.',
  },
  {
    name: 'alert notifyPeriod is positive',
    sentence:
      '"Body fields: `config` object, `enabled` boolean, `notifyPeriod` integer, `recipients` array of e-mail addresses, ' +
      '`organizationId` string." No bound is stated, so `notifyPeriod` <= 0 (and an empty recipient string) is refused.',
  },
  {
    name: 'auto top-up amounts are positive decimals',
    sentence:
      '"Body: `amount` string, `threshold` string, `paymentMethod` string, `limit` object {`amount` number, `period` string}." ' +
      'No format or bound is stated, so `amount` and `threshold` must be positive decimal strings (not "", "0.00", "-1") and ' +
      '`limit.amount` a positive number.',
  },
  {
    name: 'billing schedule paymentTermDays is not negative',
    sentence:
      '"Body fields: `startDate`, `endDate`, `billingAnchor` (date-time), `orderId` (string), `subscriptionId` (string), ' +
      '`paymentTermDays` (integer), `customPeriodWindows` (array), `metadata` (object)." No bound is stated, so a negative ' +
      '`paymentTermDays` is refused (0, due at once, is kept).',
  },
  {
    name: 'unknown body fields are refused',
    sentence:
      'Each operation lists its body fields (e.g. "Body: `enabled` boolean, required."; "body (all optional): `taxId` ..., ' +
      '`notificationSettings` object with booleans `invoiceIssued`, `invoicePaid`, `renewalReminder`"; "A condition has `type`, ' +
      '`operator`, `value`."; "Address object: `line1`, `line2`, `city`, `state`, `country`, `zipCode`") and nothing says what ' +
      'a field not listed does; "400 | Request not understood ..." lets a service refuse it. Each unknown field is named in `errors`.',
  },
  {
    name: 'one live billing schedule per order (409)',
    sentence:
      "\"Response: billing schedule object ('BillingSchedule created'). Six error bodies in Error shape exist; which status " +
      'each has: not shown." and "each belongs to exactly one order or exactly one subscription" (nothing says how many ' +
      'schedules an order may have); "409 | Conflict". Answered 409 in Error shape with code SCHEDULE_EXISTS.',
  },
  {
    name: 'naming another merchant is forbidden (403)',
    sentence:
      '"Query: `merchantId` string, optional (defaults to the merchant of the API key)."; "`merchantId` string required ' +
      '(owner)"; "`organizationId` string" (PATCH /v0/alerts/{id}); "Keys can be created and revoked; how, and any key scopes: ' +
      'not shown."; "insufficient permission yields 403 (both in Error shape)". A key may act only for its own merchant.',
  },
];

// ---------------------------------------------------------------------------------------------
// Field rules, field by field from the document.

type Rule =
  /** Anything the document types or bounds itself (booleans, enums, objects, date-times, stated ranges). */
  | { kind: 'any' }
  /** A string with no stated bounds: refuse "" (and blanks). Null and other types go to the server. */
  | { kind: 'text' }
  /** A number with no stated bounds, where zero means nothing: refuse <= 0. */
  | { kind: 'positive' }
  /** A number with no stated bounds where zero means something: refuse < 0. */
  | { kind: 'nonNegative' }
  /** A money amount written as a string: refuse "", non-decimals and values <= 0. */
  | { kind: 'positiveDecimal' }
  | { kind: 'object'; fields: Record<string, Rule> }
  | { kind: 'array'; of: Rule };

const any: Rule = { kind: 'any' };
const text: Rule = { kind: 'text' };
const object = (fields: Record<string, Rule>): Rule => ({ kind: 'object', fields });

const ADDRESS = object({ line1: text, line2: text, city: text, state: text, country: text, zipCode: text });

/** Body fields each documented operation lists (operations whose body is not shown are absent). */
const BODIES: Partial<Record<EndpointKey, Record<string, Rule>>> = {
  'webhooks.patch': { enabled: any },
  'billingSchedules.create': {
    startDate: text,
    endDate: text,
    billingAnchor: text,
    orderId: text,
    subscriptionId: text,
    paymentTermDays: { kind: 'nonNegative' },
    customPeriodWindows: any,
    metadata: any,
  },
  'items.patch': { name: text, catalogId: text, archived: any, metadata: any },
  'customers.patch': {
    // null deletes / clears: let through. "" has no stated meaning.
    taxId: text,
    externalId: text,
    // 0..100 inclusive, stated: never refused here.
    taxRates: any,
    notificationSettings: object({ invoiceIssued: any, invoicePaid: any, renewalReminder: any }),
  },
  'sourceRules.patch': {
    conditions: { kind: 'array', of: object({ type: text, operator: text, value: any }) },
    description: text,
    enabled: any,
    name: text,
    order: { kind: 'positive' },
  },
  'invoices.refund': { reason: text },
  'merchants.create': {
    name: text,
    email: text,
    description: text,
    metadata: any,
    vatNumber: text,
    address: ADDRESS,
    billingAddress: ADDRESS,
    phone: text,
    organizationId: text,
  },
  'products.create': { name: text, description: text, merchantId: text, metadata: any },
  'alerts.patch': {
    config: any,
    enabled: any,
    notifyPeriod: { kind: 'positive' },
    recipients: { kind: 'array', of: text },
    organizationId: text,
  },
  'wallets.autoTopupConfig': {
    amount: { kind: 'positiveDecimal' },
    threshold: { kind: 'positiveDecimal' },
    paymentMethod: text,
    limit: object({ amount: { kind: 'positive' }, period: text }),
  },
  'subscriptions.versionMigration': { targetVersionNumber: any },
};

/** Query parameters with no stated bounds: an empty value is refused. */
const QUERY_TEXT: Partial<Record<EndpointKey, string[]>> = {
  'webhooks.patch': ['merchantId'],
  'alerts.list': ['resourceId'],
};

function join(path: string, key: string): string {
  return path ? `${path}.${key}` : key;
}

function check(value: unknown, rule: Rule, field: string, out: FieldError[]): void {
  switch (rule.kind) {
    case 'any':
      return;
    case 'text':
      if (typeof value === 'string' && value.trim() === '')
        out.push({ field, message: `${field} must not be empty`, code: 'EMPTY' });
      return;
    case 'positive':
      if (typeof value === 'number' && value <= 0)
        out.push({ field, message: `${field} must be greater than 0`, code: 'TOO_SMALL' });
      return;
    case 'nonNegative':
      if (typeof value === 'number' && value < 0)
        out.push({ field, message: `${field} must not be negative`, code: 'TOO_SMALL' });
      return;
    case 'positiveDecimal':
      if (typeof value !== 'string') return;
      if (value.trim() === '') out.push({ field, message: `${field} must not be empty`, code: 'EMPTY' });
      else if (!/^-?\d+(\.\d+)?$/.test(value.trim()))
        out.push({ field, message: `${field} must be a decimal amount`, code: 'INVALID_DECIMAL' });
      else if (Number(value) <= 0) out.push({ field, message: `${field} must be greater than 0`, code: 'TOO_SMALL' });
      return;
    case 'array':
      if (Array.isArray(value)) value.forEach((v, i) => check(v, rule.of, `${field}[${i}]`, out));
      return;
    case 'object':
      if (!isPlainObject(value)) return;
      for (const [k, v] of Object.entries(value)) {
        const sub = rule.fields[k];
        const name = join(field, k);
        if (!sub) out.push({ field: name, message: `Unknown field ${name}`, code: 'UNKNOWN_FIELD' });
        else check(v, sub, name, out);
      }
      return;
  }
}

/** Field errors of a documented request (empty list: nothing to refuse). */
function validate(req: ProxyRequest, ep: Matched): FieldError[] {
  const errors: FieldError[] = [];
  for (const name of QUERY_TEXT[ep.key] ?? []) {
    const v = ep.query.get(name);
    if (v !== null && v.trim() === '')
      errors.push({ field: name, message: `${name} must not be empty`, code: 'EMPTY' });
  }
  const fields = BODIES[ep.key];
  if (fields && isPlainObject(req.json)) check(req.json, object(fields), '', errors);
  return errors;
}

// ---------------------------------------------------------------------------------------------
// What the vendor remembers.

interface StrictState {
  /** Authorization header -> the key's merchant, learned from 2xx answers. */
  merchants: Map<string, string>;
  /** orderId -> id of its live schedule made through this vendor. */
  scheduleByOrder: Map<string, string>;
  /** schedule id -> orderId. */
  orderBySchedule: Map<string, string>;
}

function stateOf(ctx: FaultContext): StrictState {
  let s = ctx.state.get('strict') as StrictState | undefined;
  if (!s) {
    s = { merchants: new Map(), scheduleByOrder: new Map(), orderBySchedule: new Map() };
    ctx.state.set('strict', s);
  }
  return s;
}

/** The merchant a request names, where the document lets it name one. */
function namedMerchant(req: ProxyRequest, ep: Matched): { field: string; value: string } | undefined {
  if (ep.key === 'webhooks.patch') {
    const v = ep.query.get('merchantId');
    return v ? { field: 'merchantId', value: v } : undefined;
  }
  if (!isPlainObject(req.json)) return undefined;
  const field = ep.key === 'products.create' ? 'merchantId' : ep.key === 'alerts.patch' ? 'organizationId' : undefined;
  const v = field ? req.json[field] : undefined;
  return field && typeof v === 'string' && v ? { field, value: v } : undefined;
}

/** The key's merchant as told by a 2xx answer, and whether that answer is authoritative. */
function merchantFromAnswer(
  req: ProxyRequest,
  ep: Matched,
  body: unknown,
): { merchant: string; authoritative: boolean } | undefined {
  // An answer to a request that names its merchant tells which merchant was named, not the key's.
  if (ep.key === 'products.create' || ep.key === 'merchants.create' || ep.key === 'merchants.get') return undefined;
  if (ep.key === 'webhooks.patch' && ep.query.has('merchantId')) return undefined;
  let candidate: unknown;
  if (isPlainObject(body)) {
    candidate = body.merchantId;
    if (candidate === undefined && Array.isArray(body.data) && isPlainObject(body.data[0]))
      candidate = body.data[0].merchantId;
  }
  if (typeof candidate !== 'string' || !candidate) return undefined;
  // "Query: `merchantId` string, optional (defaults to the merchant of the API key)."
  return { merchant: candidate, authoritative: ep.key === 'webhooks.patch' };
}

async function scheduleStillLive(req: ProxyRequest, scheduleId: string, ctx: FaultContext): Promise<boolean> {
  try {
    const res = await ctx.upstream({
      method: 'GET',
      path: `/v0/billingSchedules/${encodeURIComponent(scheduleId)}/intervals`,
      headers: { authorization: req.headers['authorization'] ?? '', accept: 'application/json' },
      body: Buffer.alloc(0),
    });
    return res.status !== 404 && res.status !== 410;
  } catch {
    return true;
  }
}

export const strictVendor: Fault = {
  name: 'strict-vendor',
  description:
    'A conforming vendor that refuses wherever the document leaves it open: empty strings and non-positive numbers ' +
    'in unbounded fields, unknown body fields, a second live schedule for an order, and another merchant named by a key.',

  async onRequest(req, ctx): Promise<ProxyResponse | undefined> {
    const ep = matchEndpoint(req.method, req.path);
    if (!ep) return undefined;
    const auth = authOf(req);
    // Without credentials the server answers 401 itself.
    if (!auth) return undefined;
    const state = stateOf(ctx);

    let refusal: ProxyResponse | undefined;
    const errors = validate(req, ep);
    if (errors.length) refusal = validationError(errors);

    if (!refusal) {
      const named = namedMerchant(req, ep);
      const own = state.merchants.get(auth);
      if (named && own && named.value !== own)
        refusal = errorResponse(
          403,
          'forbidden',
          `This API key may not act for ${named.value} (${named.field}); it belongs to another merchant.`,
          'MERCHANT_NOT_ACCESSIBLE',
        );
    }

    if (!refusal && ep.key === 'billingSchedules.create' && isPlainObject(req.json)) {
      const orderId = req.json.orderId;
      const existing = typeof orderId === 'string' ? state.scheduleByOrder.get(orderId) : undefined;
      if (typeof orderId === 'string' && existing !== undefined) {
        if (await scheduleStillLive(req, existing, ctx))
          refusal = errorResponse(
            409,
            'conflict',
            `Order ${orderId} already has a billing schedule (${existing}); delete it first.`,
            'SCHEDULE_EXISTS',
          );
        else {
          state.scheduleByOrder.delete(orderId);
          state.orderBySchedule.delete(existing);
        }
      }
    }

    if (!refusal) return undefined;
    // "Missing or invalid credentials yield 401": let the server behind say so.
    if (await credentialsRejected(req, ctx)) return undefined;
    ctx.applied();
    return refusal;
  },

  onResponse(req, res, ctx): undefined {
    const ep = matchEndpoint(req.method, req.path);
    if (!ep || !is2xx(res.status)) return undefined;
    const state = stateOf(ctx);
    const body = responseJson(res);
    const auth = authOf(req);

    if (auth) {
      const learned = merchantFromAnswer(req, ep, body);
      if (learned && (learned.authoritative || !state.merchants.has(auth))) state.merchants.set(auth, learned.merchant);
    }

    if (ep.key === 'billingSchedules.create') {
      const id = isPlainObject(body) ? body.id : undefined;
      let orderId = isPlainObject(body) ? body.orderId : undefined;
      if (typeof orderId !== 'string' && isPlainObject(req.json)) orderId = req.json.orderId;
      if (typeof id === 'string' && typeof orderId === 'string' && orderId) {
        state.scheduleByOrder.set(orderId, id);
        state.orderBySchedule.set(id, orderId);
      }
    } else if (ep.key === 'billingSchedules.delete') {
      const id = ep.params[0];
      const orderId = state.orderBySchedule.get(id);
      state.orderBySchedule.delete(id);
      if (orderId !== undefined && state.scheduleByOrder.get(orderId) === id) state.scheduleByOrder.delete(orderId);
    }
    return undefined;
  },
};
