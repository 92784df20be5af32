/**
 * What a fixture's answer tells the ledger: the resources it hands out belong to the run's
 * merchant (`…Id` and `…Ids` fields), a key it hands out acts for the merchant it names, the
 * unmanaged merchant may not manage the run's (nor the other way), and a result naming one
 * resource with amounts beside its id tells those amounts (a paid invoice's subtotal and tax).
 */
import type { ResourceIndex } from '../../../contract/index.ts';
import type { Json, Ledger } from './ledger.ts';

/** Fields that name an organization, not a resource the run holds. */
const NOT_HELD = new Set(['merchantId', 'consumerId', 'organizationId']);
const isObj = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The `object` name a `…Id` field points at: a resource's name, or one ending in it (scheduleId: billing_schedule). */
function objectFor(field: string, resources: ResourceIndex): string {
  const base = field.replace(/Ids?$/, '');
  const snake = base.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
  const names = resources.all.flatMap((r) => (r.object ? [r.object] : []));
  return names.find((o) => o === base || o === snake || o.endsWith(`_${snake}`)) ?? snake;
}

export interface GivenOptions {
  /** The fixture method that answered. */
  method: string;
  resources: ResourceIndex;
}

/** Records what fixture `method` answered. */
export function learnGiven(ledger: Ledger, result: unknown, { method, resources }: GivenOptions): void {
  const primary = ledger.merchantOf.get('primary');
  if (method === 'merchant' && isObj(result) && typeof result.merchantId === 'string') {
    if (!primary) ledger.merchantOf.set('primary', result.merchantId);
    return;
  }
  if (isObj(result) && typeof result.key === 'string' && typeof result.merchantId === 'string') {
    ledger.merchantOf.set(result.key, result.merchantId);
    if (method === 'unmanagedMerchant' && primary) ledger.declareUnrelated(primary, result.merchantId);
    return;
  }
  if (!isObj(result)) return;
  const ids: [string, string][] = [];
  const scalars: Json = {};
  for (const [field, value] of Object.entries(result)) {
    if (NOT_HELD.has(field)) continue;
    if (/Id$/.test(field) && typeof value === 'string') ids.push([field, value]);
    else if (/Ids$/.test(field) && Array.isArray(value)) {
      for (const v of value) if (typeof v === 'string') ids.push([field, v]);
    } else if (typeof value === 'string' || typeof value === 'number') scalars[field] = value;
  }
  // Whose they are is known beside the run's own merchant only.
  if (primary)
    for (const [field, id] of ids) ledger.ownerOf.set(id, { merchant: primary, object: objectFor(field, resources) });
  if (ids.length === 1 && Object.keys(scalars).length) ledger.fact(objectFor(ids[0][0], resources), ids[0][1], scalars);
}
