/**
 * Products (Endpoints > Products): creating a product, and the fields it requires.
 * Every scenario works on resources of its own: all run concurrently.
 */
import { scenario } from '../src/engine/scenario.ts';
import { concurrent, isDateTime, requireAccepted, uniqueTag, same, type Json } from './support.ts';

scenario(
  ['PRODUCTS.CREATE.OBJECT', 'VALIDATION.VALID_REQUEST.NOT_400'],
  'POST /v0/products answers the product holding the values sent',
  async (t) => {
    const { merchantId } = await t.fixture((f) => f.merchant());
    const sent = {
      name: `Conform product ${uniqueTag()}`,
      description: 'Shown to the customer',
      merchantId,
      metadata: { conform: 'products-suite', tier: 'gold' },
    };
    const res = await t.http.post('/v0/products', sent);
    const p = requireAccepted(t, res, 'POST /v0/products with name, description, merchantId and metadata');
    t.expectRule(
      'PRODUCTS.CREATE.OBJECT',
      typeof p.id === 'string' && p.object === 'product',
      `a product with an id (got object ${JSON.stringify(p.object)}, id ${JSON.stringify(p.id)})`,
      res,
    );
    const differ = (['name', 'description', 'merchantId', 'metadata'] as const).filter((k) => !same(p[k], sent[k]));
    t.expectRule(
      'PRODUCTS.CREATE.OBJECT',
      differ.length === 0,
      `name, description, merchantId and metadata hold the values sent ` +
        `(differ: ${differ.map((k) => `${k}=${JSON.stringify(p[k])}`).join(', ')})`,
      res,
    );
    t.expectRule(
      'PRODUCTS.CREATE.OBJECT',
      isDateTime(p.createdAt) && isDateTime(p.updatedAt),
      'createdAt and updatedAt are date-times',
      res,
    );
  },
  concurrent,
);

scenario(
  ['PRODUCTS.CREATE.REQUIRED', 'VALIDATION.REQUIRED.400', 'VALIDATION.TYPE.400'],
  'POST /v0/products without name, description or merchantId gets 400',
  async (t) => {
    const { merchantId } = await t.fixture((f) => f.merchant());
    const full: Json = {
      name: `Conform product ${uniqueTag()}`,
      description: 'never created',
      merchantId,
      metadata: {},
    };
    for (const field of ['name', 'description', 'merchantId']) {
      const { [field]: _, ...body } = full;
      const res = await t.http.post('/v0/products', body);
      t.expectStatus(['VALIDATION.REQUIRED.400', 'PRODUCTS.CREATE.REQUIRED'], res, 400);
    }
    const wrongType = await t.http.post('/v0/products', { ...full, name: 42 });
    t.expectStatus('VALIDATION.TYPE.400', wrongType, 400);
  },
  concurrent,
);
