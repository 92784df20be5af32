/** Hand-written request schemas shaped after the interface document, plus synthetic edge cases. */
import type { GenOperation, JsonSchema } from '../../../src/engine/generators/index.ts';

const obj = (properties: Record<string, JsonSchema>, required: string[] = [], extra: JsonSchema = {}): JsonSchema => ({
  type: 'object',
  properties,
  required,
  ...extra,
});
const id = (pattern?: string) => obj({ id: pattern ? { type: 'string', pattern } : { type: 'string' } }, ['id']);

export const corpus: GenOperation[] = [
  {
    operationId: 'updateCustomer',
    method: 'patch',
    path: '/v0/customers/{id}',
    inputs: {
      path: id('^cus_[a-zA-Z0-9]+$'),
      body: obj(
        {
          taxId: { type: ['string', 'null'] },
          externalId: { type: ['string', 'null'], maxLength: 255 },
          taxRates: { type: 'number', minimum: 0, maximum: 100 },
          notificationSettings: obj({
            invoiceIssued: { type: 'boolean' },
            invoicePaid: { type: 'boolean' },
            renewalReminder: { type: 'boolean' },
          }),
        },
        [],
        { additionalProperties: false },
      ),
    },
  },
  {
    operationId: 'listAlerts',
    method: 'get',
    path: '/v0/alerts',
    inputs: {
      query: obj(
        {
          resourceId: { type: 'string' },
          limit: { type: 'integer', minimum: 1, maximum: 100, default: 10 },
          offset: { type: 'integer', minimum: 0, default: 0 },
        },
        ['resourceId'],
      ),
    },
  },
  {
    operationId: 'updateAlert',
    method: 'patch',
    path: '/v0/alerts/{id}',
    inputs: {
      path: id(),
      query: obj({ resource: { type: 'string', enum: ['wallet'] } }, ['resource']),
      body: obj({
        config: { type: 'object' },
        enabled: { type: 'boolean' },
        notifyPeriod: { type: 'integer' },
        recipients: { type: 'array', items: { type: 'string', format: 'email' } },
        organizationId: { type: 'string' },
      }),
    },
  },
  {
    operationId: 'migrateSubscriptionVersion',
    method: 'post',
    path: '/v0/subscriptions/{id}/versionMigration',
    inputs: {
      path: id(),
      body: obj({ targetVersionNumber: { type: 'integer', minimum: 1, maximum: 2147483647 } }, ['targetVersionNumber']),
    },
  },
  {
    operationId: 'updateItem',
    method: 'patch',
    path: '/v0/items/{id}',
    inputs: {
      path: id('^itm_[a-zA-Z0-9]+$'),
      body: obj({
        name: { type: 'string' },
        catalogId: { type: 'string', pattern: '^prod_[a-zA-Z0-9]+$' },
        archived: { type: 'boolean' },
        metadata: { type: 'object' },
      }),
    },
  },
  {
    operationId: 'createProduct',
    method: 'post',
    path: '/v0/products',
    inputs: {
      body: obj(
        {
          name: { type: 'string' },
          description: { type: 'string' },
          merchantId: { type: 'string' },
          metadata: { type: 'object' },
        },
        ['name', 'description', 'merchantId'],
      ),
    },
  },
  {
    operationId: 'updateWebhooks',
    method: 'patch',
    path: '/v0/webhooks',
    inputs: {
      query: obj({ merchantId: { type: 'string' } }),
      body: obj({ enabled: { type: 'boolean' } }, ['enabled']),
    },
  },
  {
    operationId: 'updateSourceRule',
    method: 'patch',
    path: '/v0/sourceRules/{ruleId}',
    inputs: {
      path: obj({ ruleId: { type: 'string' } }, ['ruleId']),
      body: obj({
        conditions: {
          type: 'array',
          items: obj({ type: { type: 'string' }, operator: { type: 'string' }, value: {} }, [], {
            'x-not-shown': 'allowed condition types and operators',
          }),
        },
        description: { type: 'string' },
        enabled: { type: 'boolean' },
        name: { type: 'string' },
        order: { type: 'integer' },
      }),
    },
  },
  {
    operationId: 'createBillingSchedule',
    method: 'post',
    path: '/v0/billingSchedules',
    inputs: {
      body: obj({
        startDate: { type: 'string', format: 'date-time' },
        endDate: { type: 'string', format: 'date-time' },
        billingAnchor: { type: 'string', format: 'date-time' },
        orderId: { type: 'string' },
        subscriptionId: { type: 'string' },
        paymentTermDays: { type: 'integer' },
        customPeriodWindows: { type: 'array', 'x-not-shown': 'element shape' },
        metadata: { type: 'object' },
      }),
    },
  },
  {
    operationId: 'updateAutoTopupConfig',
    method: 'patch',
    path: '/v0/wallets/{id}/autoTopupConfig',
    inputs: {
      path: id(),
      body: obj({
        amount: { type: 'string' },
        threshold: { type: 'string' },
        paymentMethod: { type: 'string' },
        limit: obj({ amount: { type: 'number' }, period: { type: 'string' } }),
      }),
    },
  },
  {
    // Synthetic: every keyword the generators handle, nested.
    operationId: 'synthetic',
    method: 'put',
    path: '/v9/things/{thingId}/{n}',
    inputs: {
      path: obj({ thingId: { type: 'string', pattern: '^thg_[a-z0-9]+$' }, n: { type: 'integer', minimum: 1 } }, [
        'thingId',
        'n',
      ]),
      query: obj({
        ratio: { type: 'number', exclusiveMinimum: 0, exclusiveMaximum: 1 },
        flag: { type: 'boolean' },
        kind: { type: 'string', enum: ['a', 'b'] },
      }),
      body: obj(
        {
          code: { type: 'string', pattern: '^[A-Z]{3}$' },
          label: { type: 'string', minLength: 2, maxLength: 40 },
          level: { type: ['integer', 'null'], minimum: -5, maximum: 5 },
          mode: { const: 'fixed' },
          rank: { type: 'integer', enum: [1, 2, 3] },
          when: { type: 'string', format: 'date' },
          site: { type: 'string', format: 'uri' },
          tags: { type: 'array', items: { type: 'string', maxLength: 8 }, minItems: 1, maxItems: 4 },
          owner: obj({ name: { type: 'string' }, share: { type: 'number', minimum: 0, maximum: 100 } }, ['name']),
          either: { anyOf: [{ type: 'string' }, { type: 'integer' }] },
          chosen: { type: 'string', enum: ['x', 'y'], 'x-reference-choice': 'the reference accepts only x|y' },
        },
        ['code', 'owner'],
      ),
    },
  },
];

export const byId = (operationId: string) => corpus.find((op) => op.operationId === operationId)!;
