/**
 * Held-out set 2, benign variants: behaviours the interface document allows (each quotes the
 * sentence that allows it) that a naive tool might flag. No rule may fail on them.
 */
import type { CatalogFault } from '../../src/faults/catalog/types.ts';
import {
  bodyOf,
  fault,
  got,
  is2xx,
  isObj,
  json,
  on,
  pathOf,
  R,
  req,
  DEMO_KEY,
} from '../../src/faults/catalog/helpers.ts';
import { MERCHANT, creditNote, customer, extRef, item, payment, price, schedule, sourceRule } from './shared.ts';

const notificationSettingsExtraFlag = fault({
  name: 'ho2-benign-notification-settings-extra-flag',
  area: 'customers',
  benign: true,
  description:
    "Customer answers carry one more flag in notificationSettings (weeklyDigest: false) besides the three a PATCH can set. Allowed: 'Fields of the organization object and the response shape of notificationSettings: not shown.'",
  rules: [],
  suites: [],
  onResponse(rq, res, ctx) {
    const b = bodyOf(res);
    if (!R.customer.test(pathOf(rq)) || !is2xx(res) || !b || !isObj(b.notificationSettings)) return;
    if ('weeklyDigest' in b.notificationSettings) return;
    b.notificationSettings.weeklyDigest = false;
    ctx.applied();
  },
  demo: {
    steps: [{ req: req('GET', '/v0/customers/cus_1'), res: json(200, customer()) }],
    verify: (last) =>
      got(last)?.notificationSettings?.weeklyDigest === false ? undefined : 'no extra notificationSettings flag',
  },
});

const externalReferencesReordered = fault({
  name: 'ho2-benign-external-references-reordered',
  area: 'items',
  benign: true,
  description:
    "Item answers list their external references newest first (reversed). Allowed: the Item's '`externalReferences` | array of external reference' states no order.",
  rules: [],
  suites: [],
  onResponse(rq, res, ctx) {
    const b = bodyOf(res);
    if (!R.item.test(pathOf(rq)) || !is2xx(res) || !b || !Array.isArray(b.externalReferences)) return;
    if (b.externalReferences.length < 2) return;
    b.externalReferences.reverse();
    ctx.applied();
  },
  demo: {
    steps: [
      {
        req: req('PATCH', '/v0/items/itm_1', { name: 'Widget' }),
        res: json(
          200,
          item({
            externalReferences: [
              extRef(),
              extRef({ id: 'xref_2', externalId: 'NS-1', provider: 'netsuite', isPrimary: false, isDefault: false }),
            ],
          }),
        ),
      },
    ],
    verify: (last) => (got(last)?.externalReferences?.[0]?.id === 'xref_2' ? undefined : 'references in stored order'),
  },
});

const scheduleMetadataServerKey = fault({
  name: 'ho2-benign-schedule-metadata-server-key',
  area: 'billing-schedules',
  benign: true,
  description:
    "POST /v0/billingSchedules answers metadata with the keys sent plus one the server adds (createdVia: 'api'). Allowed: the schedule's '`metadata` | object |' has no stated contents, and 'Element shape of customPeriodWindows and contents of usageFilter: not shown' — the document keeps such objects open; every key sent still reads back as sent.",
  rules: [],
  suites: [],
  onResponse(rq, res, ctx) {
    const m = on(rq, 'POST', R.schedules);
    const b = bodyOf(res);
    if (!m || !is2xx(res) || !b || !isObj(b.metadata) || 'createdVia' in b.metadata) return;
    if (isObj(bodyOf(rq)?.metadata) && 'createdVia' in bodyOf(rq)!.metadata) return;
    b.metadata.createdVia = 'api';
    ctx.applied();
  },
  demo: {
    steps: [
      {
        req: req('POST', '/v0/billingSchedules', { orderId: 'ord_1', metadata: { team: 'a' } }),
        res: json(201, schedule({ metadata: { team: 'a' } })),
      },
    ],
    verify: (last) =>
      got(last)?.metadata?.createdVia === 'api' && got(last)?.metadata?.team === 'a'
        ? undefined
        : 'no server key added',
  },
});

