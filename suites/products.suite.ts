/**
 * Products (Endpoints > Products): creating a product, and the fields it requires.
 * Every scenario works on resources of its own: all run concurrently.
 */
import { scenario } from '../src/engine/scenario/index.ts';
import { concurrent, requireAccepted, uniqueTag, type Json } from './support.ts';
import { loadRules, loadSpec } from '../src/contract/index.ts';
import { enumOf } from '../src/engine/predicates.ts';

/** What a product create must carry (PRODUCTS.CREATE.REQUIRED). */
const REQUIRED = enumOf(await loadRules(), 'PRODUCTS.CREATE.REQUIRED', 'required');
const spec = await loadSpec();
const PRODUCTS = spec.pathFor('createProduct');

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
    const res = await t.http.post(PRODUCTS, sent);
    // The product answered, and the values it holds, are the product-created check's (src/engine/checks/creates.ts).
    requireAccepted(t, res, 'POST /v0/products with name, description, merchantId and metadata');
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
    // The VALIDATION rules of these refusals are the registry's (checks/refusals.ts).
    for (const field of REQUIRED) {
      const { [field]: _, ...body } = full;
      const res = await t.http.post(PRODUCTS, body, { brokenOnPurpose: true });
      t.expectStatus('PRODUCTS.CREATE.REQUIRED', res, 400);
    }
    await t.http.post(PRODUCTS, { ...full, name: 42 }, { brokenOnPurpose: true });
  },
  concurrent,
);
