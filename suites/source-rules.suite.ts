/**
 * Source rules (Endpoints > Source rules): a PATCH changes only the fields it gives.
 * Every scenario works on resources of its own: all run concurrently.
 */
import { scenario, type ScenarioContext } from '../src/engine/scenario/index.ts';
import type { Exchange } from '../src/engine/types.ts';
import { loadRules, loadSpec } from '../src/contract/index.ts';
import { concurrent, isDateTime, requireAccepted, uniqueTag, type Json } from './support.ts';

const RULES = await loadRules();
const spec = await loadSpec();
const rulePath = (ruleId: string) => spec.pathFor('updateSourceRule', { ruleId });
/** What each condition of a source rule holds (SOURCE_RULES.UPDATE.PARTIAL, params.documented.conditions). */
const CONDITION_FIELDS = (RULES.byId('SOURCE_RULES.UPDATE.PARTIAL')?.params?.documented as { conditions: string[] })
  .conditions;

function expectRuleObject(t: ScenarioContext, ex: Exchange, ruleId: string): Json {
  const r = requireAccepted(t, ex, `PATCH /v0/sourceRules/${ruleId}`);
  const types: Record<string, (v: unknown) => boolean> = {
    // Conventions: representations carry `object` holding the resource type name. Which name a
    // source rule carries is not shown; an empty string names none.
    object: (v) => typeof v === 'string' && v.trim().length > 0,
    id: (v) => v === ruleId,
    conditions: (v) =>
      Array.isArray(v) && v.every((c) => !!c && typeof c === 'object' && CONDITION_FIELDS.every((k) => k in c)),
    createdAt: isDateTime,
    updatedAt: isDateTime,
    description: (v) => typeof v === 'string',
    enabled: (v) => typeof v === 'boolean',
    evaluationCount: Number.isInteger,
    matchCount: Number.isInteger,
    name: (v) => typeof v === 'string',
    order: Number.isInteger,
    sourceId: (v) => typeof v === 'string',
  };
  const bad = Object.entries(types)
    .filter(([k, ok]) => !ok(r[k]))
    .map(([k]) => `${k}=${JSON.stringify(r[k])}`);
  t.expectRule(
    'SOURCE_RULES.UPDATE.OBJECT',
    bad.length === 0,
    `the source rule carries every required field, conditions as {type, operator, value} (bad: ${bad.join(', ')})`,
    ex,
  );
  return r;
}

scenario(
  ['SOURCE_RULES.UPDATE.PARTIAL', 'SOURCE_RULES.UPDATE.OBJECT'],
  'PATCH /v0/sourceRules/{ruleId} changes only the fields given',
  async (t) => {
    const { ruleId } = await t.fixture((f) => f.sourceRule());
    const path = rulePath(ruleId);
    // No read endpoint is documented: the answer of a first PATCH is the baseline.
    const current = expectRuleObject(
      t,
      await t.http.patch(path, { description: `conform baseline ${uniqueTag()}` }),
      ruleId,
    );
    const steps: Json[] = [
      { name: `Conform renamed ${uniqueTag()}` },
      { enabled: !current.enabled, order: (Number.isInteger(current.order) ? current.order : 0) + 5 },
      { conditions: [{ type: 'amount', operator: 'gte', value: '1.00' }] },
      { description: `conform changed ${uniqueTag()}` },
    ];
    // The answer holding the fields sent is the source-rule-updated check's, the fields not sent
    // answering as the answer before had them (#keeps-others) the partial-updates check's.
    for (const patch of steps) expectRuleObject(t, await t.http.patch(path, patch), ruleId);
  },
  concurrent,
);

scenario(
  ['STATUS.404.UNKNOWN_RESOURCE', 'VALIDATION.TYPE.400'],
  'an unknown source rule gets 404; a non-integer order gets 400',
  async (t) => {
    const unknown = await t.http.patch(rulePath('srule_conform0unknown'), { name: 'nobody' });
    t.expectStatus('STATUS.404.UNKNOWN_RESOURCE', unknown, 404);
    const { ruleId } = await t.fixture((f) => f.sourceRule());
    // Its refusal is the registry's (checks/refusals.ts).
    await t.http.patch(rulePath(ruleId), { order: 'first' }, { brokenOnPurpose: true });
  },
  concurrent,
);