const creditNoteNoPdf = fault({
  name: 'ho2-benign-credit-note-pdf-null',
  area: 'refunds-payments',
  benign: true,
  description:
    "Credit notes are answered with pdfUrl null (the PDF is rendered later). Allowed: '`pdfUrl` | string or null |'.",
  rules: [],
  suites: [],
  onResponse(rq, res, ctx) {
    const b = bodyOf(res);
    if (!on(rq, 'POST', R.refunds) || !is2xx(res) || !b || !('pdfUrl' in b) || b.pdfUrl === null) return;
    b.pdfUrl = null;
    ctx.applied();
  },
  demo: {
    steps: [{ req: req('POST', '/v2/invoices/inv_1/refunds', {}), res: json(201, creditNote()) }],
    verify: (last) => (got(last)?.pdfUrl === null ? undefined : 'pdfUrl not null'),
  },
});

const paymentNoUrl = fault({
  name: 'ho2-benign-payment-url-omitted',
  area: 'refunds-payments',
  benign: true,
  description:
    "GET /v0/payments/{id} answers without paymentUrl (the hosted page is not issued yet). Allowed: Payment '`paymentUrl` | string | no | Where the customer completes payment.' — not required.",
  rules: [],
  suites: [],
  onResponse(rq, res, ctx) {
    const b = bodyOf(res);
    if (!on(rq, 'GET', R.payment) || !is2xx(res) || !b || !('paymentUrl' in b)) return;
    delete b.paymentUrl;
    ctx.applied();
  },
  demo: {
    steps: [{ req: req('GET', '/v0/payments/pay_1'), res: json(200, payment()) }],
    verify: (last) => (got(last) && !('paymentUrl' in got(last)!) ? undefined : 'paymentUrl still present'),
  },
});

const blockedDeleteCodeDetails = fault({
  name: 'ho2-benign-blocked-delete-code-and-details',
  area: 'delete-blockers',
  benign: true,
  description:
    "A refused DELETE of a customer or fee (409) carries an UPPER_SNAKE code (CUSTOMER_HAS_BLOCKERS / FEE_HAS_BLOCKERS) when it had none, and one more details key (hint) beside blockers. Allowed: Error '`code` | string | no | Semantic business code, UPPER_SNAKE_CASE' and '`details` | object | no | Free-form; for delete conflicts carries `blockers`.'",
  rules: [],
  suites: [],
  onResponse(rq, res, ctx) {
    const isCustomer = !!on(rq, 'DELETE', R.customer);
    const isFee = !!on(rq, 'DELETE', R.fee);
    const b = bodyOf(res);
    if ((!isCustomer && !isFee) || res.status !== 409 || !b || !isObj(b.details)) return;
    if (b.code === undefined) b.code = isCustomer ? 'CUSTOMER_HAS_BLOCKERS' : 'FEE_HAS_BLOCKERS';
    b.details.hint = 'Remove the blockers listed, then retry the delete.';
    ctx.applied();
  },
  demo: {
    steps: [
      {
        req: req('DELETE', '/v0/fees/fee_1'),
        res: json(409, {
          error: 'conflict',
          message: 'Fee has prices',
          details: {
            blockers: [{ type: 'prices', count: 1, items: [{ id: 'price_1', invoiceDisplayName: 'Setup' }] }],
          },
        }),
      },
    ],
    verify: (last) =>
      got(last)?.code === 'FEE_HAS_BLOCKERS' && typeof got(last)?.details?.hint === 'string'
        ? undefined
        : 'no code or hint added',
  },
});

/** Documented operations outside the Limits table. */
const UNLISTED = [R.customer, R.price, R.payment, R.item, R.merchant];

const rateHeadersUnlisted = fault({
  name: 'ho2-benign-rate-headers-on-unlisted',
  area: 'rate-limits',
  benign: true,
  description:
    "Successful authenticated answers of documented endpoints outside the Limits table (customer, price, payment, item, merchant by id) carry x-ratelimit-limit 1000, x-ratelimit-remaining 1000 and x-ratelimit-reset 60 that describe no limit the endpoint enforces. Allowed: 'Endpoints outside the table may return the x-ratelimit headers, but their values do not describe a reachable limit.'",
  rules: [],
  suites: [],
  onResponse(rq, res, ctx) {
    const p = pathOf(rq);
    if (!is2xx(res) || !rq.headers.authorization || !UNLISTED.some((re) => re.test(p))) return;
    if (res.headers['x-ratelimit-limit'] !== undefined) return;
    res.headers['x-ratelimit-limit'] = '1000';
    res.headers['x-ratelimit-remaining'] = '1000';
    res.headers['x-ratelimit-reset'] = '60';
    ctx.applied();
  },
  demo: {
    steps: [{ req: req('GET', '/v0/prices/price_1', undefined, { authorization: DEMO_KEY }), res: json(200, price()) }],
    verify: (last) => (last.response.headers['x-ratelimit-limit'] === '1000' ? undefined : 'no rate headers'),
  },
});

