/**
 * Customers: GET and PATCH /v0/customers/{id} (Endpoints > Customers, Resources > Customer).
 * Delete blockers live in delete-blockers.suite.ts. Each scenario patches a customer of
 * its own, so all run concurrently.
 */
import { scenario, type ScenarioContext } from '../src/engine/scenario/index.ts';
import type { Exchange } from '../src/engine/types.ts';
import { idPrefix, loadRules, loadSpec, schemaBound } from '../src/contract/index.ts';
import { validationErrorProblems } from '../src/engine/checks/error-shape.ts';
import { keptFields, numberOf } from '../src/engine/predicates.ts';
import { concurrent, updateInTurn, bodyOf, requireAccepted, type Json } from './support.ts';

const SPEC = await loadSpec();
/** GET, PATCH and DELETE /v0/customers/{id} share this path. */
const path = (id: string) => SPEC.pathFor('getCustomer', { id });
/** A customer id's prefix, as CustomerId's pattern states it. */
const CUS = idPrefix(SPEC, 'CustomerId');
const RULES = await loadRules();
/** The longest externalId (CUSTOMERS.EXTERNAL_ID.MAX_LENGTH) and the range of a tax rate (CUSTOMERS.TAX_RATES.RANGE). */
const EXTERNAL_ID_MAX = numberOf(RULES, 'CUSTOMERS.EXTERNAL_ID.MAX_LENGTH', 'maxLength');
const TAX_MIN = numberOf(RULES, 'CUSTOMERS.TAX_RATES.RANGE', 'minimum');
const TAX_MAX = numberOf(RULES, 'CUSTOMERS.TAX_RATES.RANGE', 'maximum');
const NOTIFICATIONS_PARTIAL = 'CUSTOMERS.NOTIFICATIONS.PARTIAL';
/** The notificationSettings flags (spec/rules.yaml). */
const FLAGS = keptFields(RULES, NOTIFICATIONS_PARTIAL);
/** The Customer fields the document lists; anything else in a response is undocumented. */
const DOCUMENTED = new Set([
  'id',
  'object',
  'consumerId',
  'merchantId',
  'createdAt',
  'updatedAt',
  'validTaxAddress',
  'organization',
  'taxId',
  'externalId',
  'taxRates',
  'notificationSettings',
]);

/** expectStatus judged under several rules: each records the finding, the last stops the scenario. */
async function customer(t: ScenarioContext): Promise<string> {
  return (await t.fixture((f) => f.customer())).customerId;
}

/** A precondition: the update succeeded; the customer it answers. */
const updated = (t: ScenarioContext, ex: Exchange): Json => requireAccepted(t, ex, 'the update');

/** GET of an existing customer answers 200; that it is the customer asked for is the read-by-id check's (#answers-resource). */
function expectCustomer(t: ScenarioContext, ex: Exchange): Json {
  t.expectStatus('CUSTOMERS.GET.BY_ID#reads-existing', ex, 200);
  return bodyOf(ex);
}

/** null clears a field: absent or null in the PATCH answer and in a later read. */
async function nullClears(
  t: ScenarioContext,
  ruleId: string,
  field: 'taxId' | 'externalId',
  value: string,
): Promise<void> {
  const id = await customer(t);
  const set = await t.http.patch(path(id), { [field]: value });
  // Clearing shows only on a field that held a value.
  t.precondition(updated(t, set)[field] === value, `${field} reads back as the value written before clearing it`, set);
  // A read holding it before it is cleared: that it reads back as sent is the registry's (round-trip).
  await t.http.get(path(id));
  // Gone from the PATCH answer is the customer-updated check's; gone from a later read, this scenario's.
  updated(t, await t.http.patch(path(id), { [field]: null }));
  const read = await t.http.get(path(id));
  const r = expectCustomer(t, read);
  t.expectRule(
    ruleId,
    r[field] === undefined || r[field] === null,
    `${field} stays cleared on a later read (got ${JSON.stringify(r[field])})`,
    read,
  );
}

