/**
 * The values a schema of the document states, read by reference (src/contract/schema-values.ts),
 * and the named reads of src/engine/predicates.ts: the meaning each gives a value of the
 * document (pinned, read-only...) is pinned here, so that a document reordering or renaming
 * them fails a test rather than silently changing what the engine sends.
 */
import { describe, expect, test } from 'vitest';
import {
  buildSpec,
  idPrefix,
  loadSpec,
  parseDocument,
  schemaAt,
  schemaBound,
  schemaConst,
  schemaDefault,
  schemaEnum,
} from '../../src/contract/index.ts';
import {
  apiKeyScopes,
  invoiceStatuses,
  onlyValue,
  paymentTerms,
  priceModels,
  subscriptionStatuses,
  unitBases,
  versionPolicies,
} from '../../src/engine/predicates.ts';

describe('schema values', () => {
  test('an enum of a component, of a property (through allOf), of a request parameter and body field', async () => {
    const spec = await loadSpec();
    expect(schemaEnum(spec, 'VersionPolicy')).toEqual(['pinned', 'floating']);
    expect(schemaEnum(spec, 'ApiKey.scope')).toEqual(['full', 'read_only']);
    expect(schemaEnum(spec, 'ReferenceSubscription.status')).toEqual(['active', 'cancelled', 'ended']);
    // ReferenceSubscription's versionPolicy is `{}` in its second member, VersionPolicy in the first.
    expect(schemaEnum(spec, 'ReferenceSubscription.versionPolicy')).toEqual(['pinned', 'floating']);
    expect(schemaEnum(spec, 'updateAlert:query.resource')).toEqual(['wallet']);
    expect(schemaEnum(spec, 'createPrice:body.model', 2)).toEqual(['standard', 'volume']);
  });

  test('a constant, a default, a bound and an id prefix', async () => {
    const spec = await loadSpec();
    expect(schemaConst(spec, 'Item.object')).toBe('item');
    expect(schemaDefault(spec, 'createApiKey:body.scope')).toBe('full');
    expect(schemaDefault(spec, 'listCustomers:query.limit')).toBe(10);
    expect(schemaBound(spec, 'listCustomers:query.limit', 'maximum')).toBe(100);
    expect(schemaBound(spec, 'updateCustomer:body.externalId', 'maxLength')).toBe(255);
    expect(schemaBound(spec, 'VersionNumber', 'maximum')).toBe(2147483647);
    expect(idPrefix(spec, 'CustomerId')).toBe('cus_');
    expect(idPrefix(spec, 'CreditNoteId')).toBe('crn_');
    expect(idPrefix(spec, 'Wallet.id')).toBe('wal_');
    expect(schemaAt(spec, 'ListEnvelope.data').type).toBe('array');
  });

  test('an unknown schema, property, operation or location throws, naming the reference', async () => {
    const spec = await loadSpec();
    expect(() => schemaEnum(spec, 'VersionPolicies')).toThrow(
      'VersionPolicies: no schema VersionPolicies in components/schemas',
    );
    expect(() => schemaEnum(spec, 'ApiKey.scopes')).toThrow('ApiKey.scopes: ApiKey has no property scopes');
    expect(() => schemaEnum(spec, 'ApiKey.scope.x')).toThrow('ApiKey.scope.x: ApiKey.scope has no property x');
    expect(() => schemaEnum(spec, 'updateAlerts:query.resource')).toThrow(
      'updateAlerts:query.resource: unknown operation updateAlerts',
    );
    expect(() => schemaEnum(spec, 'updateAlert:header.resource')).toThrow(
      'updateAlert:header.resource: header is not path, query or body',
    );
    expect(() => schemaEnum(spec, 'listCustomers:body.x')).toThrow('listCustomers:body.x: listCustomers takes no body');
    expect(() => schemaEnum(spec, 'updateAlert:query.resourceId')).toThrow(
      'updateAlert:query.resourceId: updateAlert:query has no property resourceId',
    );
    // A view of the spec that gives component schemas only (a check's SpecView) names no request.
    expect(() => schemaEnum({ componentSchema: spec.componentSchema }, 'updateAlert:query.resource')).toThrow(
      'updateAlert:query.resource: this view of the spec gives no request schemas',
    );
  });

  test('a schema without the value asked for throws, naming the reference and what it lacks', async () => {
    const spec = await loadSpec();
    expect(() => schemaEnum(spec, 'Currency')).toThrow('Currency: states no enum of strings');
    expect(() => schemaEnum(spec, 'VersionPolicy', 3)).toThrow(
      'VersionPolicy: enum [pinned, floating] has 2 values, 3 expected',
    );
    expect(() => schemaConst(spec, 'Item.id')).toThrow('Item.id: states no string const');
    expect(() => schemaDefault(spec, 'VersionPolicy')).toThrow('VersionPolicy: states no default');
    expect(() => schemaBound(spec, 'listCustomers:query.offset', 'maximum')).toThrow(
      'listCustomers:query.offset: states no maximum',
    );
    expect(() => idPrefix(spec, 'Currency')).toThrow(
      'Currency: states no id pattern starting with a literal prefix (got ^[A-Z]{3}$)',
    );
  });
});