const validTaxAddressMessage = fault({
  name: 'ho2-benign-valid-tax-address-message',
  area: 'customers',
  benign: true,
  description:
    "Customer answers whose validTaxAddress is valid carry a message ('Address verified') instead of null. Allowed: '`validTaxAddress` | object {valid: boolean, message: string or null} | yes'.",
  rules: [],
  suites: [],
  onResponse(rq, res, ctx) {
    const b = bodyOf(res);
    const v = b?.validTaxAddress;
    if (!R.customer.test(pathOf(rq)) || !is2xx(res) || !isObj(v) || v.valid !== true || v.message !== null) return;
    v.message = 'Address verified';
    ctx.applied();
  },
  demo: {
    steps: [{ req: req('GET', '/v0/customers/cus_1'), res: json(200, customer({ merchantId: MERCHANT })) }],
    verify: (last) =>
      got(last)?.validTaxAddress?.message === 'Address verified' ? undefined : 'validTaxAddress message unchanged',
  },
});

const sourceRuleOptionalOmitted = fault({
  name: 'ho2-benign-source-rule-nulls-omitted',
  area: 'merchants-products',
  benign: true,
  description:
    "PATCH /v0/sourceRules/{ruleId} answers leave out createdBy and lastEvaluatedAt when they are null. Allowed: '`createdBy` | string or null | no | User id.' and '`lastEvaluatedAt` | date-time or null | no |' — not required.",
  rules: [],
  suites: [],
  onResponse(rq, res, ctx) {
    const b = bodyOf(res);
    if (!on(rq, 'PATCH', R.sourceRule) || !is2xx(res) || !b) return;
    let changed = false;
    for (const k of ['createdBy', 'lastEvaluatedAt'])
      if (k in b && b[k] === null) {
        delete b[k];
        changed = true;
      }
    if (changed) ctx.applied();
  },
  demo: {
    steps: [{ req: req('PATCH', '/v0/sourceRules/srule_1', { order: 2 }), res: json(200, sourceRule({ order: 2 })) }],
    verify: (last) => {
      const b = got(last);
      return b && !('createdBy' in b) && !('lastEvaluatedAt' in b) ? undefined : 'null optional fields still present';
    },
  },
});

const notFoundWithoutCategory = fault({
  name: 'ho2-benign-404-without-category',
  area: 'conventions',
  benign: true,
  description:
    "404 Error bodies leave out the optional error category and keep only message (and code, if any). Allowed: Error '`error` | string | no | Coarse category mapping to the HTTP status' — only message is required.",
  rules: [],
  suites: [],
  onResponse(_rq, res, ctx) {
    const b = bodyOf(res);
    if (res.status !== 404 || !b || typeof b.message !== 'string' || !b.message || !('error' in b)) return;
    delete b.error;
    ctx.applied();
  },
  demo: {
    steps: [
      {
        req: req('GET', '/v0/customers/cus_missing'),
        res: json(404, { error: 'not_found', message: 'Customer cus_missing not found' }),
      },
    ],
    verify: (last) => {
      const b = got(last);
      return b && !('error' in b) && typeof b.message === 'string' ? undefined : 'error category still present';
    },
  },
});

export const heldoutSet2Benign: CatalogFault[] = [
  notificationSettingsExtraFlag,
  externalReferencesReordered,
  scheduleMetadataServerKey,
  creditNoteNoPdf,
  paymentNoUrl,
  blockedDeleteCodeDetails,
  rateHeadersUnlisted,
  validTaxAddressMessage,
  sourceRuleOptionalOmitted,
  notFoundWithoutCategory,
];
