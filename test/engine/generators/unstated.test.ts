import { describe, expect, test } from 'vitest';
import {
  CONSTRAINT_KINDS,
  documentedConstraints,
  negativeRequests,
  type GenOperation,
} from '../../../src/engine/generators/index.ts';
import { byId } from './corpus.ts';

describe('no negatives for what the document does not state', () => {
  test('unstated keywords (minLength, array bounds, format, additionalProperties) are never broken', () => {
    const kinds = documentedConstraints(
      {
        type: 'object',
        additionalProperties: false,
        properties: {
          name: { type: 'string', minLength: 1 },
          tags: { type: 'array', minItems: 1, maxItems: 3, items: { type: 'string', format: 'email' } },
        },
      },
      'body',
    ).map((c) => `${c.pointer} ${c.kind}`);
    expect(kinds).toEqual(['/name type', '/tags type', '/tags/0 type']);
  });

  test('maxLength only where the schema states it', () => {
    const c = negativeRequests(byId('updateCustomer'), { id: 'cus_a' }).filter(
      (p) => p.constraint.kind === 'maxLength',
    );
    expect(c.map((p) => p.constraint.pointer)).toEqual(['/externalId']);
  });

  test('x-not-shown and x-reference-choice parts, and unions, yield nothing', () => {
    const pointers = negativeRequests(byId('synthetic'), { thingId: 'thg_a', n: 1 }).map((p) => p.constraint.pointer);
    expect(pointers.some((p) => p.startsWith('/chosen'))).toBe(false);
    expect(pointers.some((p) => p.startsWith('/either'))).toBe(false);
    const rules = negativeRequests(byId('updateSourceRule'), { ruleId: 'r1' }).map(
      (p) => `${p.constraint.pointer} ${p.constraint.kind}`,
    );
    expect(rules).toContain('/conditions type');
    expect(rules.some((r) => r.startsWith('/conditions/0'))).toBe(false);
    // Under another name: DOCUMENT_STATES lists the real operation's stated fields.
    const schedule = negativeRequests({ ...byId('createBillingSchedule'), operationId: 'unlisted' }, {}).map(
      (p) => p.constraint.pointer,
    );
    expect(schedule).not.toContain('/customPeriodWindows');
    const hidden: GenOperation = {
      operationId: 'updateSubscription',
      method: 'patch',
      path: '/v0/subscriptions/{id}',
      inputs: {
        path: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
        body: {
          type: 'object',
          properties: { versionPolicy: { type: 'string', enum: ['floating'] } },
          'x-not-shown': 'full body',
        },
      },
    };
    expect(negativeRequests(hidden, { id: 'sub_1' })).toEqual([]);
  });

  test('path parameters: no required case (another URL), no type case for strings', () => {
    const kinds = negativeRequests(byId('updateAlert'), { id: 'alr_1' }).map(
      (p) => `${p.constraint.location} ${p.constraint.kind}`,
    );
    expect(kinds.filter((k) => k.startsWith('path'))).toEqual([]);
    const synthetic = negativeRequests(byId('synthetic'), { thingId: 'thg_a', n: 1 })
      .filter((p) => p.constraint.location === 'path')
      .map((p) => `${p.constraint.pointer} ${p.constraint.kind}`);
    expect(synthetic).toEqual(['/thingId pattern', '/n type', '/n minimum']);
  });

  test('query strings: a string parameter cannot have a wrong type', () => {
    const kinds = negativeRequests(byId('updateWebhooks'), {}).map(
      (p) => `${p.constraint.location} ${p.constraint.pointer} ${p.constraint.kind}`,
    );
    expect(kinds).toEqual(['body /enabled required', 'body /enabled type']);
  });

  test('extension operations get no negatives at all', () => {
    expect(negativeRequests({ ...byId('createProduct'), extension: true }, {})).toEqual([]);
  });

  test('only the documented kinds exist', () => {
    expect([...CONSTRAINT_KINDS].sort()).toEqual([
      'enum',
      'exclusiveMaximum',
      'exclusiveMinimum',
      'maxLength',
      'maximum',
      'minimum',
      'pattern',
      'required',
      'type',
    ]);
  });
});
