/**
 * Generated cases for every documented operation with request inputs (property-based, from
 * the request schemas of spec/openapi.yaml): valid requests must not get 400 or 5xx and
 * their responses must conform; each documented constraint broken alone must get 400 with
 * an Error or ValidationError body (400 or 404 for a path id outside its pattern).
 * Seeded by --seed; failures shrink to a minimal case and carry a replay command.
 */
import fc from 'fast-check';
import { describe, scenario, type ScenarioContext } from '../src/engine/scenario/index.ts';
import { loadSpec } from '../src/contract/index.ts';
import { onlyValue } from '../src/engine/predicates.ts';
import {
  CONSTRAINT_RULE,
  documentedConstraints,
  edgeValidValues,
  fromSpec,
  statedFor,
  valueAt,
  negativeRequests,
  positiveEdgeExamples,
  positiveRequests,
  undocumentedEdgeRequests,
  type ConstraintKind,
  type GenOperation,
  type PlanOptions,
  type RequestPlan,
} from '../src/engine/generators/index.ts';
import { checkNegatives, checkPositives, sendEdges, type FreshParent } from '../src/engine/generators/live.ts';
import { requireSuccess } from './support.ts';
import type { Exchange } from '../src/engine/types.ts';

const spec = await loadSpec();

/** Runs per property: positives per operation, negatives per constraint (plus the documented edge values). */
const RUNS = { quick: { positive: 6, negative: 2 }, full: { positive: 40, negative: 10 } } as const;

interface Inputs {
  /** Real ids for the path parameters (a random well-formed id would only get 404). */
  ids: Record<string, unknown>;
  options?: PlanOptions;
  /** A create under a parent: where each valid case gets a fresh one (live.ts). */
  parent?: FreshParent;
}

interface Positives {
  /** Parts the property judges itself beyond VALIDATION.VALID_REQUEST.NOT_400: no case refused (the edges). */
  rules: string[];
  /** The part a valid case answered with neither 2xx nor 400 breaks: the operation succeeds. */
  accepted?: string;
  /** Parts the registry judges on every case's answer (cited by the scenario; a finding of theirs fails the case). */
  registry?: string[];
  inspect?: (plan: RequestPlan, ex: Exchange) => { ruleId: string; problem: string } | undefined;
}

interface OperationCases {
  operationId: string;
  /** Fixtures and shaping; runs once per scenario (fresh resources where the strategy creates them). */
  inputs(t: ScenarioContext): Promise<Inputs>;
  /** Absent: negatives only (the reason is in `negativesOnly`). */
  positives?: Positives;
  negativesOnly?: string;
  /** Family rules a broken constraint also exercises, by `pointer kind` or `pointer`. */
  rules?: Record<string, string[]>;
  /** Family rules a valid value on a documented edge exercises (taxRates 100 accepted...), same keys. */
  edges?: Record<string, string[]>;
  /** Negatives the target could act on if it ignored the broken input (e.g. a refund). */
  destructiveNegatives?: boolean;
}

/**
 * The path id of operations whose only documented constraint is that id: every case replaces it
 * with a broken one, so no fixture is needed.
 */
const PLACEHOLDER_ID = 'placeholder-replaced-by-a-broken-id';
// Positive amounts, as the document writes money: a zero or negative one is an edge (edges.ts).
const decimal = fc.integer({ min: 1, max: 100_000 }).map((c) => (c / 100).toFixed(2));
const merchantId = async (t: ScenarioContext) =>
  t.target.merchantId ?? (await t.fixture((f) => f.merchant())).merchantId;

