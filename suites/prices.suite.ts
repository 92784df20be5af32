/**
 * Prices (Endpoints > Prices and fees): reading prices of every model, and the models a
 * price may be created with. Every scenario works on resources of its own: all run concurrently.
 */
import { scenario, type ScenarioContext } from '../src/engine/scenario/index.ts';
import { idPrefix, loadRules, loadSpec } from '../src/contract/index.ts';
import { enumOf, idPattern, priceModels } from '../src/engine/predicates.ts';
import type { Exchange } from '../src/engine/types.ts';
import { concurrent, bodyOf, notRefused, type Json } from './support.ts';

const rules = await loadRules();
const spec = await loadSpec();
const pricePath = (id: string) => spec.pathFor('getPrice', { id });
/** A price id's prefix, as PriceId's pattern states it. */
const PRICE = idPrefix(spec, 'PriceId');
/** The two models a price is created with. */
const { standard: STANDARD, volume: VOLUME, legacy: LEGACY } = priceModels(spec);
const ORG = idPattern(rules, 'organization');
const FEE = idPattern(rules, 'fee');
const PRICE_MODELS = enumOf(rules, 'PRICES.MODEL.ENUM');

async function readPrice(t: ScenarioContext, id: string): Promise<{ ex: Exchange; p: Json }> {
  const ex = await t.http.get(pricePath(id));
  notRefused(t, ex);
  t.expectStatus('PRICES.GET.BY_ID#reads-existing', ex, 200);
  // That it is the price asked for is the read-by-id check's (src/engine/checks/reads.ts, #answers-resource).
  const p = bodyOf(ex);
  t.expectRule(
    'PRICES.MODEL.ENUM#enum',
    PRICE_MODELS.includes(p.model),
    `model is one of ${PRICE_MODELS.join(', ')} (got ${JSON.stringify(p.model)})`,
    ex,
  );
  return { ex, p };
}

/** Single-read rules every price meets: merchantId, feeId when linked, quantity >= 0. */
function expectSingleRead(t: ScenarioContext, ex: Exchange, p: Json, merchantId: string, linkedToFee: boolean): void {
  t.expectRule(
    'PRICES.MERCHANT_ID.SINGLE_READ',
    typeof p.merchantId === 'string' && ORG.test(p.merchantId),
    `merchantId matches ${ORG.source} (got ${JSON.stringify(p.merchantId)})`,
    ex,
  );
  t.expectRule(
    'PRICES.MERCHANT_ID.SINGLE_READ',
    p.merchantId === merchantId,
    `merchantId is the owner merchant ${merchantId} (got ${JSON.stringify(p.merchantId)})`,
    ex,
  );
  if (linkedToFee)
    t.expectRule(
      'PRICES.FEE_ID.WHEN_LINKED',
      typeof p.feeId === 'string' && FEE.test(p.feeId),
      `a fee price carries feeId matching ${FEE.source} (got ${JSON.stringify(p.feeId)})`,
      ex,
    );
  if (p.quantity !== undefined)
    t.expectRule(
      'PRICES.QUANTITY.NON_NEGATIVE',
      typeof p.quantity === 'number' && p.quantity >= 0,
      `quantity is a number >= 0 (got ${JSON.stringify(p.quantity)})`,
      ex,
    );
  else t.note(`price ${p.id}: no quantity shown`);
}

scenario(
  [
    'PRICES.GET.BY_ID',
    'PRICES.MODEL.ENUM',
    'PRICES.MERCHANT_ID.SINGLE_READ',
    'PRICES.FEE_ID.WHEN_LINKED',
    'PRICES.QUANTITY.NON_NEGATIVE',
  ],
  'a standard fee price reads back with merchantId, feeId and quantity',
  async (t) => {
    const { standard } = await t.fixture((f) => f.prices());
    const { merchantId } = await t.fixture((f) => f.merchant());
    const { ex, p } = await readPrice(t, standard);
    t.expectRule(
      'PRICES.MODEL.ENUM#enum',
      p.model === STANDARD,
      `the standard price reads as standard (got ${JSON.stringify(p.model)})`,
      ex,
    );
    // properties.unitPrice being a string is the schema's.
    expectSingleRead(t, ex, p, merchantId, true);
  },
  concurrent,
);