describe('the values the engine names, read from the document by meaning', () => {
  test('each names the value the document means', async () => {
    const spec = await loadSpec();
    expect(versionPolicies(spec)).toEqual({ pinned: 'pinned', floating: 'floating' });
    expect(apiKeyScopes(spec)).toEqual({ full: 'full', readOnly: 'read_only' });
    expect(paymentTerms(spec)).toEqual({ inArrears: 'in_arrears', inAdvance: 'in_advance' });
    expect(unitBases(spec)).toEqual({ amount: 'amount', proportion: 'proportion' });
    expect(priceModels(spec)).toEqual({ standard: 'standard', volume: 'volume', legacy: ['dynamic', 'percentage'] });
    expect(subscriptionStatuses(spec)).toEqual({ active: 'active', cancelled: 'cancelled', ended: 'ended' });
    expect(invoiceStatuses(spec)).toEqual({ draft: 'draft', open: 'open', paid: 'paid', void: 'void' });
    expect(onlyValue(spec, 'AlertType')).toBe('wallet_low_balance');
    expect(onlyValue(spec, 'updateAlert:query.resource')).toBe('wallet');
    expect(onlyValue(spec, 'createExternalReference:body.entityType')).toBe('item');
  });

  test('they follow the document: another order or another name is read as written; a count that no longer fits throws', () => {
    const doc = (policies: string, scope: string) =>
      buildSpec(
        parseDocument(`
openapi: 3.1.0
info: { title: t, version: '1' }
paths:
  /keys:
    post:
      operationId: createApiKey
      requestBody:
        content:
          application/json:
            schema:
              type: object
              properties:
                scope: ${scope}
      responses: { '200': { description: ok } }
components:
  schemas:
    VersionPolicy: { type: string, enum: ${policies} }
`),
      );
    const renamed = doc('[fixed, following]', '{ type: string, enum: [admin, viewer], default: admin }');
    expect(versionPolicies(renamed)).toEqual({ pinned: 'fixed', floating: 'following' });
    expect(apiKeyScopes(renamed)).toEqual({ full: 'admin', readOnly: 'viewer' });
    // The scopes are told apart by the default, not by their order.
    expect(apiKeyScopes(doc('[a, b]', '{ type: string, enum: [viewer, admin], default: admin }'))).toEqual({
      full: 'admin',
      readOnly: 'viewer',
    });
    expect(() => versionPolicies(doc('[a, b, c]', '{ type: string }'))).toThrow(
      'VersionPolicy: enum [a, b, c] has 3 values, 2 expected',
    );
    expect(() => apiKeyScopes(doc('[a, b]', '{ type: string, enum: [x, y] }'))).toThrow(
      'createApiKey:body.scope: states no default',
    );
    expect(() => apiKeyScopes(doc('[a, b]', '{ type: string, enum: [x, y], default: z }'))).toThrow(
      'createApiKey:body.scope: default "z" is none of [x, y]',
    );
  });
});
