/**
 * Items and prices in the state model: a fresh item per sequence, updated with generated
 * bodies (name, metadata, its own product as catalogId, archived true or false) and read back
 * where the fixtures can read it; the fixtures' prices read by id. What needs the model's
 * knowledge (Endpoints > Items, States and transitions): an update of the existing item is
 * accepted, archiving an active item sets archivedAt and unarchiving an archived one clears it,
 * an update without archived leaves an active item active, a read through the fixtures (the
 * registry never sees it) holds what the last answer showed and an archived item stays
 * readable; an existing price reads; every representation names the key's merchant and keeps
 * its timestamps. What one answer or two in a row show (the fields sent held, archivedAt as
 * sent, what an update keeps) is the check registry's: its finding ends the sequence.
 */
import fc from 'fast-check';
import type { ScenarioContext } from '../scenario/types.ts';
import { is2xx } from '../checks/types.ts';
import { isFixtureUnavailable } from '../fixtures/types.ts';
import { loadRules, loadSpec } from '../../contract/index.ts';
import { isDateTime, keptFields, sameValue } from '../predicates.ts';
import { fromSpec, positiveRequests } from '../generators/index.ts';
import { ITEM, OWNER, PRICE } from './parts.ts';
import type { ModelJudge } from './judge.ts';
import { bodyOf, observe, show, track, type Json, type ModelHttp, type Tracked } from './state.ts';
import type { StateModel } from './run.ts';

const rules = await loadRules();
const spec = await loadSpec();
/** The item fields an update sets besides its archived state (spec/rules.yaml: what ITEMS.UPDATE.PARTIAL keeps). */
const KEPT = keptFields(rules, 'ITEMS.UPDATE.PARTIAL').filter((f) => f !== 'archived');
const itemPath = (id: string) => spec.pathFor('updateItem', { id });

interface Item extends Tracked {
  productId: string;
  /** Undefined: not known yet (a given item that earlier runs may have archived). */
  archived: boolean | undefined;
  /** The fixtures read it back once: an archived item they can no longer read is not readable. */
  readOnce: boolean;
}

export interface ItemsPricesModel {
  merchantId: string;
  item: Item;
  prices: Tracked[];
  /** Whether the fixtures can read an item (the document shows no item read). */
  reads: boolean;
}

export interface ItemsPricesReal {
  http: ModelHttp;
  judge: ModelJudge;
  readItem(id: string): Promise<unknown>;
  /** The fixtures cannot read items: later sequences do not try. */
  noReads(): void;
}

type Cmd = fc.AsyncCommand<ItemsPricesModel, ItemsPricesReal>;

/**
 * What the items-and-prices model sets out to judge (its scenario cites these): parts no check
 * judges, reached by most sequences. It also judges, as sequences reach them, archiving and
 * unarchiving, an active item kept active, reads of the item through the fixtures, an archived
 * item readable, timestamps and valid requests not refused.
 */
export const ITEMS_PRICES_MODEL_PARTS = [OWNER, ITEM.accepted, PRICE.read] as const;
const brief = (v: unknown) => {
  const s = JSON.stringify(v) ?? 'undefined';
  return s.length > 120 ? `${s.slice(0, 117)}...` : s;
};
const state = (it: Item) => (it.archived === undefined ? 'given' : it.archived ? 'archived' : 'active');
/** What an answer shows of an item's state: archived, active, or nothing readable. */
const shows = (b: Json): boolean | undefined =>
  isDateTime(b.archivedAt) ? true : b.archivedAt === null ? false : undefined;

class PatchItem implements Cmd {
  /** `withCatalog`: the body also names the item's own product (its id is known once the item is made). */
  constructor(
    readonly body: Json,
    readonly withCatalog: boolean,
  ) {
    // Generated objects may lack a prototype: as JSON, they compare with what the target answers.
    this.body = JSON.parse(JSON.stringify(body)) as Json;
  }
  check = () => true;
  toString = () => `PATCH item ${brief(this.body)}${this.withCatalog ? ' with its own catalogId' : ''}`;

  async run(m: ItemsPricesModel, r: ItemsPricesReal): Promise<void> {
    const it = m.item;
    const sent: Json = this.withCatalog ? { ...this.body, catalogId: it.productId } : this.body;
    const ex = await r.http.send('PATCH', itemPath(it.id), sent);
    const what = `PATCH ${brief(sent)} of the ${state(it)} item ${it.id} (no billable metric or fee anchored)`;
    r.judge.notRefused(ex, what);
    const was = it.archived;
    // The transitions need the state before: the model's. The fields sent held and archivedAt as
    // sent are the registry's (round-trip, item-updated), what an update keeps its partial-updates'.
    const archiving = sent.archived === true && was === false;
    const unarchiving = sent.archived === false && was === true;
    const b = bodyOf(ex);
    r.judge.judge(
      archiving ? ITEM.archive : unarchiving ? ITEM.unarchive : ITEM.accepted,
      is2xx(ex) && b.id === it.id,
      `${what} answered ${ex.status ?? ex.transportError} with id ${show(b.id)}`,
      ex,
    );
    if (archiving)
      r.judge.judge(ITEM.archive, isDateTime(b.archivedAt), `${what}: archivedAt answers ${show(b.archivedAt)}`, ex);
    if (unarchiving)
      r.judge.judge(ITEM.unarchive, b.archivedAt === null, `${what}: archivedAt answers ${show(b.archivedAt)}`, ex);
    if (sent.archived === undefined && was === false)
      r.judge.judge(
        ITEM.keepsActive,
        b.archivedAt === null,
        `${what}: the item is active, archivedAt answers ${show(b.archivedAt)}`,
        ex,
      );
    const archived: boolean | undefined = sent.archived ?? was;
    observe(r.judge, m.merchantId, it, b, ex, `PATCH ${itemPath(it.id)}`);
    it.seen = b;
    // Not known before and not sent: the answer tells.
    it.archived = archived ?? shows(b);
  }
}

