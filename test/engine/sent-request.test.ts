import { describe, expect, test } from 'vitest';
import { loadSpec } from '../../src/contract/index.ts';
import { readRequest } from '../../src/engine/checks/request.ts';
import { checkContextFor } from '../../src/engine/checks/index.ts';
import { loadRules } from '../../src/contract/rules.ts';
import { ex } from './helpers/exchange.ts';

const spec = await loadSpec();
const rules = await loadRules();

describe('readRequest: one reading of what an exchange sent', () => {
  test('the operation, its decoded path parameters and the query', () => {
    const r = readRequest(spec, ex('GET', '/v0/customers/cus%5F1?limit=5&expand=a&expand=b', 200, {}));
    expect(r.operation?.operationId).toBe('getCustomer');
    expect(r.params).toEqual({ id: 'cus_1' });
    expect(r.queryString).toBe('limit=5&expand=a&expand=b');
    expect(r.query.getAll('expand')).toEqual(['a', 'b']);
  });

  test('a JSON body sent as text is parsed; text that is not JSON is flagged; blank text is no body', () => {
    const sent = (requestBody: unknown) => readRequest(spec, { ...ex('POST', '/v0/customers', 201, {}), requestBody });
    expect(sent('{"name":"a"}')).toMatchObject({ body: { name: 'a' }, bodyNotJson: false });
    expect(sent({ name: 'a' })).toMatchObject({ body: { name: 'a' }, bodyNotJson: false });
    expect(sent('{name')).toMatchObject({ body: undefined, bodyNotJson: true });
    expect(sent('  ')).toMatchObject({ body: undefined, bodyNotJson: false });
  });

  test('a path no operation fits has no parameters; a percent sign that decodes to nothing stays as sent', () => {
    expect(readRequest(spec, ex('GET', '/v0/nowhere/x', 404, {}))).toMatchObject({ operation: undefined, params: {} });
    expect(readRequest(spec, ex('GET', '/v0/customers/%E0%A4%A', 404, {})).params).toEqual({ id: '%E0%A4%A' });
  });

  test('the check context carries the reading, and a broken request is read off it', () => {
    const notJson = { ...ex('POST', '/v0/billingSchedules', 400, {}), requestBody: '{orderId' };
    const ctx = checkContextFor({ spec, rules }, notJson);
    expect(ctx.request.bodyNotJson).toBe(true);
    expect(ctx.brokenRequest).toBe(true);
    const fine = ex('GET', '/v0/customers/cus_1', 200, {});
    expect(checkContextFor({ spec, rules }, fine).brokenRequest).toBe(false);
  });
});
