/** A small SpecView for the engine's tests, independent of spec/openapi.yaml. */
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { OperationInfo, ResponseInfo, SpecView } from '../../../src/engine/checks/types.ts';

const customer = {
  type: 'object',
  required: ['id', 'object', 'merchantId'],
  properties: {
    id: { type: 'string', pattern: '^cus_[a-zA-Z0-9]+$' },
    object: { const: 'customer' },
    merchantId: { type: 'string' },
  },
};
const list = {
  type: 'object',
  required: ['object', 'data', 'pagination'],
  properties: { object: { const: 'list' }, data: { type: 'array' }, pagination: { type: 'object' } },
};
const error = {
  type: 'object',
  required: ['message'],
  properties: {
    message: { type: 'string' },
    error: { type: 'string' },
    code: { type: 'string', pattern: '^[A-Z][A-Z0-9]*(_[A-Z0-9]+)*$' },
    details: { type: 'object' },
  },
};
const validationError = {
  type: 'object',
  required: ['message', 'errors'],
  properties: {
    error: { type: 'string', default: 'validation_error' },
    message: { type: 'string' },
    errors: {
      type: 'array',
      items: {
        type: 'object',
        required: ['field', 'message'],
        properties: { field: { type: 'string' }, message: { type: 'string' }, code: { type: 'string' } },
      },
    },
  },
};
/** A schema stating only a resource's object name (what the checks compare a body's `object` with). */
const named = (object: string) => ({ type: 'object', properties: { object: { const: object } } });
/** The component schemas the checks read by name: the error bodies, and the object names of resources. */
const components: Record<string, object> = {
  Error: error,
  ValidationError: validationError,
  Customer: customer,
  ListEnvelope: list,
  Product: named('product'),
  Subscription: named('subscription'),
  Alert: named('alert'),
  WebhooksConfiguration: named('webhooks'),
  AutoTopupConfig: named('autoTopupConfig'),
  ScheduleInterval: named('schedule_interval'),
  Payment: named('payment'),
  InvoiceRefund: named('invoice_refund'),
  Merchant: named('merchant'),
};

export const fakeOperations: Record<string, OperationInfo> = {
  getCustomer: {
    operationId: 'getCustomer',
    method: 'GET',
    pathTemplate: '/v0/customers/{id}',
    responses: { '200': { schema: customer }, '404': { schema: error }, default: { schema: error } },
  },
  listAlerts: {
    operationId: 'listAlerts',
    method: 'GET',
    pathTemplate: '/v0/alerts',
    responses: { '200': { schema: list }, default: { schema: error } },
  },
  listCustomers: {
    operationId: 'listCustomers',
    method: 'GET',
    pathTemplate: '/v0/customers',
    rateLimit: { limit: 60, windowSeconds: 6, bucket: 'merchant' },
    responses: { '2XX': {}, default: { schema: error } },
  },
  createProduct: {
    operationId: 'createProduct',
    method: 'POST',
    pathTemplate: '/v0/products',
    responses: {
      '2XX': { schema: { type: 'object', properties: { object: { const: 'product' } } } },
      default: { schema: error },
    },
  },
  getPayment: {
    operationId: 'getPayment',
    method: 'GET',
    pathTemplate: '/v0/payments/{id}',
    responses: { '200': { schema: { type: 'object' } }, default: { schema: error } },
  },
  createCustomer: {
    operationId: 'createCustomer',
    method: 'POST',
    pathTemplate: '/v0/customers',
    extension: true,
    responses: { '201': { schema: customer } },
  },
};

function matchTemplate(template: string, path: string): boolean {
  const re = new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`);
  return re.test(path);
}

export function fakeSpec(ops: Record<string, OperationInfo> = fakeOperations): SpecView {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  const responseFor = (id: string, status: number): ResponseInfo | undefined => {
    const r = ops[id]?.responses ?? {};
    const range = `${String(status)[0]}XX`;
    for (const key of [String(status), range, 'default']) if (r[key]) return { ...r[key], key };
    return undefined;
  };
  return {
    // The fake knows no documented resource: the judges of the stream find nothing to judge.
    resources: { all: [], byObject: () => undefined, forOperation: () => undefined },
    operations: new Map(Object.entries(ops)),
    findOperation: (method, path) =>
      Object.values(ops).find((o) => o.method === method.toUpperCase() && matchTemplate(o.pathTemplate, path)),
    responseFor,
    validateSchema(name, value) {
      const schema = components[name];
      if (!schema)
        return { valid: false, errors: [{ path: '', message: `unknown schema ${name}`, keyword: 'schema' }] };
      const v = ajv.compile(schema);
      const valid = v(value) as boolean;
      return {
        valid,
        errors: (v.errors ?? []).map((e) => ({
          path:
            e.keyword === 'required'
              ? `${e.instancePath}/${(e.params as { missingProperty: string }).missingProperty}`
              : e.instancePath,
          message: e.message ?? '',
          keyword: e.keyword,
        })),
      };
    },
    componentSchema: (name) => components[name],
    validateResponseBody(id, status, body) {
      const schema = responseFor(id, status)?.schema;
      if (!schema) return { valid: true, errors: [] };
      const v = ajv.compile(schema as object);
      const valid = v(body) as boolean;
      return {
        valid,
        errors: (v.errors ?? []).map((e) => ({ path: e.instancePath, message: e.message ?? '', keyword: e.keyword })),
      };
    },
  };
}