async function readItem(m: ItemsPricesModel, r: ItemsPricesReal): Promise<void> {
  const it = m.item;
  r.http.comment(`the fixtures read item ${it.id} (the document shows no item read)`);
  let got: unknown;
  try {
    got = await r.readItem(it.id);
  } catch (err) {
    if (!isFixtureUnavailable(err)) throw err;
    if (it.readOnce && it.archived === true)
      return r.judge.judge(
        ITEM.readable,
        false,
        `the archived item ${it.id} read back while active, but no longer does: ${err.reason}`,
      );
    // Reads are the fixtures' (the document shows none): without them, readability is not judged.
    m.reads = false;
    r.noReads();
    return r.judge.cannot(ITEM.readable, `the fixtures cannot read an item: ${err.reason}`, 'fixture');
  }
  const b = got && typeof got === 'object' ? (got as Json) : {};
  it.readOnce = true;
  if (it.archived === true)
    r.judge.judge(ITEM.readable, b.id === it.id, `the archived item ${it.id} reads back as ${brief(b.id)}`);
  // The registry never sees this read: what it holds against the last answer is the model's.
  for (const f of KEPT)
    if (it.seen && it.seen[f] !== undefined)
      r.judge.judge(
        ITEM.readBack,
        sameValue(b[f], it.seen[f]),
        `a read of item ${it.id}: ${f} is ${brief(b[f])}, the last answer had ${brief(it.seen[f])}`,
      );
  if (it.archived !== undefined)
    r.judge.judge(
      ITEM.readBack,
      it.archived ? isDateTime(b.archivedAt) : b.archivedAt === null,
      `a read of the ${state(it)} item ${it.id}: archivedAt is ${show(b.archivedAt)}`,
    );
  else it.archived = shows(b);
  // A read outside the sequence's client has no exchange to show.
  observe(r.judge, m.merchantId, it, b, undefined, `a read of item ${it.id}`);
  it.seen = b;
}

class ReadItem implements Cmd {
  check = (m: Readonly<ItemsPricesModel>) => m.reads;
  run = (m: ItemsPricesModel, r: ItemsPricesReal) => readItem(m, r);
  toString = () => 'read item';
}

class GetPrice implements Cmd {
  constructor(readonly which: number) {}
  check = (m: Readonly<ItemsPricesModel>) => m.prices.length > 0;
  toString = () => `GET price ${this.which}`;

  async run(m: ItemsPricesModel, r: ItemsPricesReal): Promise<void> {
    const p = m.prices[this.which % m.prices.length];
    const ex = await r.http.send('GET', spec.pathFor('getPrice', { id: p.id }));
    const b = bodyOf(ex);
    // That the price read is the one asked for is the registry's (read-by-id).
    r.judge.judge(PRICE.read, ex.status === 200, `GET of price ${p.id} answered ${ex.status ?? ex.transportError}`, ex);
    observe(r.judge, m.merchantId, p, b, ex, `GET /v0/prices/${p.id}`);
  }
}

/** The items-and-prices model of a scenario. */
export async function itemsPricesModel(
  t: ScenarioContext,
  merchantId: string,
): Promise<StateModel<ItemsPricesModel, ItemsPricesReal>> {
  // Archiving is a transition of its own: sent as true, false or not at all, each a third of the time.
  const body = fc
    .tuple(
      positiveRequests(
        fromSpec(spec, 'updateItem'),
        { id: 'placeholder' },
        { body: { omit: ['/catalogId', '/archived'] } },
      ),
      fc.constantFrom(true, false, undefined),
    )
    .map(([p, archived]) => ({ ...((p.body ?? {}) as Json), ...(archived === undefined ? {} : { archived }) }));
  const priceIds = await t.fixture(async (f) => {
    const p = await f.prices();
    return [p.standard, p.volume];
  });
  let reads = true;
  const handed = new Set<string>();
  return {
    label: 'items and prices model',
    parts: ITEMS_PRICES_MODEL_PARTS,
    commands: [
      fc.tuple(body, fc.boolean()).map(([b, c]) => new PatchItem(b, c)),
      fc.tuple(body, fc.boolean()).map(([b, c]) => new PatchItem(b, c)),
      fc.constant(new ReadItem()),
      fc.nat({ max: 1 }).map((i) => new GetPrice(i)),
    ],
    async setup(http, judge) {
      const { itemId, productId } = await t.fixture((f) => f.item());
      // A fresh item is active; one handed out before (a fixtures file's) is in whatever state it was left.
      const fresh = t.target.fixtureStrategy !== 'file' && !handed.has(itemId);
      handed.add(itemId);
      const item: Item = { ...track('item', itemId), productId, archived: fresh ? false : undefined, readOnce: false };
      const real: ItemsPricesReal = {
        http,
        judge,
        readItem: (id) => t.fixture((f) => f.readItem(id)),
        noReads: () => (reads = false),
      };
      return { model: { merchantId, item, prices: priceIds.map((id) => track('price', id)), reads }, real };
    },
    async sweep(m, r) {
      if (m.reads) await readItem(m, r);
      // The fixture is an active item: a sequence that left it archived (or may have) hands it back active,
      // so a scenario given the same item next (a fixtures file's) finds it as promised.
      if (m.item.archived !== false) await r.http.send('PATCH', itemPath(m.item.id), { archived: false });
    },
  };
}
