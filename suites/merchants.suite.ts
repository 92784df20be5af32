/**
 * Merchants (Endpoints > Merchants): creating a merchant organization and reading it back.
 * Every scenario works on resources of its own: all run concurrently.
 */
import { scenario } from '../src/engine/scenario/index.ts';
import { idPrefix, loadSpec, schemaConst } from '../src/contract/index.ts';
import { concurrent, bodyOf, is2xx, requireAccepted, requireSuccess, uniqueTag, type Json } from './support.ts';

const spec = await loadSpec();
/** A merchant's object name, as the Merchant schema states it. */
const MERCHANT = schemaConst(spec, 'Merchant.object');
const merchantPath = (id: string) => spec.pathFor('getMerchant', { id });

const ADDRESS_FIELDS = new Set(['line1', 'line2', 'city', 'state', 'country', 'zipCode']);

function addressProblems(a: unknown): string[] {
  if (a === undefined || a === null) return [];
  if (typeof a !== 'object' || Array.isArray(a)) return [`not an object: ${JSON.stringify(a)}`];
  // Only the documented fields are judged: extra properties are allowed (CONV.EXTRA_FIELDS.ALLOWED).
  return Object.entries(a as Json)
    .filter(([k, v]) => ADDRESS_FIELDS.has(k) && typeof v !== 'string')
    .map(([k, v]) => `${k}=${JSON.stringify(v)}`);
}

scenario(
  ['MERCHANTS.CREATE.OBJECT', 'MERCHANTS.GET.ROUND_TRIP', 'VALIDATION.VALID_REQUEST.NOT_400'],
  'POST /v0/merchants creates a merchant that GET /v0/merchants/{id} reads back',
  async (t) => {
    const k = uniqueTag();
    // Which fields are required is not shown: send every documented one.
    const sent = {
      name: `Conform merchant ${k}`,
      email: `merchant-${k}@conform.invalid`,
      description: 'created by the conform merchants suite',
      metadata: { conform: k },
      vatNumber: 'DE123456789',
      address: {
        line1: '1 Main Street',
        line2: 'Floor 2',
        city: 'Berlin',
        state: 'BE',
        country: 'DE',
        zipCode: '10115',
      },
      billingAddress: {
        line1: '2 Side Street',
        line2: 'Unit 5',
        city: 'Hamburg',
        state: 'HH',
        country: 'DE',
        zipCode: '20095',
      },
      phone: '+49 30 1234567',
    };
    const created = await t.http.post(spec.pathFor('createMerchant'), sent);
    const m = requireAccepted(t, created, 'POST /v0/merchants with every documented field');
    t.expectRule(
      'MERCHANTS.CREATE.OBJECT',
      m.object === MERCHANT && typeof m.id === 'string',
      `a merchant object with an id (got object ${JSON.stringify(m.object)}, id ${JSON.stringify(m.id)})`,
      created,
    );
    for (const field of ['address', 'billingAddress'] as const) {
      const bad = addressProblems(m[field]);
      t.expectRule(
        'MERCHANTS.CREATE.OBJECT',
        bad.length === 0,
        `${field} holds only string fields line1, line2, city, state, country, zipCode (bad: ${bad.join(', ')})`,
        created,
      );
    }
    // The read answering this merchant (read-by-id) with each field sent (round-trip) is the registry's.
    requireSuccess(t, await t.http.get(merchantPath(m.id)), 'GET /v0/merchants/{id} of the merchant created');
  },
  concurrent,
);

scenario(
  ['STATUS.404.UNKNOWN_RESOURCE'],
  'an unknown merchant gets 404',
  async (t) => {
    const res = await t.http.get(merchantPath(`${idPrefix(spec, 'OrganizationId')}conform0unknown0merchant`));
    t.expectStatus('STATUS.404.UNKNOWN_RESOURCE', res, 404);
  },
  concurrent,
);

scenario(
  ['MERCHANTS.CREATE.REFERENCE_REQUIRED'],
  'the reference requires no merchant field',
  async (t) => {
    if (t.target.fixtureStrategy !== 'reference')
      t.notJudged('a reference rule: judged only on a target offering the reference extensions', 'not-applicable');
    const res = await t.http.post(spec.pathFor('createMerchant'), {});
    t.expectRule(
      'MERCHANTS.CREATE.REFERENCE_REQUIRED',
      is2xx(res),
      `POST /v0/merchants with an empty body succeeds (got ${res.status ?? res.transportError})`,
      res,
    );
    const m = bodyOf(res);
    t.expectRule(
      'MERCHANTS.CREATE.REFERENCE_REQUIRED',
      m.object === MERCHANT && typeof m.id === 'string',
      'an empty body creates a merchant',
      res,
    );
    if (res.status !== 201) t.note(`POST /v0/merchants answered ${res.status}; the reference's choice is 201`);
  },
  concurrent,
);
