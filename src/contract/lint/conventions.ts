/** The interface document's conventions, as data the project lint rules check. */

const ID = (prefix: string) => `^${prefix}[a-zA-Z0-9]+$`;
export const ID_PATTERNS = {
  item: ID('itm_'),
  product: ID('prod_'),
  organization: ID('org_'),
  customer: ID('cus_'),
  price: ID('price_'),
  billableMetric: ID('bm_'),
  fee: ID('fee_'),
  pricingUnit: ID('pu_'),
} as const;

/** An expected id pattern: exact for the patterns the document gives, a prefix for crn_/pay_. */
export type IdRule = { exact: string } | { prefix: string };

export interface DocumentedResource {
  /** Name in "Resources and their fields". */
  title: string;
  /** Value of its `object` field, or null where the document shows none. */
  object: string | null;
  /** Schema names it may have in components/schemas (compared without case and punctuation). */
  names: string[];
  /** Id fields with the pattern the document names for them. */
  ids: Record<string, IdRule>;
}

export const RESOURCES: DocumentedResource[] = [
  {
    title: 'Webhooks configuration',
    object: 'webhooks',
    names: ['WebhooksConfiguration', 'WebhookConfiguration', 'WebhooksConfig', 'WebhookConfig', 'Webhooks'],
    ids: {},
  },
  { title: 'Billing schedule', object: 'billing_schedule', names: ['BillingSchedule'], ids: {} },
  { title: 'Schedule interval', object: 'schedule_interval', names: ['ScheduleInterval'], ids: {} },
  {
    title: 'Item',
    object: 'item',
    names: ['Item'],
    ids: {
      id: { exact: ID_PATTERNS.item },
      merchantId: { exact: ID_PATTERNS.organization },
      catalogId: { exact: ID_PATTERNS.product },
    },
  },
  { title: 'External reference', object: 'externalReference', names: ['ExternalReference'], ids: {} },
  {
    title: 'Customer',
    object: 'customer',
    names: ['Customer'],
    ids: {
      id: { exact: ID_PATTERNS.customer },
      consumerId: { exact: ID_PATTERNS.organization },
      merchantId: { exact: ID_PATTERNS.organization },
    },
  },
  { title: 'Subscription', object: 'subscription', names: ['Subscription'], ids: {} },
  {
    title: 'Price',
    object: 'price',
    names: ['Price'],
    ids: {
      id: { exact: ID_PATTERNS.price },
      merchantId: { exact: ID_PATTERNS.organization },
      billableMetricId: { exact: ID_PATTERNS.billableMetric },
      feeId: { exact: ID_PATTERNS.fee },
      pricingUnitId: { exact: ID_PATTERNS.pricingUnit },
    },
  },
  { title: 'Payment', object: 'payment', names: ['Payment'], ids: { id: { prefix: 'pay_' } } },
  {
    title: 'Invoice refund (credit note)',
    object: 'invoice_refund',
    names: ['InvoiceRefund', 'CreditNote', 'Refund'],
    ids: { id: { prefix: 'crn_' } },
  },
  { title: 'Merchant organization', object: 'merchant', names: ['Merchant', 'MerchantOrganization'], ids: {} },
  { title: 'Product', object: 'product', names: ['Product'], ids: {} },
  { title: 'Alert', object: 'alert', names: ['Alert'], ids: {} },
  {
    title: 'Auto top-up configuration',
    object: 'autoTopupConfig',
    names: ['AutoTopupConfig', 'AutoTopupConfiguration', 'AutoTopUpConfig'],
    ids: {},
  },
  // The Source rule table shows no `object` field; its schema is not required to have one.
  { title: 'Source rule', object: null, names: ['SourceRule'], ids: {} },
];

export type ResourceRole = 'create' | 'read' | 'update' | 'delete' | 'list';

/**
 * The Endpoints section read resource by resource: which documented operation acts on which
 * resource, and how (creates it, reads, updates or deletes it by id, lists it). The x-resource
 * annotation of each resource's schema must say the same (`bm-resource-annotations`).
 */
