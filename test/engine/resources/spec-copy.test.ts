/**
 * A resource added to a copy of spec/openapi.yaml with its x-resource annotation is judged by
 * every resource property with no change to the code: a conformant stream of its exchanges
 * passes, and a fault on it fails the property it breaks.
 */
import { beforeAll, describe, expect, test } from 'vitest';
import { buildSpec, loadRules, readDocument, type RuleIndex, type Spec } from '../../../src/contract/index.ts';
import { Stream } from './stream.ts';

const json = (schema: unknown) => ({ content: { 'application/json': { schema } } });
const error = { $ref: '#/components/responses/NotFound' };

/** The document with a widget: created, read, updated, deleted and listed, owned by a merchant. */
async function withWidgets(): Promise<Spec> {
  const doc = await readDocument();
  doc.components.schemas.Widget = {
    type: 'object',
    required: ['object', 'id'],
    'x-resource': {
      owner: 'merchantId',
      create: ['createWidget'],
      read: ['getWidget'],
      update: ['updateWidget'],
      delete: ['deleteWidget'],
      list: [{ operation: 'listWidgets', scope: { merchantId: 'key' } }],
      serverSet: ['id', 'object', 'createdAt'],
      decimals: ['weight'],
      gone: true,
      relations: [
        { field: 'parts.*.widgetId', names: 'key' },
        { field: 'parts.*.kind', names: 'object' },
        { field: 'gadgetId', names: 'stable' },
        { field: 'orderId', names: 'body.orderId', on: ['createWidget'] },
      ],
    },
    properties: {
      object: { const: 'widget' },
      id: { type: 'string', pattern: '^wid_[a-zA-Z0-9]+$' },
      merchantId: { type: 'string' },
      name: { type: 'string' },
      weight: { type: 'string' },
      madeAt: { type: 'string', format: 'date-time' },
      createdAt: { type: 'string', format: 'date-time' },
      gadgetId: { type: 'string' },
      orderId: { type: 'string' },
      parts: { type: 'array', items: { type: 'object', properties: { widgetId: {}, kind: {} } } },
    },
  };
  const widget = { $ref: '#/components/schemas/Widget' };
  const body = {
    required: true,
    ...json({ type: 'object', properties: { name: {}, weight: {}, madeAt: {}, merchantId: {}, orderId: {} } }),
  };
  const id = [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }];
  const op = (operationId: string, extra: object) => ({ operationId, summary: operationId, tags: ['Items'], ...extra });
  doc.paths['/v0/widgets'] = {
    post: op('createWidget', { requestBody: body, responses: { '201': { description: 'made', ...json(widget) } } }),
    get: op('listWidgets', {
      parameters: [
        { name: 'limit', in: 'query', schema: { type: 'integer' } },
        { name: 'offset', in: 'query', schema: { type: 'integer' } },
      ],
      responses: {
        '200': {
          description: 'widgets',
          ...json({
            type: 'object',
            properties: { object: {}, data: { type: 'array', items: widget }, pagination: {} },
          }),
        },
      },
    }),
  };
  doc.paths['/v0/widgets/{id}'] = {
    parameters: id,
    get: op('getWidget', { responses: { '200': { description: 'one', ...json(widget) }, '404': error } }),
    patch: op('updateWidget', {
      requestBody: body,
      responses: { '200': { description: 'one', ...json(widget) }, '404': error },
    }),
    delete: op('deleteWidget', { responses: { '204': { description: 'gone' }, '404': error } }),
  };
  return buildSpec(doc);
}

let contract: { spec: Spec; rules: RuleIndex };
beforeAll(async () => {
  contract = { spec: await withWidgets(), rules: await loadRules() };
});

const widget = (over = {}) => ({
  object: 'widget',
  id: 'wid_1',
  merchantId: 'org_primary1',
  name: 'Gear',
  weight: '1.50',
  madeAt: '2030-01-01T00:00:00.000Z',
  createdAt: '2030-01-01T00:00:00.000Z',
  ...over,
});
const sent = { name: 'Gear', weight: '1.5', madeAt: '2030-01-01T00:00:00+00:00' };
const page = (data: unknown[], total: number) => ({
  object: 'list',
  data,
  pagination: { limit: 10, offset: 0, total },
});

