/** Helpers of the items suite (items.suite.ts): item updates and reads, references, a second product. */
import type { ScenarioContext } from '../../src/engine/scenario/index.ts';
import type { Exchange } from '../../src/engine/types.ts';
import { loadSpec, schemaConst } from '../../src/contract/index.ts';
import { obj, is2xx, isFixtureUnavailable, requireAccepted, type Json } from '../support.ts';

const spec = await loadSpec();
/** An item's object name, as the Item schema states it. */
export const ITEM = schemaConst(spec, 'Item.object');

export function patchItem(t: ScenarioContext, itemId: string, body: Json): Promise<Exchange> {
  return t.http.patch(spec.pathFor('updateItem', { id: itemId }), body);
}

export async function readItem(t: ScenarioContext, itemId: string): Promise<Json> {
  return obj(await t.fixture((f) => f.readItem(itemId))) ?? {};
}

/**
 * Reads an archived item that read back while active. The read itself is the fixture's
 * (the document shows no item read), but once it has worked for this item, an archived
 * item it can no longer read breaks ITEMS.ARCHIVED.READABLE instead of skipping.
 */
export async function readArchived(t: ScenarioContext, itemId: string): Promise<Json> {
  try {
    return await readItem(t, itemId);
  } catch (err) {
    if (!isFixtureUnavailable(err)) throw err;
    t.expectRule(
      'ITEMS.ARCHIVED.READABLE',
      false,
      `the archived item ${itemId} read back while active, but no longer does: ${err.reason}`,
    );
    throw err;
  }
}

export function refsOf(item: Json): Json[] {
  return Array.isArray(item.externalReferences) ? item.externalReferences.filter((r: unknown) => obj(r)) : [];
}

/** The updated item of a 2xx answer, judged under `rule` (a rule about that update); stops the scenario otherwise. */
export function updated(t: ScenarioContext, rule: string, ex: Exchange, what: string): Json {
  t.expectRule(rule, is2xx(ex), `${what} is accepted (2xx), got ${ex.status ?? ex.transportError}`, ex);
  const item = obj(ex.body);
  t.expectRule(rule, item?.object === ITEM, `${what} answers the item (object ${JSON.stringify(item?.object)})`, ex);
  return item!;
}

/** The updated item of a 2xx answer, as a precondition: an update the scenario needs done, judging nothing. */
export function requireUpdated(t: ScenarioContext, ex: Exchange, what: string): Json {
  const item = requireAccepted(t, ex, what);
  t.precondition(item.object === ITEM, `${what} answers the item`, ex);
  return item;
}

/**
 * At most one primary reference per external id among what was seen. Judged only where some
 * reference is primary: no holder at all shows nothing about "at most one".
 */
export function checkOnePrimary(t: ScenarioContext, items: Json[]): void {
  const owners = new Map<string, Set<string>>();
  for (const item of items) {
    for (const r of refsOf(item)) {
      if (r.isPrimary !== true || typeof r.externalId !== 'string') continue;
      const key = `${r.provider ?? ''}\u0000${r.externalId}`;
      const set = owners.get(key) ?? new Set<string>();
      set.add(String(r.id ?? `${item.id}:${r.externalId}`));
      owners.set(key, set);
    }
  }
  if (owners.size === 0) return;
  const doubled = [...owners.entries()].filter(([, s]) => s.size > 1).map(([k]) => k.split('\u0000')[1]);
  t.softExpectRule(
    'ITEMS.EXTERNAL_ID.ONE_PRIMARY',
    doubled.length === 0,
    `no external id is primary more than once (${doubled.join(', ') || 'none'})`,
  );
}

/**
 * A second product of the item's merchant (POST /v0/products), or undefined with a note when
 * the target refuses it.
 */
export async function otherProduct(t: ScenarioContext): Promise<string | undefined> {
  const { merchantId } = await t.fixture((f) => f.merchant());
  const res = await t.http.post(spec.pathFor('createProduct'), {
    name: `Conform product ${t.target.seed}`,
    description: 'Second catalog entry',
    merchantId,
  });
  const id = obj(res.body)?.id;
  if (is2xx(res) && typeof id === 'string') return id;
  t.note(`catalogId not exercised: POST /v0/products answered ${res.status ?? res.transportError}`);
  return undefined;
}