scenario(
  ['CUSTOMERS.GET.BY_ID', 'CUSTOMERS.VALID_TAX_ADDRESS.PRESENT'],
  'GET /v0/customers/{id} answers that customer, with validTaxAddress',
  async (t) => {
    // Two customers, so that a target answering one customer whatever the id is caught.
    for (const id of [await customer(t), await customer(t)]) {
      const res = await t.http.get(path(id));
      const v = expectCustomer(t, res).validTaxAddress;
      t.expectRule(
        'CUSTOMERS.VALID_TAX_ADDRESS.PRESENT',
        !!v &&
          typeof v === 'object' &&
          typeof v.valid === 'boolean' &&
          (typeof v.message === 'string' || v.message === null),
        `validTaxAddress is {valid: boolean, message: string or null} (got ${JSON.stringify(v)})`,
        res,
      );
    }
  },
  concurrent,
);

scenario(
  ['CUSTOMERS.GET.BY_ID', 'STATUS.404.UNKNOWN_RESOURCE', 'VALIDATION.PATTERN.400'],
  `an unknown customer gets 404; an id breaking ^${CUS} gets 400 or 404`,
  async (t) => {
    const unknown = await t.http.get(path(`${CUS}conform0unknown0customer`));
    t.expectStatus(['STATUS.404.UNKNOWN_RESOURCE', 'CUSTOMERS.GET.BY_ID#unknown-404'], unknown, 404);
    t.expectRule(
      'CUSTOMERS.GET.BY_ID#unknown-404',
      typeof bodyOf(unknown).message === 'string',
      'the 404 body is an Error with a message',
      unknown,
    );
    const patchUnknown = await t.http.patch(path(`${CUS}conform0unknown0customer`), { externalId: 'conform' });
    t.expectStatus('STATUS.404.UNKNOWN_RESOURCE', patchUnknown, 404);
    // Its refusal (400 or 404) is the registry's (checks/refusals.ts).
    await t.http.get(path('customer-without-prefix'), { brokenOnPurpose: true });
  },
  concurrent,
);

scenario(
  ['CUSTOMERS.TAX_ID.NULL_CLEARS'],
  'PATCH taxId=null deletes the tax id',
  async (t) => {
    await nullClears(t, 'CUSTOMERS.TAX_ID.NULL_CLEARS', 'taxId', 'DE123456789');
  },
  concurrent,
);

scenario(
  ['CUSTOMERS.EXTERNAL_ID.NULL_CLEARS'],
  'PATCH externalId=null clears the external id',
  async (t) => {
    await nullClears(t, 'CUSTOMERS.EXTERNAL_ID.NULL_CLEARS', 'externalId', `conform-ext-${Date.now()}`);
  },
  concurrent,
);

scenario(
  ['CUSTOMERS.EXTERNAL_ID.MAX_LENGTH', 'VALIDATION.BOUNDS.400'],
  `externalId of ${EXTERNAL_ID_MAX} characters passes, ${EXTERNAL_ID_MAX + 1} gets 400`,
  async (t) => {
    const id = await customer(t);
    const ok = 'x'.repeat(EXTERNAL_ID_MAX - 1) + 'y';
    const accepted = await t.http.patch(path(id), { externalId: ok });
    t.expectRule(
      'CUSTOMERS.EXTERNAL_ID.MAX_LENGTH#accepts-255',
      accepted.status !== 400,
      `a ${EXTERNAL_ID_MAX}-character externalId is accepted (got ${accepted.status ?? accepted.transportError})`,
      accepted,
    );
    const c = updated(t, accepted);
    t.expectRule(
      'CUSTOMERS.EXTERNAL_ID.MAX_LENGTH#accepts-255',
      c.externalId === ok,
      `the ${EXTERNAL_ID_MAX}-character externalId reads back unchanged`,
      accepted,
    );
    // VALIDATION.BOUNDS.400 on it is the registry's (checks/refusals.ts).
    const tooLong = await t.http.patch(
      path(id),
      { externalId: 'z'.repeat(EXTERNAL_ID_MAX + 1) },
      { brokenOnPurpose: true },
    );
    t.expectStatus('CUSTOMERS.EXTERNAL_ID.MAX_LENGTH#refuses-256', tooLong, 400);
  },
  concurrent,
);