const CASES: OperationCases[] = [
  {
    operationId: 'updateCustomer',
    inputs: async (t) => ({ ids: { id: (await t.fixture((f) => f.customer())).customerId } }),
    positives: { rules: ['CUSTOMERS.EXTERNAL_ID.MAX_LENGTH#accepts-255', 'CUSTOMERS.TAX_RATES.RANGE#accepts-bounds'] },
    rules: {
      '/externalId maxLength': ['CUSTOMERS.EXTERNAL_ID.MAX_LENGTH#refuses-256'],
      '/taxRates minimum': ['CUSTOMERS.TAX_RATES.RANGE#refuses-outside'],
      '/taxRates maximum': ['CUSTOMERS.TAX_RATES.RANGE#refuses-outside'],
    },
    edges: {
      '/externalId maxLength': ['CUSTOMERS.EXTERNAL_ID.MAX_LENGTH#accepts-255'],
      '/taxRates minimum': ['CUSTOMERS.TAX_RATES.RANGE#accepts-bounds'],
      '/taxRates maximum': ['CUSTOMERS.TAX_RATES.RANGE#accepts-bounds'],
    },
  },
  {
    operationId: 'getCustomer',
    inputs: async () => ({ ids: { id: PLACEHOLDER_ID } }),
    negativesOnly: 'a read with a fixed id: the customers suite covers the positive',
  },
  {
    operationId: 'deleteCustomer',
    inputs: async () => ({ ids: { id: PLACEHOLDER_ID } }),
    negativesOnly: 'a delete: the delete-blockers suite covers the positive',
  },
  {
    operationId: 'getPrice',
    inputs: async () => ({ ids: { id: PLACEHOLDER_ID } }),
    negativesOnly: 'a read with a fixed id: the prices suite covers the positive',
  },
  {
    operationId: 'listAlerts',
    inputs: async (t) => {
      const { walletId } = await t.fixture((f) => f.walletWithAlerts(1));
      return { ids: {}, options: { query: { pin: { '/resourceId': walletId } } } };
    },
    positives: { rules: ['ALERTS.LIST.LIMIT_RANGE#accepts-range'], registry: ['STATUS.SUCCESS.CODE'] },
    rules: {
      '/resourceId required': ['ALERTS.LIST.RESOURCE_ID_REQUIRED'],
      '/limit minimum': ['ALERTS.LIST.LIMIT_RANGE#refuses-outside'],
      '/limit maximum': ['ALERTS.LIST.LIMIT_RANGE#refuses-outside'],
      '/offset minimum': ['ALERTS.LIST.OFFSET#refuses-negative'],
    },
    edges: {
      '/limit minimum': ['ALERTS.LIST.LIMIT_RANGE#accepts-range'],
      '/limit maximum': ['ALERTS.LIST.LIMIT_RANGE#accepts-range'],
    },
  },
  {
    operationId: 'updateAlert',
    inputs: async (t) => {
      const { alertIds } = await t.fixture((f) => f.walletWithAlerts(1));
      // organizationId names the merchant: the key's own is the one value sure to be allowed.
      return {
        ids: { id: alertIds[0] },
        options: {
          query: { pin: { '/resource': onlyValue(spec, 'updateAlert:query.resource') } },
          body: { arbitraries: { '/organizationId': fc.constant(await merchantId(t)) } },
        },
      };
    },
    positives: {
      rules: [],
      accepted: 'ALERTS.UPDATE.OK#updates-existing',
      registry: ['ALERTS.UPDATE.OK#answers-alert', 'STATUS.SUCCESS.CODE'],
    },
    rules: {
      '/resource required': ['ALERTS.UPDATE.RESOURCE_REQUIRED'],
      '/resource enum': ['ALERTS.UPDATE.RESOURCE_REQUIRED'],
    },
  },
  {
    operationId: 'migrateSubscriptionVersion',
    inputs: async (t) => ({ ids: { id: (await t.fixture((f) => f.subscription())).subscriptionId } }),
    negativesOnly:
      'a valid migration changes the subscription (pins it, schedules a move): the version-migration suite covers it on fresh fixtures',
    // MIGRATION.400.TARGET_RANGE of each case is the registry's (checks/migration.ts), as its VALIDATION rule is.
  },
  {
    operationId: 'updateItem',
    inputs: async (t) => {
      const { itemId, productId } = await t.fixture((f) => f.item());
      // Archiving is a state transition with its own rules (items suite); the product stays the item's own.
      return {
        ids: { id: itemId },
        options: { body: { arbitraries: { '/catalogId': fc.constant(productId) }, omit: ['/archived'] } },
      };
    },
    positives: { rules: [] },
  },
  {
    operationId: 'createProduct',
    inputs: async (t) => ({ ids: {}, options: { body: { pin: { '/merchantId': await merchantId(t) } } } }),
    // What the product holds is the product-created check's, on every positive's answer.
    positives: { rules: [], registry: ['PRODUCTS.CREATE.OBJECT'] },
    rules: { required: ['PRODUCTS.CREATE.REQUIRED'] },
  },
  {
    operationId: 'updateWebhooks',
    inputs: async (t) => {
      const { merchantId: m } = await t.fixture((f) => f.webhooksEnabled());
      // Only enabled=true (what enabling fixtures send anyway): turning delivery off is the webhooks suite's, on its own merchant state.
      return {
        ids: {},
        options: { query: { arbitraries: { '/merchantId': fc.constant(m) } }, body: { pin: { '/enabled': true } } },
      };
    },
    positives: { rules: [], registry: ['STATUS.SUCCESS.CODE'] },
  },
  {
    operationId: 'updateSourceRule',
    inputs: async (t) => ({
      ids: { ruleId: (await t.fixture((f) => f.sourceRule())).ruleId },
      // Condition types and operators are not shown: positives leave conditions as they are.
      options: { body: { omit: ['/conditions'] } },
    }),
    positives: { rules: ['SOURCE_RULES.UPDATE.OBJECT'] },
  },
  {
    operationId: 'createBillingSchedule',
    inputs: async (t) => {
      const { orderId } = await t.fixture((f) => f.order());
      const start = fc.date({
        min: new Date('2030-01-01T00:00:00Z'),
        max: new Date('2039-12-31T00:00:00Z'),
        noInvalidDate: true,
      });
      const end = fc.date({
        min: new Date('2040-01-01T00:00:00Z'),
        max: new Date('2049-12-31T00:00:00Z'),
        noInvalidDate: true,
      });
      return {
        ids: {},
        // Whether an order may have several schedules the document does not say: a case on an order
        // an earlier case made a schedule for is a repeat (an edge); each valid case takes a fresh order.
        parent: {
          location: 'body',
          pointer: '/orderId',
          fresh: () => t.fixture((f) => f.order()).then((o) => o.orderId),
          why: 'a second schedule for an order that has one (the document does not say whether an order may have several)',
        },
        options: {
          body: {
            pin: { '/orderId': orderId },
            // Creation by subscriptionId is unsupported (the document); dates in order; a term in days.
            omit: ['/subscriptionId'],
            arbitraries: {
              '/startDate': start.map((d) => d.toISOString()),
              '/endDate': end.map((d) => d.toISOString()),
              '/paymentTermDays': fc.integer({ min: 0, max: 90 }),
            },
          },
        },
      };
    },
    // Which order owns the schedule is the schedule-created check's, on every positive's answer.
    positives: {
      rules: [],
      accepted: 'SCHEDULES.CREATE.BY_ORDER#accepted',
      registry: ['SCHEDULES.CREATE.BY_ORDER#owned-by-order', 'SCHEDULES.END_DATE.PRESENT'],
    },
  },
  {
    operationId: 'updateAutoTopupConfig',
    inputs: async (t) => ({
      ids: { id: (await t.fixture((f) => f.wallet())).walletId },
      options: {
        body: {
          // Amounts as the document writes money (decimal strings); the one period value it shows.
          arbitraries: {
            '/amount': decimal,
            '/threshold': decimal,
            '/limit': fc.record({
              amount: fc.integer({ min: 1, max: 100_000 }).map((c) => c / 100),
              period: fc.constant('day'),
            }),
          },
        },
      },
    }),
    positives: {
      rules: [],
      accepted: 'WALLETS.AUTO_TOPUP.PERIOD_DAY#accepted',
      registry: ['WALLETS.AUTO_TOPUP.SHAPE', 'WALLETS.AUTO_TOPUP.PERIOD_DAY#kept'],
    },
  },
  {
    operationId: 'createInvoiceRefund',
    inputs: async (t) => ({ ids: { id: (await t.fixture((f) => f.paidInvoice())).invoiceId } }),
    negativesOnly: 'a valid refund issues a credit note: the refunds suite covers it',
    destructiveNegatives: true,
  },
];