export const RESOURCE_OPERATIONS: { title: string; names: string[]; roles: Partial<Record<ResourceRole, string[]>> }[] =
  [
    { title: 'Webhooks configuration', names: ['WebhooksConfiguration'], roles: { update: ['updateWebhooks'] } },
    {
      title: 'Billing schedule',
      names: ['BillingSchedule'],
      roles: { create: ['createBillingSchedule'], delete: ['deleteBillingSchedule'] },
    },
    { title: 'Schedule interval', names: ['ScheduleInterval'], roles: { list: ['listScheduleIntervals'] } },
    { title: 'Item', names: ['Item'], roles: { update: ['updateItem'] } },
    {
      title: 'Customer',
      names: ['Customer'],
      roles: { read: ['getCustomer'], update: ['updateCustomer'], delete: ['deleteCustomer'], list: ['listCustomers'] },
    },
    { title: 'Price', names: ['Price'], roles: { read: ['getPrice'] } },
    { title: 'Payment', names: ['Payment'], roles: { read: ['getPayment'] } },
    { title: 'Invoice refund (credit note)', names: ['InvoiceRefund'], roles: { create: ['createInvoiceRefund'] } },
    { title: 'Source rule', names: ['SourceRule'], roles: { update: ['updateSourceRule'] } },
    {
      title: 'Merchant organization',
      names: ['Merchant'],
      roles: { create: ['createMerchant'], read: ['getMerchant'] },
    },
    { title: 'Product', names: ['Product'], roles: { create: ['createProduct'] } },
    { title: 'Alert', names: ['Alert'], roles: { update: ['updateAlert'], list: ['listAlerts'] } },
    { title: 'Auto top-up configuration', names: ['AutoTopupConfig'], roles: { update: ['updateAutoTopupConfig'] } },
    { title: 'Fees', names: ['Fee'], roles: { delete: ['deleteFee'] } },
  ];

/** The method each role's operation has. */
export const ROLE_METHODS: Record<ResourceRole, string> = {
  create: 'post',
  read: 'get',
  update: 'patch',
  delete: 'delete',
  list: 'get',
};

/** Path parameters and body fields with a documented pattern. */
export const PARAMETER_PATTERNS: { operationId: string; in: 'path' | 'body'; name: string; pattern: string }[] = [
  { operationId: 'updateItem', in: 'path', name: 'id', pattern: ID_PATTERNS.item },
  { operationId: 'updateItem', in: 'body', name: 'catalogId', pattern: ID_PATTERNS.product },
  { operationId: 'getCustomer', in: 'path', name: 'id', pattern: ID_PATTERNS.customer },
  { operationId: 'updateCustomer', in: 'path', name: 'id', pattern: ID_PATTERNS.customer },
  { operationId: 'getPrice', in: 'path', name: 'id', pattern: ID_PATTERNS.price },
];

export interface DocumentedOperation {
  operationId: string;
  method: string;
  path: string;
}

/** Every operation of the document's "Endpoints" section (operationIds from docs/architecture.md). */
export const DOCUMENTED_OPERATIONS: DocumentedOperation[] = [
  { operationId: 'updateWebhooks', method: 'patch', path: '/v0/webhooks' },
  { operationId: 'createBillingSchedule', method: 'post', path: '/v0/billingSchedules' },
  { operationId: 'listScheduleIntervals', method: 'get', path: '/v0/billingSchedules/{id}/intervals' },
  { operationId: 'deleteBillingSchedule', method: 'delete', path: '/v0/billingSchedules/{id}' },
  { operationId: 'updateItem', method: 'patch', path: '/v0/items/{id}' },
  { operationId: 'getCustomer', method: 'get', path: '/v0/customers/{id}' },
  { operationId: 'updateCustomer', method: 'patch', path: '/v0/customers/{id}' },
  { operationId: 'deleteCustomer', method: 'delete', path: '/v0/customers/{id}' },
  { operationId: 'updateSourceRule', method: 'patch', path: '/v0/sourceRules/{ruleId}' },
  { operationId: 'createInvoiceRefund', method: 'post', path: '/v2/invoices/{id}/refunds' },
  { operationId: 'createMerchant', method: 'post', path: '/v0/merchants' },
  { operationId: 'getMerchant', method: 'get', path: '/v0/merchants/{id}' },
  { operationId: 'createProduct', method: 'post', path: '/v0/products' },
  { operationId: 'getPrice', method: 'get', path: '/v0/prices/{id}' },
  { operationId: 'deleteFee', method: 'delete', path: '/v0/fees/{id}' },
  { operationId: 'getPayment', method: 'get', path: '/v0/payments/{id}' },
  { operationId: 'listAlerts', method: 'get', path: '/v0/alerts' },
  { operationId: 'updateAlert', method: 'patch', path: '/v0/alerts/{id}' },
  { operationId: 'updateAutoTopupConfig', method: 'patch', path: '/v0/wallets/{id}/autoTopupConfig' },
  { operationId: 'migrateSubscriptionVersion', method: 'post', path: '/v0/subscriptions/{id}/versionMigration' },
  { operationId: 'updateSubscription', method: 'patch', path: '/v0/subscriptions/{id}' },
  { operationId: 'listCustomers', method: 'get', path: '/v0/customers' },
  { operationId: 'createReconciliation', method: 'post', path: '/v0/subscriptions/{id}/reconciliations' },
  { operationId: 'createPortalSession', method: 'post', path: '/v0/subscriptions/{id}/portal' },
  { operationId: 'createInvoiceLineItems', method: 'post', path: '/v2/invoices/lineItems' },
  { operationId: 'getCostsReport', method: 'get', path: '/v0/costs/report' },
  { operationId: 'listCrmAccounts', method: 'get', path: '/v0/integrations/{crmProvider}/accounts' },
];