scenario(
  ['CUSTOMERS.TAX_RATES.RANGE', 'CUSTOMERS.TAX_RATES.SINGLE_RATE', 'VALIDATION.BOUNDS.400', 'VALIDATION.TYPE.400'],
  `taxRates ${TAX_MIN} and ${TAX_MAX} pass; ${TAX_MIN - 1}, ${TAX_MAX + 0.01} and a string get 400`,
  async (t) => {
    const id = await customer(t);
    // Both bounds, and a rate with a fraction between them.
    for (const rate of [TAX_MIN, TAX_MAX, 42.5]) {
      const res = await t.http.patch(path(id), { taxRates: rate });
      t.expectRule(
        'CUSTOMERS.TAX_RATES.RANGE#accepts-bounds',
        res.status !== 400,
        `taxRates ${rate} is accepted (got ${res.status ?? res.transportError})`,
        res,
      );
      const c = updated(t, res);
      // The read shape maps plan ids, metric ids or `default` to a rate: every rate shown is the one written.
      if (c.taxRates === undefined) {
        t.ruleNotJudged('CUSTOMERS.TAX_RATES.SINGLE_RATE', `PATCH taxRates=${rate}: the response carries no taxRates`);
        continue;
      }
      // Every rate shown being the one written is the customer-updated check's on this answer.
      if (c.taxRates && typeof c.taxRates === 'object' && !Object.keys(c.taxRates).length)
        t.ruleNotJudged('CUSTOMERS.TAX_RATES.SINGLE_RATE', `PATCH taxRates=${rate}: taxRates shows no rate`);
    }
    // The VALIDATION rules of these refusals are the registry's (checks/refusals.ts).
    for (const rate of [TAX_MIN - 1, TAX_MAX + 0.01]) {
      const res = await t.http.patch(path(id), { taxRates: rate }, { brokenOnPurpose: true });
      t.expectStatus('CUSTOMERS.TAX_RATES.RANGE#refuses-outside', res, 400);
    }
    await t.http.patch(path(id), { taxRates: 'twenty' }, { brokenOnPurpose: true });
  },
  concurrent,
);

scenario(
  ['CUSTOMERS.NOTIFICATIONS.PARTIAL'],
  'a partial notificationSettings update changes only the flags given',
  async (t) => {
    const id = await customer(t);
    const all = { invoiceIssued: true, invoicePaid: false, renewalReminder: true };
    const first = await t.http.patch(path(id), { notificationSettings: all });
    const before = updated(t, first).notificationSettings;
    const shows = (n: unknown): n is Json =>
      !!n && typeof n === 'object' && FLAGS.every((k) => typeof (n as Json)[k] === 'boolean');
    if (!shows(before)) {
      // The response shape of notificationSettings is not shown: judge only what the response exposes.
      t.notJudged(
        `the customer response does not expose notificationSettings as {${FLAGS.join(', ')}} booleans (got ${JSON.stringify(before)})`,
      );
    }
    // The flags read back as written is the customer-updated check's on each answer; the flags
    // not sent answering as the answer before had them, the partial-updates check's.
    for (const [flag, value] of [
      ['invoicePaid', true],
      ['renewalReminder', false],
    ] as const)
      updated(t, await t.http.patch(path(id), { notificationSettings: { [flag]: value } }));
  },
  concurrent,
);

scenario(
  ['CUSTOMERS.VALID_TAX_ADDRESS.PRESENT'],
  'every PATCH answer carries validTaxAddress',
  async (t) => {
    const id = await customer(t);
    const res = await t.http.patch(path(id), { externalId: `conform-vta-${Date.now()}` });
    const c = updated(t, res);
    const v = c.validTaxAddress;
    t.expectRule(
      'CUSTOMERS.VALID_TAX_ADDRESS.PRESENT',
      !!v &&
        typeof v === 'object' &&
        typeof v.valid === 'boolean' &&
        (typeof v.message === 'string' || v.message === null),
      `validTaxAddress is {valid: boolean, message: string or null} (got ${JSON.stringify(v)})`,
      res,
    );
    const extra = Object.keys(c).filter((k) => !DOCUMENTED.has(k));
    if (extra.length) t.note(`undocumented customer fields, never judged: ${extra.join(', ')}`);
  },
  concurrent,
);

