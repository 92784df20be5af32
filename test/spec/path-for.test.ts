import { describe, expect, test } from 'vitest';
import { buildSpec, fillTemplate, loadSpec, parseDocument } from '../../src/contract/index.ts';

describe('Spec.pathFor', () => {
  test('an operation without path parameters is its template', async () => {
    const spec = await loadSpec();
    expect(spec.pathFor('listCustomers')).toBe('/v0/customers');
    expect(spec.pathFor('listCustomers', {})).toBe('/v0/customers');
    expect(spec.pathFor('createInvoice')).toBe('/v2/invoices');
  });

  test('fills each parameter, encoded with encodeURIComponent', async () => {
    const spec = await loadSpec();
    expect(spec.pathFor('getCustomer', { id: 'cus_123' })).toBe('/v0/customers/cus_123');
    expect(spec.pathFor('updateSourceRule', { ruleId: 'srule_1' })).toBe('/v0/sourceRules/srule_1');
    expect(spec.pathFor('createInvoiceRefund', { id: 'inv_1' })).toBe('/v2/invoices/inv_1/refunds');
    expect(spec.pathFor('archivePlanVersion', { id: 'plan_1', versionNumber: 3 })).toBe(
      '/v0/plans/plan_1/versions/3/archive',
    );
    expect(spec.pathFor('getCustomer', { id: 'a/b c?d#é' })).toBe(`/v0/customers/${encodeURIComponent('a/b c?d#é')}`);
    expect(spec.pathFor('getCustomer', { id: 'a/b' })).toBe('/v0/customers/a%2Fb');
  });

  test('what it builds is matched back to the same operation and parameters', async () => {
    const spec = await loadSpec();
    for (const op of spec.operations.values()) {
      const names = op.parameters.filter((p) => p.in === 'path').map((p) => p.name);
      const params = Object.fromEntries(names.map((n, i) => [n, `v${i}_x y`]));
      const path = spec.pathFor(op.operationId, params);
      const match = spec.matchPath(op.method, path);
      expect(match?.operation.operationId, `${op.operationId} -> ${path}`).toBe(op.operationId);
      expect(match?.params).toEqual(params);
    }
  });

  test('an unknown operation throws, naming it', async () => {
    const spec = await loadSpec();
    expect(() => spec.pathFor('getCustomr', { id: 'cus_1' })).toThrow('pathFor: unknown operation getCustomr');
  });

  test('a missing parameter throws, naming the operation and the parameter', async () => {
    const spec = await loadSpec();
    expect(() => spec.pathFor('getCustomer')).toThrow(
      'pathFor(getCustomer): missing path parameter(s) id for /v0/customers/{id}',
    );
    expect(() => spec.pathFor('getCustomer', { id: undefined as unknown as string })).toThrow(/missing path parameter/);
    expect(() => spec.pathFor('archivePlanVersion', { id: 'plan_1' })).toThrow(
      'pathFor(archivePlanVersion): missing path parameter(s) versionNumber',
    );
  });

  test('a parameter the template lacks throws, naming the operation and the parameter', async () => {
    const spec = await loadSpec();
    expect(() => spec.pathFor('listCustomers', { id: 'cus_1' })).toThrow(
      'pathFor(listCustomers): /v0/customers has no path parameter(s) id',
    );
    expect(() => spec.pathFor('updateSourceRule', { id: 'srule_1' })).toThrow(
      /pathFor\(updateSourceRule\): missing path parameter\(s\) ruleId/,
    );
    expect(() => spec.pathFor('getCustomer', { id: 'cus_1', limit: 10 })).toThrow(
      'pathFor(getCustomer): /v0/customers/{id} has no path parameter(s) limit',
    );
  });

  test('works on any built document, and fillTemplate alone', () => {
    const spec = buildSpec(
      parseDocument(`
openapi: 3.1.0
info: { title: t, version: '1' }
paths:
  /a/{x}/b/{y}:
    get:
      operationId: getAB
      parameters:
        - { name: x, in: path, required: true, schema: { type: string } }
        - { name: y, in: path, required: true, schema: { type: string } }
      responses: { '200': { description: ok } }
`),
    );
    expect(spec.pathFor('getAB', { y: 2, x: 'é' })).toBe('/a/%C3%A9/b/2');
    expect(fillTemplate('/z/{id}', { id: 'a b' })).toBe('/z/a%20b');
    expect(() => fillTemplate('/z/{id}', {})).toThrow('/z/{id}: missing path parameter(s) id for /z/{id}');
  });
});
