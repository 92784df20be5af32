import { describe, expect, test } from 'vitest';
import { stringify } from 'yaml';
import { lintTexts, projectRules, rulesChecks, type LintResult } from '../../src/contract/lint/run.ts';
import { baseOpenApi, baseRules } from '../fixtures/lint/base.ts';

type Json = Record<string, any>;
interface Case {
  name: string;
  code: string;
  severity?: 'error' | 'warn';
  message?: RegExp;
  spec?: (spec: Json) => void;
  rules?: (rules: Json) => void;
  rulesText?: string;
}

async function lintCopy(c: Partial<Case> = {}): Promise<LintResult> {
  const spec = baseOpenApi();
  const rules = baseRules();
  c.spec?.(spec);
  c.rules?.(rules);
  return lintTexts({
    specText: stringify(spec),
    specSource: 'fixture-openapi.yaml',
    rulesText: c.rulesText ?? stringify(rules),
    rulesSource: 'fixture-rules.yaml',
  });
}

const op = (spec: Json, path: string, method: string) => spec.paths[path][method];
const schema = (spec: Json, name: string) => spec.components.schemas[name];

const cases: Case[] = [
  {
    name: 'a documented operation is missing',
    code: 'bm-documented-operations',
    message: /listAlerts/,
    spec: (s) => delete s.paths['/v0/alerts'].get,
  },
  {
    name: 'a documented operation sits on another path',
    code: 'bm-documented-operations',
    message: /getPrice must be GET \/v0\/prices\/\{id\}/,
    spec: (s) => {
      s.paths['/v0/price/{id}'] = s.paths['/v0/prices/{id}'];
      delete s.paths['/v0/prices/{id}'];
    },
  },
  {
    name: 'a resource schema without object',
    code: 'bm-resource-object',
    message: /Customer.*no `object`/,
    spec: (s) => delete schema(s, 'Customer').properties.object,
  },
  {
    name: 'a resource object with the wrong type name',
    code: 'bm-resource-object',
    message: /'item'/,
    spec: (s) => {
      schema(s, 'Item').properties.object = { type: 'string' };
    },
  },
  {
    name: 'a documented resource with no schema at all',
    code: 'bm-resource-object',
    message: /"Alert" has no schema/,
    spec: (s) => {
      delete s.components.schemas.Alert;
      s.components.schemas.AlertList.properties.data.items = { type: 'object' };
    },
  },
  {
    name: 'an extension resource without object',
    code: 'bm-extension-object',
    severity: 'warn',
    message: /ApiKey/,
    spec: (s) => {
      s.components.schemas.ApiKey = {
        type: 'object',
        properties: { id: { type: 'string' }, createdAt: { type: 'string', format: 'date-time' } },
      };
    },
  },
  {
    name: 'Item.catalogId without its pattern',
    code: 'bm-id-patterns',
    message: /Item\.catalogId.*\^prod_/,
    spec: (s) => delete schema(s, 'Item').properties.catalogId.pattern,
  },
  {
    name: 'Price.pricingUnitId with another pattern',
    code: 'bm-id-patterns',
    message: /Price\.pricingUnitId.*\^pu_/,
    spec: (s) => {
      schema(s, 'Price').properties.pricingUnitId.pattern = '^price_[a-zA-Z0-9]+$';
    },
  },
  {
    name: 'a documented id field is missing',
    code: 'bm-id-patterns',
    message: /Customer.*consumerId/,
    spec: (s) => delete schema(s, 'Customer').properties.consumerId,
  },
  {
    name: 'the payment id without the pay_ prefix',
    code: 'bm-id-patterns',
    message: /Payment\.id.*\^pay_/,
    spec: (s) => {
      schema(s, 'Payment').properties.id.pattern = '^[a-z]+$';
    },
  },
  {
    name: 'a path id without its pattern',
    code: 'bm-id-patterns',
    message: /getPrice: path parameter id/,
    spec: (s) => {
      op(s, '/v0/prices/{id}', 'get').parameters[0].schema = { type: 'string' };
    },
  },
  {
    name: 'a body id without its pattern',
    code: 'bm-id-patterns',
    message: /updateItem: body field catalogId/,
    spec: (s) => {
      op(s, '/v0/items/{id}', 'patch').requestBody.content['application/json'].schema.properties.catalogId = {
        type: 'string',
      };
    },
  },
  {
    name: 'an operation opting out of security',
    code: 'bm-bearer-security',
    message: /getCustomer/,
    spec: (s) => {
      op(s, '/v0/customers/{id}', 'get').security = [];
    },
  },
  {
    name: 'no bearer scheme',
    code: 'bm-bearer-security',
    message: /no HTTP bearer scheme/,
    spec: (s) => {
      s.components.securitySchemes.bearer = { type: 'apiKey', in: 'header', name: 'x-key' };
    },
  },
  {
    name: 'an operation without 403',
    code: 'bm-auth-responses',
    message: /updateItem does not declare 403/,
    spec: (s) => delete op(s, '/v0/items/{id}', 'patch').responses['403'],
  },
  {
    name: 'an operation without 401 and 403',
    code: 'bm-auth-responses',
    message: /createItem does not declare 401 and 403/,
    spec: (s) => {
      const r = op(s, '/v0/items', 'post').responses;
      delete r['401'];
      delete r['403'];
    },
  },
  {
    name: 'a rate-limited operation without 429',
    code: 'bm-rate-limit-headers',
    message: /listCustomers does not declare a 429/,
    spec: (s) => delete op(s, '/v0/customers', 'get').responses['429'],
  },
  {
    name: 'a 429 without retry-after',
    code: 'bm-rate-limit-headers',
    message: /getCostsReport: the 429 response does not declare retry-after/,
    spec: (s) => delete op(s, '/v0/costs/report', 'get').responses['429'].headers['retry-after'],
  },
  {
    name: 'a success response without x-ratelimit-reset',
    code: 'bm-rate-limit-headers',
    message: /createPortalSession: the 200 response does not declare x-ratelimit-reset/,
    spec: (s) => delete op(s, '/v0/subscriptions/{id}/portal', 'post').responses['200'].headers['x-ratelimit-reset'],
  },
  {
    name: 'rate headers on a 401',
    code: 'bm-rate-limit-headers',
    message: /listCrmAccounts: the 401 response declares x-ratelimit-limit/,
    spec: (s) => {
      op(s, '/v0/integrations/{crmProvider}/accounts', 'get').responses['401'].headers = {
        'x-ratelimit-limit': { schema: { type: 'integer' } },
      };
    },
  },
  {
    name: 'a rate-limited operation is missing',
    code: 'bm-rate-limit-headers',
    message: /createInvoiceLineItems is missing/,
    spec: (s) => delete s.paths['/v2/invoices/lineItems'],
  },
  {
    name: 'an authenticated error response without rate headers',
    code: 'bm-rate-limit-headers-errors',
    severity: 'warn',
    message: /createReconciliation: the 403 response/,
    spec: (s) => delete op(s, '/v0/subscriptions/{id}/reconciliations', 'post').responses['403'].headers,
  },
  {
    name: 'a reference extension without its tag',
    code: 'bm-extension-tag',
    message: /createItem/,
    spec: (s) => {
      op(s, '/v0/items', 'post').tags = ['Items'];
      s.tags.push({ name: 'Items', description: 'x' });
    },
  },
  {
    name: 'a documented operation marked as an extension',
    code: 'bm-documented-operations',
    message: /must not be marked x-extension/,
    spec: (s) => {
      op(s, '/v0/merchants', 'post')['x-extension'] = 'reference';
    },
  },
  {
    name: 'a body that is not JSON',
    code: 'bm-json-bodies',
    message: /getMerchant: the 200 response body is not application\/json/,
    spec: (s) => {
      op(s, '/v0/merchants/{id}', 'get').responses['200'].content = { 'text/plain': { schema: { type: 'string' } } };
    },
  },
  {
    name: 'an error response that is not Error',
    code: 'bm-error-bodies',
    message: /deleteFee: the 403 body must be Error/,
    spec: (s) => {
      op(s, '/v0/fees/{id}', 'delete').responses['403'].content['application/json'].schema = { type: 'object' };
    },
  },
  {
    name: 'a ValidationError outside 400',
    code: 'bm-error-bodies',
    message: /deleteCustomer: the 401 body must be Error/,
    spec: (s) => {
      op(s, '/v0/customers/{id}', 'delete').responses['401'].content['application/json'].schema = {
        $ref: '#/components/schemas/ValidationError',
      };
    },
  },
  {
    name: 'an error response without a body',
    code: 'bm-error-bodies',
    message: /getPayment: the 401 response has no JSON body/,
    spec: (s) => delete op(s, '/v0/payments/{id}', 'get').responses['401'].content,
  },
  {
    name: 'a list envelope with a string total',
    code: 'bm-list-envelope',
    message: /AlertList: pagination\.total/,
    spec: (s) => {
      schema(s, 'Pagination').properties.total = { type: 'string' };
    },
  },
  {
    name: 'a list envelope without data array',
    code: 'bm-list-envelope',
    message: /AlertList: data must be an array/,
    spec: (s) => {
      schema(s, 'AlertList').properties.data = { type: 'object' };
    },
  },
  {
    name: 'a documented resource without its x-resource annotation',
    code: 'bm-resource-annotations',
    message: /Customer \("Customer"\) has no x-resource annotation; the document gives it: read getCustomer/,
    spec: (s) => delete schema(s, 'Customer')['x-resource'],
  },
  {
    name: 'an annotation leaving out an operation the document gives the resource',
    code: 'bm-resource-annotations',
    message: /Alert x-resource.list lacks listAlerts/,
    spec: (s) => delete schema(s, 'Alert')['x-resource'].list,
  },
  {
    name: 'an annotation giving an operation the wrong role',
    code: 'bm-resource-annotations',
    message: /x-resource.read: updateItem is PATCH, a read is GET/,
    spec: (s) => {
      schema(s, 'Item')['x-resource'] = { read: ['updateItem'] };
    },
  },
  {
    name: 'an annotation naming a field the schema does not have',
    code: 'bm-resource-annotations',
    message: /Product x-resource owner names ownerId/,
    spec: (s) => {
      schema(s, 'Product')['x-resource'].owner = 'ownerId';
    },
  },
  {
    name: 'a migration answer whose versions may be 0 (the document: numbered versions start at 1)',
    code: 'bm-stated-bounds',
    message:
      /VersionMigration\.migration\.toVersionNumber must carry minimum 1 \(has none\); the document states: Plans have numbered versions/,
    spec: (s) => delete schema(s, 'VersionMigration').properties.migration.properties.toVersionNumber.minimum,
  },
  {
    name: 'the alerts limit without its upper bound',
    code: 'bm-stated-bounds',
    message: /listAlerts query limit must carry maximum 100/,
    spec: (s) => {
      for (const p of op(s, '/v0/alerts', 'get').parameters) if (p.name === 'limit') delete p.schema.maximum;
    },
  },
  {
    name: 'price properties that no longer depend on the model',
    code: 'bm-dependent-shapes',
    message: /Price\.properties depends on model: for model standard the schema must require unitPrice/,
    spec: (s) => {
      schema(s, 'Price').allOf = schema(s, 'Price').allOf.filter(
        (b: any) => b.if.properties.model.const !== 'standard',
      );
    },
  },
  {
    name: 'a timestamp that is not date-time',
    code: 'bm-timestamps',
    message: /Customer\.createdAt/,
    spec: (s) => delete schema(s, 'Customer').properties.createdAt.format,
  },
  { name: 'rules.yaml that is not YAML', code: 'rules-parse', rulesText: 'rules: [\n  - id: X\n' },
  {
    name: 'a rule with an unknown kind',
    code: 'rules-schema',
    message: /kind/,
    rules: (r) => {
      r.rules[6].kind = 'maybe';
    },
  },
  {
    name: 'a rule with an unknown field',
    code: 'rules-schema',
    message: /additional|colour/,
    rules: (r) => {
      r.rules[6].colour = 'red';
    },
  },
  {
    name: 'a malformed rule id',
    code: 'rules-id-format',
    message: /rate\.x/,
    rules: (r) => {
      r.rules[6].id = 'rate.x';
    },
  },
  {
    name: 'a rule id outside its family',
    code: 'rules-id-format',
    message: /does not start with its family CUSTOMERS/,
    rules: (r) => {
      r.rules[6].id = 'ITEMS.TAX_ID.NULL_CLEARS';
    },
  },
  {
    name: 'a duplicate rule id',
    code: 'rules-id-unique',
    message: /CUSTOMERS\.TAX_ID\.NULL_CLEARS/,
    rules: (r) => {
      r.rules.push({ ...r.rules[6] });
    },
  },
  {
    name: 'a rule without section',
    code: 'rules-section',
    message: /CUSTOMERS\.TAX_ID\.NULL_CLEARS/,
    rules: (r) => delete r.rules[6].section,
  },
  {
    name: 'a rule with an empty section',
    code: 'rules-section',
    rules: (r) => {
      r.rules[6].section = '  ';
    },
  },
  {
    name: 'a rule naming an unknown operation',
    code: 'rules-operation-exists',
    message: /patchCustomer/,
    rules: (r) => {
      r.rules[6].operations = ['patchCustomer'];
    },
  },
  {
    name: 'a restraint rule that does not say why',
    code: 'rules-tool-kind',
    message: /CONV\.OBJECT\.TYPE_NAME is of kind restraint/,
    rules: (r) => {
      r.rules[8].kind = 'restraint';
    },
  },
  {
    name: 'a client rule whose notes name no test',
    code: 'rules-tool-kind',
    message: /kind client/,
    rules: (r) => {
      r.rules[8].kind = 'client';
      r.rules[8].notes = 'a rule for clients';
    },
  },
  {
    name: 'a contract rule on a reference extension',
    code: 'rules-contract-extension',
    message: /ITEMS\.CREATE\.REFERENCE/,
    rules: (r) => {
      r.rules[7].kind = 'contract';
    },
  },
  {
    name: 'a rate limit rule with the wrong path',
    code: 'rules-rate-params',
    message: /must be GET \/v0\/customers/,
    rules: (r) => {
      r.rules[0].params.path = '/v0/customer';
    },
  },
  {
    name: 'a rate limit rule without a window',
    code: 'rules-rate-params',
    message: /windowSeconds/,
    rules: (r) => delete r.rules[1].params.windowSeconds,
  },
  {
    name: 'a rate-limited operation without its LIMIT rule',
    code: 'rules-rate-params',
    message: /getCostsReport/,
    rules: (r) => r.rules.splice(4, 1),
  },
];