/** The six operations of the Limits table. */
export const RATE_LIMITED_OPERATIONS = [
  'listCustomers',
  'createReconciliation',
  'createPortalSession',
  'createInvoiceLineItems',
  'getCostsReport',
  'listCrmAccounts',
];

export const RATE_HEADERS = ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'];
export const RETRY_AFTER = 'retry-after';

export const REFERENCE_EXTENSION_TAG = 'Reference extensions';

/**
 * A bound the document states in prose, and where the spec must carry it: a property of a
 * component schema (`Schema.field.sub`), or a query or body field of an operation. The sentence is
 * the document's, word for word: test/spec/stated-facts.test.ts finds every such sentence in the
 * document and fails when one has no entry here, and bm-stated-bounds fails when the spec lacks one.
 */
export interface StatedBound {
  sentence: string;
  at: { schema: string; field: string } | { operationId: string; in: 'query' | 'body'; name: string };
  minimum?: number;
  maximum?: number;
  maxLength?: number;
}

const VERSIONS = 'Plans have numbered versions (integer, starting at 1).';
export const STATED_BOUNDS: StatedBound[] = [
  { sentence: VERSIONS, at: { schema: 'Subscription', field: 'versionNumber' }, minimum: 1 },
  { sentence: VERSIONS, at: { schema: 'VersionMigration', field: 'migration.fromVersionNumber' }, minimum: 1 },
  { sentence: VERSIONS, at: { schema: 'VersionMigration', field: 'migration.toVersionNumber' }, minimum: 1 },
  {
    sentence: '`targetVersionNumber` integer, 1..2147483647',
    at: { operationId: 'migrateSubscriptionVersion', in: 'body', name: 'targetVersionNumber' },
    minimum: 1,
    maximum: 2147483647,
  },
  {
    sentence: '| quantity | number >= 0 |',
    at: { schema: 'Price', field: 'quantity' },
    minimum: 0,
  },
  {
    sentence: "Merchant-defined id in the merchant's own system; maximum length 255.",
    at: { schema: 'Customer', field: 'externalId' },
    maxLength: 255,
  },
  {
    sentence: '`externalId` string or null (max 255; null clears)',
    at: { operationId: 'updateCustomer', in: 'body', name: 'externalId' },
    maxLength: 255,
  },
  {
    sentence: '`taxRates` number 0..100',
    at: { operationId: 'updateCustomer', in: 'body', name: 'taxRates' },
    minimum: 0,
    maximum: 100,
  },
  {
    sentence: '`limit` integer default 10, range 1..100',
    at: { operationId: 'listAlerts', in: 'query', name: 'limit' },
    minimum: 1,
    maximum: 100,
  },
  {
    sentence: '`offset` integer default 0, >= 0',
    at: { operationId: 'listAlerts', in: 'query', name: 'offset' },
    minimum: 0,
  },
  {
    sentence: '| evaluationCount | integer | yes | Times evaluated. |',
    at: { schema: 'SourceRule', field: 'evaluationCount' },
    minimum: 0,
  },
  {
    sentence: '| matchCount | integer | yes | Times matched and auto-accepted an invoice. |',
    at: { schema: 'SourceRule', field: 'matchCount' },
    minimum: 0,
  },
];

/**
 * A field whose shape the document makes depend on another ("Depends on model"): the schema must
 * say so, with an if/then per value of the other field (bm-dependent-shapes), for each value named.
 */
export interface DependentShape {
  sentence: string;
  schema: string;
  field: string;
  on: string;
  /** Value of `on` → the fields `field` then holds. */
  shapes: Record<string, string[]>;
}

export const DEPENDENT_SHAPES: DependentShape[] = [
  {
    sentence:
      'Depends on model; for volume: `tiers` array of {unitPrice: string, upTo: string or null ' +
      '(null for the last tier)}. Also `unitPrice` for standard.',
    schema: 'Price',
    field: 'properties',
    on: 'model',
    shapes: { volume: ['tiers'], standard: ['unitPrice'] },
  },
];
