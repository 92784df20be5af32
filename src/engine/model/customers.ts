/**
 * The customers of the state model: two fresh customers per sequence, read, updated with
 * generated bodies (valid and boundary values of the document's PATCH body), deleted where
 * destructive scenarios may run, and looked for in the pages of GET /v0/customers. What needs
 * the model's knowledge (Endpoints > Customers): an existing customer reads and updates, later
 * reads hold the last answer (a field cleared with null too); every representation names the
 * key's merchant as owner. What the exchanges show by themselves (null clears, the single tax
 * rate, the flags sent, what an update keeps, a deleted customer answering 404 and leaving the
 * list, timestamps on course) is the check registry's: its finding ends the sequence.
 */
import fc from 'fast-check';
import type { ScenarioContext } from '../scenario/types.ts';
import { is2xx } from '../checks/types.ts';
import { loadRules, loadSpec, schemaBound } from '../../contract/index.ts';
import { keptFields, sameValue } from '../predicates.ts';
import { fromSpec, positiveRequests } from '../generators/index.ts';
import { CUSTOMER, OWNER } from './parts.ts';
import type { ModelJudge } from './judge.ts';
import { walkList, walkStill, type ListTarget } from './lists.ts';
import { bodyOf, observe, show, track, type Json, type ModelHttp, type Tracked } from './state.ts';
import type { StateModel } from './run.ts';

const rules = await loadRules();
const spec = await loadSpec();
/** The fields a customer update sets (spec/rules.yaml: what CUSTOMERS.UPDATE.PARTIAL keeps). */
const FIELDS = keptFields(rules, 'CUSTOMERS.UPDATE.PARTIAL');
const CLEARABLE = ['taxId', 'externalId'] as const;
const LIST: ListTarget = {
  label: 'GET /v0/customers',
  path: spec.pathFor('listCustomers'),
  pageSize: schemaBound(spec, 'listCustomers:query.limit', 'maximum'),
  maxPages: 20,
};
/** The customer's one tax rate, bounded by its schema. */
const TAX_RATES = 'updateCustomer:body.taxRates';
/** GET, PATCH and DELETE /v0/customers/{id} share this path. */
const path = (id: string) => spec.pathFor('getCustomer', { id });

interface Customer extends Tracked {
  /** Fields the sequence cleared with null and has not set since: a read holds them cleared, shown or not. */
  cleared: Set<(typeof CLEARABLE)[number]>;
  /** The status its successful DELETE answered. */
  deletedWith?: number;
}

export interface CustomersModel {
  merchantId: string;
  customers: Customer[];
  deletes: boolean;
  walks: number;
  /** A delete succeeded since the last walk of the list. */
  unlistedSinceWalk: boolean;
}

export interface CustomersReal {
  http: ModelHttp;
  judge: ModelJudge;
}

type Cmd = fc.AsyncCommand<CustomersModel, CustomersReal>;

/**
 * What the customers model sets out to judge (its scenario cites these; batches go on until
 * each is judged). It also judges, as sequences reach them, valid requests not refused.
 */
export const CUSTOMERS_MODEL_PARTS = [CUSTOMER.read, CUSTOMER.holdsSent, CUSTOMER.readBack, OWNER] as const;

const brief = (v: unknown) => {
  const s = JSON.stringify(v) ?? 'undefined';
  return s.length > 120 ? `${s.slice(0, 117)}...` : s;
};
const pick = (m: CustomersModel, i: number) => m.customers[i % m.customers.length];
const label = (c: Customer) =>
  `customer ${c.id}${c.deleted ? ` (deleted earlier in the sequence: DELETE answered ${c.deletedWith})` : ''}`;

async function readCustomer(m: CustomersModel, r: CustomersReal, c: Customer): Promise<void> {
  const ex = await r.http.send('GET', path(c.id));
  // A deleted customer answering 404 is the registry's (deleted-gone).
  if (c.deleted) return;
  const b = bodyOf(ex);
  // That the customer read is the one asked for is the registry's (read-by-id).
  r.judge.judge(CUSTOMER.read, ex.status === 200, `GET of ${label(c)} answered ${ex.status ?? ex.transportError}`, ex);
  for (const f of FIELDS) {
    // A field the last answer did not show judges nothing, unless the sequence cleared it.
    if (!c.seen || (c.seen[f] === undefined && !c.cleared.has(f as (typeof CLEARABLE)[number]))) continue;
    r.judge.judge(
      CUSTOMER.readBack,
      sameValue(b[f], c.seen[f]),
      `GET of ${label(c)} reads ${f} ${show(b[f])}; the last answer had ${show(c.seen[f])}`,
      ex,
    );
  }
  observe(r.judge, m.merchantId, c, b, ex, `GET ${path(c.id)}`);
  c.seen = b;
}

class GetCustomer implements Cmd {
  constructor(readonly which: number) {}
  check = () => true;
  run = (m: CustomersModel, r: CustomersReal) => readCustomer(m, r, pick(m, this.which));
  toString = () => `GET customer ${this.which}`;
}

class PatchCustomer implements Cmd {
  constructor(
    readonly which: number,
    readonly body: Json,
  ) {
    // Generated objects may lack a prototype: as JSON, they compare with what the target answers.
    this.body = JSON.parse(JSON.stringify(body)) as Json;
  }
  check = () => true;
  toString = () => `PATCH customer ${this.which} ${brief(this.body)}`;