scenario(
  ['PRICES.VOLUME.LAST_TIER_OPEN', 'PRICES.MODEL.ENUM', 'PRICES.MERCHANT_ID.SINGLE_READ', 'PRICES.FEE_ID.WHEN_LINKED'],
  'a volume price has tiers whose last (and only the last) upTo is null',
  async (t) => {
    const { volume } = await t.fixture((f) => f.prices());
    const { merchantId } = await t.fixture((f) => f.merchant());
    const { ex, p } = await readPrice(t, volume);
    t.expectRule(
      'PRICES.MODEL.ENUM#enum',
      p.model === VOLUME,
      `the volume price reads as volume (got ${JSON.stringify(p.model)})`,
      ex,
    );
    expectSingleRead(t, ex, p, merchantId, true);
    const tiers: Json[] = Array.isArray(p.properties?.tiers) ? p.properties.tiers : [];
    t.expectRule(
      'PRICES.VOLUME.LAST_TIER_OPEN',
      tiers.length > 0,
      `properties.tiers is a non-empty array (got ${JSON.stringify(p.properties?.tiers)})`,
      ex,
    );
    const malformed = tiers.filter(
      (tier) => typeof tier?.unitPrice !== 'string' || !(typeof tier?.upTo === 'string' || tier?.upTo === null),
    );
    t.expectRule(
      'PRICES.VOLUME.LAST_TIER_OPEN',
      malformed.length === 0,
      `every tier is {unitPrice: string, upTo: string or null} (bad: ${JSON.stringify(malformed)})`,
      ex,
    );
    const openAt = tiers.map((tier, i) => (tier.upTo === null ? i : -1)).filter((i) => i >= 0);
    t.expectRule(
      'PRICES.VOLUME.LAST_TIER_OPEN',
      openAt.length === 1 && openAt[0] === tiers.length - 1,
      `only the last tier has upTo null (null at ${JSON.stringify(openAt)} of ${tiers.length})`,
      ex,
    );
  },
  concurrent,
);

scenario(
  ['PRICES.MODEL.ENUM', 'PRICES.GET.BY_ID'],
  'legacy (dynamic, percentage) prices stay readable',
  async (t) => {
    const { legacy } = await t.fixture((f) => f.prices());
    const models = new Set<string>();
    if (!legacy.length) t.notJudged('the target offers no legacy price to read', 'fixture');
    for (const id of legacy) {
      const { ex, p } = await readPrice(t, id);
      t.expectRule(
        'PRICES.MODEL.ENUM#legacy-readable',
        LEGACY.includes(p.model),
        `the legacy price ${id} reads back with its legacy model (got ${JSON.stringify(p.model)})`,
        ex,
      );
      models.add(p.model);
    }
    t.note(`legacy prices read: ${legacy.length}, models ${[...models].join(', ')}`);
  },
  concurrent,
);

scenario(
  ['PRICES.GET.BY_ID', 'STATUS.404.UNKNOWN_RESOURCE', 'VALIDATION.PATTERN.400'],
  `an unknown price gets 404; an id breaking ^${PRICE} gets 400 or 404`,
  async (t) => {
    const unknown = await t.http.get(pricePath(`${PRICE}conform0unknown0price`));
    t.expectStatus(['STATUS.404.UNKNOWN_RESOURCE', 'PRICES.GET.BY_ID#unknown-404'], unknown, 404);
    t.expectRule(
      'PRICES.GET.BY_ID#unknown-404',
      typeof bodyOf(unknown).message === 'string',
      'the 404 body is an Error with a message',
      unknown,
    );
    // Its refusal (400 or 404) is the registry's (checks/refusals.ts).
    await t.http.get(pricePath('not-a-price-id'), { brokenOnPurpose: true });
  },
  concurrent,
);

scenario(
  ['PRICES.MODEL.CREATABLE'],
  'the reference refuses to create legacy (dynamic, percentage) prices with 400',
  async (t) => {
    if (t.target.fixtureStrategy !== 'reference')
      t.notJudged('a reference rule: judged only on a target offering the reference extensions', 'not-applicable');
    const { feeId } = await t.fixture((f) => f.feeWithoutPrices());
    for (const model of LEGACY) {
      const res = await t.http.post(spec.pathFor('createPrice'), {
        feeId,
        model,
        currency: 'USD',
        cadence: 'P1M',
        properties: { unitPrice: '1.00' },
      });
      t.expectStatus('PRICES.MODEL.CREATABLE', res, 400);
    }
  },
  concurrent,
);