scenario(
  ['VALIDATION.ERRORS.NAME_FIELDS'],
  'the reference names the bad field of a 400 in a ValidationError',
  async (t) => {
    if (t.target.fixtureStrategy !== 'reference')
      t.notJudged('a reference rule: judged only on a target offering the reference extensions', 'not-applicable');
    const id = await customer(t);
    const res = await t.http.patch(path(id), { externalId: 'q'.repeat(EXTERNAL_ID_MAX + 1), taxRates: TAX_MAX + 1 });
    t.expectStatus('VALIDATION.ERRORS.NAME_FIELDS', res, 400);
    const b = bodyOf(res);
    const fields: string[] = Array.isArray(b.errors) ? b.errors.map((e: Json) => String(e?.field ?? '')) : [];
    t.expectRule(
      'VALIDATION.ERRORS.NAME_FIELDS',
      validationErrorProblems(b, SPEC).length === 0 &&
        ['externalId', 'taxRates'].every((f) =>
          fields.some((x) => x === f || x.endsWith(`.${f}`) || x.endsWith(`/${f}`)),
        ),
      `a ValidationError naming externalId and taxRates (got error ${JSON.stringify(b.error)}, fields ${JSON.stringify(fields)})`,
      res,
    );
  },
  concurrent,
);

scenario(
  ['CUSTOMERS.UPDATE.PARTIAL'],
  'PATCH /v0/customers/{id} changes only the fields provided',
  async (t) => {
    const id = await customer(t);
    const tag = `conform-${t.target.seed}-${Math.random().toString(36).slice(2, 8)}`;
    const first = {
      taxId: `DE${tag}`,
      externalId: tag,
      taxRates: 7,
      notificationSettings: { invoiceIssued: true, invoicePaid: false, renewalReminder: true },
    };
    await updateInTurn(t, 'CUSTOMERS.UPDATE.PARTIAL', (body) => t.http.patch(path(id), body), first, [
      { externalId: `${tag}-2` },
      { taxId: `DE${tag}-2` },
    ]);
  },
  concurrent,
);

scenario(
  [
    'CONV.DELETE.GONE#reads-404',
    'CONV.DELETE.GONE#leaves-lists',
    'CUSTOMERS.DELETE.GONE#reads-404',
    'CUSTOMERS.DELETE.GONE#leaves-list',
    'CONV.LIST.WALK#finds-known',
  ],
  'a customer listed before its DELETE reads 404 after it and leaves GET /v0/customers',
  async (t) => {
    // What a later request gets is judged by the registry (CONV.DELETE.GONE with CUSTOMERS.DELETE.GONE,
    // CONV.LIST.WALK); the scenario sends the requests: a read, a walk of the list with the customer
    // in it, the delete, a read and a walk after it.
    if (t.target.fixtureStrategy === 'file')
      t.notJudged('pre-seeded customers (fixtures file) are never deleted', 'fixture');
    const id = await customer(t);
    expectCustomer(t, await t.http.get(path(id)));
    await walkCustomers(t);
    requireAccepted(t, await t.http.delete(path(id)), 'the delete');
    await t.http.get(path(id));
    await walkCustomers(t);
  },
  { ...concurrent, destructive: true },
);

/** Pages through GET /v0/customers from offset 0 by the elements each page holds (the list's own envelope). */
async function walkCustomers(
  t: ScenarioContext,
  pageSize = schemaBound(SPEC, 'listCustomers:query.limit', 'maximum'),
  maxPages = 20,
): Promise<void> {
  for (let offset = 0, page = 0; page < maxPages; page++) {
    const ex = await t.http.get(SPEC.pathFor('listCustomers'), { query: { limit: pageSize, offset } });
    const b = bodyOf(ex);
    const data = Array.isArray(b.data) ? b.data : [];
    const total = typeof b.pagination?.total === 'number' ? b.pagination.total : undefined;
    if (ex.status !== 200 || !data.length) return;
    offset += data.length;
    if (total !== undefined && offset >= total) return;
  }
}