describe('lint fixtures', () => {
  test('the base fixture lints with 0 errors and 0 project warnings', async () => {
    const result = await lintCopy();
    expect(result.findings.filter((f) => f.severity === 'error')).toEqual([]);
    expect(result.findings.filter((f) => f.code.startsWith('bm-') || f.code.startsWith('rules-'))).toEqual([]);
  });

  test('every project lint rule and rules check has at least one broken fragment below', () => {
    const covered = new Set(cases.map((c) => c.code));
    for (const code of [...Object.keys(projectRules), ...Object.keys(rulesChecks)])
      expect(covered, code).toContain(code);
  });
});

describe.each(cases)('lint catches $name', (c) => {
  test(`${c.code} fires`, async () => {
    const result = await lintCopy(c);
    const hits = result.findings.filter((f) => f.code === c.code);
    expect(
      hits.length,
      JSON.stringify(
        result.findings.filter((f) => f.severity === 'error'),
        null,
        1,
      ),
    ).toBeGreaterThan(0);
    expect(hits[0].severity).toBe(c.severity ?? 'error');
    if (c.message) expect(hits.map((h) => h.message).join('\n')).toMatch(c.message);
    if ((c.severity ?? 'error') === 'error') expect(result.errors).toBeGreaterThan(0);
  });
});