function rulesFor(c: OperationCases, pointer: string, kind: ConstraintKind): string[] {
  return [
    CONSTRAINT_RULE[kind],
    ...(c.rules?.[`${pointer} ${kind}`] ?? []),
    ...(c.rules?.[pointer] ?? []),
    ...(c.rules?.[kind] ?? []),
  ];
}

/** The family rules of the documented bounds a plan sits on (taxRates 0 or 100, externalId of 255...). */
function edgeRules(c: OperationCases, op: GenOperation, plan: RequestPlan): string[] {
  const values = { path: plan.pathParams, query: plan.query, body: plan.body };
  const out: string[] = [];
  for (const location of ['path', 'query', 'body'] as const) {
    for (const k of documentedConstraints(op.inputs[location], location, statedFor(op.operationId, location))) {
      const v = valueAt(values[location], k.pointer);
      if (v !== undefined && edgeValidValues(k).includes(v))
        out.push(...(c.edges?.[`${k.pointer} ${k.kind}`] ?? []), ...(c.edges?.[k.pointer] ?? []));
    }
  }
  return out;
}

async function inputsOf(c: OperationCases, t: ScenarioContext): Promise<Inputs> {
  const { options = {}, ...rest } = await c.inputs(t);
  return { ...rest, options };
}

function operation(operationId: string): GenOperation {
  const op = fromSpec(spec, operationId);
  if (op.extension) throw new Error(`${operationId} is a reference extension: never generated against a target`);
  return op;
}