  async run(m: CustomersModel, r: CustomersReal): Promise<void> {
    const c = pick(m, this.which);
    const sent = this.body;
    const ex = await r.http.send('PATCH', path(c.id), sent);
    // A deleted customer answering 404 is the registry's (deleted-gone).
    if (c.deleted) return;
    const what = `PATCH ${brief(sent)} of ${label(c)}`;
    r.judge.notRefused(ex, what);
    const b = bodyOf(ex);
    r.judge.judge(
      CUSTOMER.holdsSent,
      is2xx(ex) && b.id === c.id,
      `${what} answered ${ex.status} with id ${show(b.id)}`,
      ex,
    );
    // A null sent clears (the registry's customer-updated judges the answer); a later read holds it cleared.
    for (const f of CLEARABLE) {
      if (!(f in sent)) continue;
      if (sent[f] === null) c.cleared.add(f);
      else {
        r.judge.judge(CUSTOMER.holdsSent, b[f] === sent[f], `${what}: ${f} answers ${show(b[f])}`, ex);
        c.cleared.delete(f);
      }
    }
    observe(r.judge, m.merchantId, c, b, ex, `PATCH ${path(c.id)}`);
    c.seen = b;
  }
}

class DeleteCustomer implements Cmd {
  constructor(readonly which: number) {}
  check = (m: Readonly<CustomersModel>) => m.deletes;
  toString = () => `DELETE customer ${this.which}`;

  async run(m: CustomersModel, r: CustomersReal): Promise<void> {
    const c = pick(m, this.which);
    const ex = await r.http.send('DELETE', path(c.id));
    // A deleted customer answering 404 is the registry's (deleted-gone).
    if (c.deleted) return;
    // The success status is not shown: any 2xx is a delete done. A refusal (blockers) leaves it live.
    if (is2xx(ex)) {
      c.deleted = true;
      c.deletedWith = ex.status;
      m.unlistedSinceWalk = true;
    }
  }
}

/**
 * Pages through GET /v0/customers: its total, and the sequence's customers in it. That a deleted
 * one is not listed is the registry's (deleted-gone: CUSTOMERS.DELETE.GONE#leaves-list with
 * CONV.DELETE.GONE#leaves-lists), judged on these pages: a complete walk after the delete
 * without it holds, and a second sighting fails (one page may have been read before the delete
 * reached it), so a walk that still lists a deleted customer is walked once more.
 */
async function walkCustomers(m: CustomersModel, r: CustomersReal): Promise<void> {
  m.walks += 1;
  m.unlistedSinceWalk = false;
  const { walk } = await walkStill(r.http, LIST);
  if (!walk?.complete) return;
  let listedAfterDelete = false;
  for (const c of m.customers) {
    const el = walk.elements.find((e) => e.id === c.id);
    if (el && c.deleted) listedAfterDelete = true;
    else if (el) observe(r.judge, m.merchantId, c, el, walk.pages[0], LIST.label);
  }
  if (listedAfterDelete) await walkList(r.http, LIST);
}

class ListCustomers implements Cmd {
  check = (m: Readonly<CustomersModel>) => m.walks < 1;
  run = (m: CustomersModel, r: CustomersReal) => walkCustomers(m, r);
  toString = () => 'walk GET /v0/customers';
}

/** The customers model of a scenario; `deletes` says whether DELETE may be sent. */
export async function customersModel(
  t: ScenarioContext,
  merchantId: string,
  deletes: boolean,
): Promise<StateModel<CustomersModel, CustomersReal>> {
  // taxRates (0..100, one rate for all plans and metrics) carries a not-shown note the generators leave alone.
  const low = schemaBound(spec, TAX_RATES, 'minimum');
  const high = schemaBound(spec, TAX_RATES, 'maximum');
  const rate = fc.oneof(
    fc.constantFrom(low, high),
    fc.integer({ min: Math.ceil(low * 100), max: Math.floor(high * 100) }).map((n) => n / 100),
  );
  const body = fc
    .tuple(
      positiveRequests(fromSpec(spec, 'updateCustomer'), { id: 'placeholder' }),
      fc.option(rate, { nil: undefined }),
    )
    .map(([p, taxRates]) => ({ ...((p.body ?? {}) as Json), ...(taxRates === undefined ? {} : { taxRates }) }));
  const which = fc.nat({ max: 1 });
  const commands: fc.Arbitrary<Cmd>[] = [
    which.map((i) => new GetCustomer(i)),
    fc.tuple(which, body).map(([i, b]) => new PatchCustomer(i, b)),
    fc.tuple(which, body).map(([i, b]) => new PatchCustomer(i, b)),
    which.map((i) => new DeleteCustomer(i)),
    fc.constant(new ListCustomers()),
  ];
  return {
    label: 'customers model',
    parts: CUSTOMERS_MODEL_PARTS,
    commands,
    async setup(http, judge) {
      const ids = new Set<string>();
      // The fixtures may give the same customer on every call (a pre-seeded one): it is never deleted.
      for (let i = 0; i < 2; i++) ids.add((await t.fixture((f) => f.customer())).customerId);
      const customers = [...ids].map((id) => ({ ...track('customer', id), cleared: new Set<never>() }) as Customer);
      return {
        model: {
          merchantId,
          customers,
          deletes: deletes && ids.size === 2,
          walks: 0,
          unlistedSinceWalk: false,
        },
        real: { http, judge },
      };
    },
    async sweep(m, r) {
      for (const c of m.customers) await readCustomer(m, r, c);
      if (m.unlistedSinceWalk && m.walks < 2) await walkCustomers(m, r);
    },
  };
}
