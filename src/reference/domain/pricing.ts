/** Price models: validation of properties and the charge for a quantity. */
import { assertAmount, D, dec, isDecimalString, type Dec } from './money.ts';
import type { Price, VolumeTier } from './types.ts';
import { badRequest } from './errors.ts';

export const CREATABLE_MODELS = ['standard', 'volume'] as const;

/** Checks a volume tier list: ascending upTo, only the last open (null). Returns a message or null. */
export function volumeTiersProblem(tiers: unknown): string | null {
  if (!Array.isArray(tiers) || tiers.length === 0) return 'properties.tiers must be a non-empty array';
  let previous: Dec | null = null;
  for (let i = 0; i < tiers.length; i++) {
    const t = tiers[i] as Partial<VolumeTier> | null;
    if (!t || typeof t !== 'object') return `properties.tiers[${i}] must be an object`;
    if (!isDecimalString(t.unitPrice) || dec(t.unitPrice).isNegative()) {
      return `properties.tiers[${i}].unitPrice must be a non-negative decimal string`;
    }
    const last = i === tiers.length - 1;
    if (last) {
      if (t.upTo !== null) return `properties.tiers[${i}].upTo must be null on the last tier`;
    } else {
      if (!isDecimalString(t.upTo) || !dec(t.upTo).isPositive()) {
        return `properties.tiers[${i}].upTo must be a positive decimal string (only the last tier is open)`;
      }
      const upTo = dec(t.upTo);
      if (previous && !upTo.greaterThan(previous))
        return `properties.tiers[${i}].upTo must be greater than the previous tier's`;
      previous = upTo;
    }
  }
  return null;
}

/** Validates the properties of a price being created; throws 400 naming the field. */
export function assertCreatableProperties(model: string, properties: Record<string, unknown>): void {
  if (!(CREATABLE_MODELS as readonly string[]).includes(model)) {
    throw badRequest(
      'PRICE_MODEL_NOT_CREATABLE',
      `model: only standard and volume prices can be created; ${model} is a legacy model`,
    );
  }
  if (model === 'standard') {
    assertAmount('properties.unitPrice', properties.unitPrice);
  } else {
    const tiers = Array.isArray(properties.tiers) ? properties.tiers : [];
    tiers.forEach(
      (t, i) =>
        t && typeof t === 'object' && assertAmount(`properties.tiers[${i}].unitPrice`, (t as VolumeTier).unitPrice),
    );
    const problem = volumeTiersProblem(properties.tiers);
    if (problem) throw badRequest('INVALID_PRICE_PROPERTIES', problem);
  }
}

/** The tier a quantity falls in: the first whose upTo is at or above it. */
export function volumeTierFor(tiers: VolumeTier[], quantity: Dec): VolumeTier {
  for (const t of tiers) {
    if (t.upTo === null || quantity.lessThanOrEqualTo(dec(t.upTo))) return t;
  }
  return tiers[tiers.length - 1];
}

/** Unit price applied to a quantity, before rounding; `override` replaces a standard rate. */
export function unitPriceFor(price: Pick<Price, 'model' | 'properties'>, quantity: Dec, override?: string): Dec {
  if (price.model === 'standard') return dec(override ?? (price.properties.unitPrice as string) ?? '0');
  if (price.model === 'volume') return dec(volumeTierFor(price.properties.tiers ?? [], quantity).unitPrice);
  // Legacy models are readable only and never billed by the reference.
  return new D(0);
}

/** quantity x unit price for the model (volume: the whole quantity at its tier's price). */
export function chargeFor(
  price: Pick<Price, 'model' | 'properties'>,
  quantity: string | Dec,
  override?: string,
): { unitPrice: Dec; amount: Dec } {
  const q = dec(quantity);
  const unitPrice = unitPriceFor(price, q, override);
  return { unitPrice, amount: unitPrice.times(q) };
}