describe('contract: generated requests', () => {
  for (const c of CASES) {
    const op = operation(c.operationId);
    const where = `${op.method} ${op.path}`;

    if (c.positives) {
      const p = c.positives;
      const own = ['VALIDATION.VALID_REQUEST.NOT_400', ...p.rules, ...(p.accepted ? [p.accepted] : [])];
      scenario(
        [...own, ...(p.registry ?? [])],
        `${where}: valid generated requests are not refused and conform`,
        async (t) => {
          const { ids, options, parent } = await inputsOf(c, t);
          const label = `${c.operationId} positive`;
          await checkPositives(t, positiveRequests(op, ids, options), {
            op,
            label,
            numRuns: RUNS[t.target.profile].positive,
            rules: own,
            accepted: p.accepted,
            inspect: p.inspect,
            examples: positiveEdgeExamples(op, ids, options, t.target.seed),
            citeAlso: (plan) => edgeRules(c, op, plan),
            ...(parent ? { parent } : {}),
          });
          // Values the document neither allows nor forbids: the registry judges each answer; a
          // well-formed refusal is the target's own rule (counted apart, never a failure).
          await sendEdges(t, undocumentedEdgeRequests(op, ids, options, t.target.seed), parent);
        },
        { concurrent: true },
      );
    }

    const someIds = Object.fromEntries(Object.keys(op.inputs.path?.properties ?? {}).map((k) => [k, 'x']));
    const constraints = negativeRequests(op, someIds).map((n) => n.constraint);
    if (constraints.length === 0) continue;
    const ruleIds = [...new Set(constraints.flatMap((k) => rulesFor(c, k.pointer, k.kind)))];
    scenario(
      ruleIds,
      `${where}: each documented constraint broken alone gets ` +
        `400${constraints.some((k) => k.location === 'path') ? ' (404 allowed for a path id)' : ''}`,
      async (t) => {
        if (!c.positives && c.negativesOnly) t.note(`${c.operationId}: negatives only (${c.negativesOnly})`);
        const { ids, options } = await inputsOf(c, t);
        for (const plan of negativeRequests(op, ids, options)) {
          const k = plan.constraint;
          if (Object.values(ids).includes(PLACEHOLDER_ID) && k.location !== 'path')
            throw new Error(`${c.operationId}: ${k.location} ${k.pointer} needs a real id, not the placeholder`);
          await checkNegatives(t, plan, {
            label: `${c.operationId} negative ${k.location} ${k.pointer} ${k.kind}`,
            numRuns: RUNS[t.target.profile].negative,
            rules: rulesFor(c, k.pointer, k.kind),
          });
        }
      },
      { concurrent: true, destructive: c.destructiveNegatives },
    );
  }
});

describe('contract: bodies that are not JSON', () => {
  // "400: request not understood": a body that cannot be parsed is the plainest case.
  // The registry judges the status (checks/refusals.ts) and the 400 body (error-shape.ts); the read after is this scenario's.
  scenario(
    ['ERRORS.400.BODY'],
    'a malformed JSON body is not understood: 400 in Error shape, nothing changed',
    async (t: ScenarioContext) => {
      const { customerId } = await t.fixture((f) => f.customer());
      const path = spec.pathFor('updateCustomer', { id: customerId });
      const res = await t.http.patch(path, '{"externalId": "conform-malformed"', { brokenOnPurpose: true });
      t.precondition(res.status === 400, 'the malformed body refused with 400', res);
      const read = await t.http.get(path);
      t.expectRule(
        'ERRORS.400.BODY#changes-nothing',
        requireSuccess(t, read, 'reading the customer back').externalId !== 'conform-malformed',
        'the refused body changed nothing',
        read,
      );
    },
    { concurrent: true },
  );
});