describe('a resource added to a copy of the spec', () => {
  test('the spec reads its annotation: the operations acting on it and how', () => {
    const r = contract.spec.resources.byObject('widget');
    expect(r?.owner).toBe('merchantId');
    expect(contract.spec.resources.forOperation('deleteWidget')?.role).toBe('delete');
    expect(contract.spec.resources.forOperation('listWidgets')?.list?.scope).toEqual({ merchantId: { in: 'key' } });
  });

  test('a conformant stream of its exchanges is judged on every property and passes', () => {
    const s = new Stream(contract);
    s.send({ method: 'POST', path: '/v0/widgets', sent, status: 201, got: widget() });
    s.send({ method: 'GET', path: '/v0/widgets/wid_1', status: 200, got: widget({ madeAt: '2030-01-01T00:00:00Z' }) });
    s.send({
      method: 'PATCH',
      path: '/v0/widgets/wid_1',
      sent: { name: 'Cog' },
      status: 200,
      got: widget({ name: 'Cog' }),
    });
    s.send({
      method: 'GET',
      path: '/v0/widgets?limit=10&offset=0',
      status: 200,
      got: page([widget({ name: 'Cog' })], 1),
    });
    s.send({ method: 'DELETE', path: '/v0/widgets/wid_1', status: 204 });
    s.send({ method: 'GET', path: '/v0/widgets/wid_1', status: 404, got: { message: 'not found' } });
    s.send({ method: 'DELETE', path: '/v0/widgets/wid_1', status: 404, got: { message: 'not found' } });
    s.send({ method: 'GET', path: '/v0/widgets?limit=10&offset=0', status: 200, got: page([], 0) });
    s.finish();
    expect(s.errors).toEqual([]);
    expect(s.findings).toEqual([]);
    expect([...s.judged.keys()].sort()).toEqual([
      'CONV.CREATE.READABLE',
      'CONV.DELETE.GONE#leaves-lists',
      'CONV.DELETE.GONE#reads-404',
      'CONV.DELETE.GONE#second-delete',
      'CONV.LIST.TOTAL_REACHED',
      'CONV.LIST.WALK#finds-known',
      'CONV.LIST.WALK#no-repeats',
      'CONV.LIST.WALK#offset-honoured',
      'CONV.OWNER.KEY_MERCHANT#owner-field',
      'CONV.ROUND_TRIP.AS_SENT#answer',
      'CONV.ROUND_TRIP.AS_SENT#later-reads',
      'CONV.TIMESTAMPS.LIFECYCLE#created-fixed',
    ]);
  });

  test.each([
    ['a read changing a value sent', 'CONV.ROUND_TRIP.AS_SENT#later-reads', widget({ weight: '15' })],
    ['a read naming another owner', 'CONV.OWNER.KEY_MERCHANT#owner-field', widget({ merchantId: 'org_other1' })],
  ])('a fault on it fails: %s', (_what, rule, read) => {
    const s = new Stream(contract);
    s.send({ method: 'POST', path: '/v0/widgets', sent, status: 201, got: widget() });
    s.send({ method: 'GET', path: '/v0/widgets/wid_1', status: 200, got: read });
    expect(s.findings.map((f) => f.ruleIds[0])).toEqual([rule]);
  });

  test('a fault on it fails: a delete that leaves it readable, listed and deletable', () => {
    const s = new Stream(contract);
    s.send({ method: 'POST', path: '/v0/widgets', sent, status: 201, got: widget() });
    s.send({ method: 'DELETE', path: '/v0/widgets/wid_1', status: 204 });
    s.send({ method: 'GET', path: '/v0/widgets/wid_1', status: 200, got: widget() });
    s.send({ method: 'DELETE', path: '/v0/widgets/wid_1', status: 204 });
    s.send({ method: 'GET', path: '/v0/widgets?limit=10&offset=0', status: 200, got: page([widget()], 1) });
    s.send({ method: 'GET', path: '/v0/widgets?limit=10&offset=0', status: 200, got: page([widget()], 1) });
    expect(s.findings.map((f) => f.ruleIds[0])).toEqual([
      'CONV.DELETE.GONE#reads-404',
      'CONV.DELETE.GONE#second-delete',
      'CONV.DELETE.GONE#leaves-lists',
    ]);
  });

  test('its relations, declared in the copy alone, are judged: right ones pass, a fault on each fails', () => {
    const made = widget({ gadgetId: 'gad_1', orderId: 'ord_1', parts: [{ widgetId: 'wid_1', kind: 'widget' }] });
    const ok = new Stream(contract);
    ok.send({ method: 'POST', path: '/v0/widgets', sent: { ...sent, orderId: 'ord_1' }, status: 201, got: made });
    ok.send({ method: 'GET', path: '/v0/widgets/wid_1', status: 200, got: made });
    expect(ok.findings).toEqual([]);
    expect([...ok.judged.keys()].filter((k) => k.startsWith('CONV.RELATIONS')).sort()).toEqual([
      'CONV.RELATIONS.NAME_RIGHT#holder',
      'CONV.RELATIONS.NAME_RIGHT#request',
      'CONV.RELATIONS.NAME_RIGHT#stable',
    ]);
    const faults: [string, object, object][] = [
      ['a part naming another widget', { parts: [{ widgetId: 'wid_9', kind: 'widget' }] }, {}],
      ['a part naming another kind', { parts: [{ widgetId: 'wid_1', kind: 'gizmo' }] }, {}],
      ['a create naming another order than sent', {}, { orderId: 'ord_2' }],
      ['a gadget that changes between answers', {}, { gadgetId: 'gad_2', later: true }],
    ];
    for (const [what, read, created] of faults) {
      const s = new Stream(contract);
      const { later, ...onCreate } = created as { later?: boolean };
      s.send({
        method: 'POST',
        path: '/v0/widgets',
        sent: { ...sent, orderId: 'ord_1' },
        status: 201,
        got: { ...made, ...(later ? {} : onCreate) },
      });
      s.send({
        method: 'GET',
        path: '/v0/widgets/wid_1',
        status: 200,
        got: { ...made, ...read, ...(later ? onCreate : {}) },
      });
      expect(s.failed('CONV.RELATIONS.NAME_RIGHT').length, what).toBe(1);
      // A create answering another order than sent also holds not what was sent (the round trip's, on its answer).
      const others = s.findings.map((f) => f.ruleIds[0]).filter((r) => !r.startsWith('CONV.RELATIONS'));
      expect(others, what).toEqual(what.includes('order') ? ['CONV.ROUND_TRIP.AS_SENT#answer'] : []);
    }
  });

  test('a create whose id then reads 404 is the target contradicting itself: CONV.CREATE.READABLE fails; after a delete it holds', () => {
    const s = new Stream(contract);
    s.send({ method: 'POST', path: '/v0/widgets', sent, status: 201, got: widget() });
    s.send({ method: 'GET', path: '/v0/widgets/wid_1', status: 404, got: { message: 'not found' } });
    expect(s.failed('CONV.CREATE.READABLE')).toHaveLength(1);
    expect(s.failed('CONV.CREATE.READABLE')[0].message).toMatch(
      /was answered by POST \/v0\/widgets → 201 before this request/,
    );
    const d = new Stream(contract);
    d.send({ method: 'POST', path: '/v0/widgets', sent, status: 201, got: widget() });
    d.send({ method: 'DELETE', path: '/v0/widgets/wid_1', status: 204 });
    d.send({ method: 'GET', path: '/v0/widgets/wid_1', status: 404, got: { message: 'not found' } });
    expect(d.failed('CONV.CREATE.READABLE')).toEqual([]);
  });

  test('a create naming an operation that does not exist is refused when the spec loads', async () => {
    const doc = await readDocument();
    doc.components.schemas.Widget = { type: 'object', 'x-resource': { read: ['getNoSuchWidget'] } };
    expect(() => buildSpec(doc)).toThrow(/x-resource.read: no operation getNoSuchWidget/);
  });
});
