/**
 * The registry's version-migration judges (src/engine/checks/migration.ts, migration-stream.ts)
 * against spec/openapi.yaml: each holds on a conformant exchange or stream and fails on the
 * deviation it names; what the exchanges do not show is not judged.
 */
import { beforeAll, describe, expect, test } from 'vitest';
import { loadRules, loadSpec, type RuleIndex, type Spec } from '../../src/contract/index.ts';
import { checkContextFor, type CheckOutcome } from '../../src/engine/checks/index.ts';
import { CheckStream } from '../../src/engine/checks/stream.ts';
import { migrationAnswer, migrationConflictCode, migrationTargetRange } from '../../src/engine/checks/migration.ts';
import { migrationRangeShown, migrationSameVersion } from '../../src/engine/checks/migration-stream.ts';
import type { Exchange } from '../../src/engine/types.ts';

let contract: { spec: Spec; rules: RuleIndex };
beforeAll(async () => {
  contract = { spec: await loadSpec(), rules: await loadRules() };
});

const SHAPE = 'MIGRATION.RESPONSE.SHAPE';
const TO = 'MIGRATION.RESPONSE.VERSION_NUMBERS#to-requested';
const PINS = 'MIGRATION.EFFECT.PINS';
const CODE = 'MIGRATION.409.CODE_VALUES';
const RANGE = 'MIGRATION.400.TARGET_RANGE';
const NO_CHANGE = 'MIGRATION.SAME_VERSION.NO_CHANGE';
const PATH = '/v0/subscriptions/sub_1/versionMigration';

const answer = (
  from: number,
  to: number,
  over: { changed?: boolean; policy?: string; versionNumber?: unknown } = {},
) => ({
  subscription: {
    object: 'subscription',
    id: 'sub_1',
    versionPolicy: over.policy ?? 'pinned',
    versionNumber: 'versionNumber' in over ? over.versionNumber : from,
  },
  migration: {
    fromVersionNumber: from,
    toVersionNumber: to,
    effectiveAt: '2030-02-01T00:00:00Z',
    changed: over.changed ?? from !== to,
  },
  lineItems: { syncFailed: false },
});

interface Step {
  to?: unknown;
  /** The body sent, when not `{ targetVersionNumber: to }`. */
  sent?: unknown;
  status: number;
  got?: unknown;
  method?: string;
  path?: string;
  credential?: string;
  brokenOnPurpose?: boolean;
  /** Minutes after the previous exchange (default: none). */
  after?: number;
}

/** A stream through the migration judges only; `rules` replaces spec/rules.yaml. */
class Stream {
  private readonly stream = new CheckStream([
    migrationAnswer,
    migrationConflictCode,
    migrationTargetRange,
    migrationRangeShown,
    migrationSameVersion,
  ]);
  private clock = Date.parse('2030-01-01T00:00:00Z');
  readonly judged = new Map<string, number>();
  readonly findings: CheckOutcome['findings'] = [];

  constructor(private readonly rules?: RuleIndex) {}

  send(step: Step): this {
    this.clock += 20 + (step.after ?? 0) * 60_000;
    const got = step.got;
    const exchange: Exchange = {
      method: step.method ?? 'POST',
      path: step.path ?? PATH,
      url: `http://target${step.path ?? PATH}`,
      requestHeaders: { authorization: 'Bearer $CONFORM_API_KEY', 'content-type': 'application/json' },
      requestBody: step.sent ?? { targetVersionNumber: step.to },
      status: step.status,
      responseHeaders: got === undefined ? {} : { 'content-type': 'application/json' },
      body: got,
      rawBody: got === undefined ? '' : JSON.stringify(got),
      durationMs: 5,
      startedAt: new Date(this.clock).toISOString(),
    };
    const ctx = checkContextFor(
      { ...contract, ...(this.rules ? { rules: this.rules } : {}) },
      exchange,
      step.brokenOnPurpose ? { brokenOnPurpose: true } : {},
    );
    const out = this.stream.observe({ exchange, ctx, credential: step.credential ?? 'primary' });
    expect(out.errors).toEqual([]);
    for (const r of out.judged) this.judged.set(r, (this.judged.get(r) ?? 0) + 1);
    this.findings.push(...out.findings);
    return this;
  }

  /** passed, failed, or undefined when nothing judged `rule`. */
  verdict(rule: string): 'passed' | 'failed' | undefined {
    if (this.findings.some((f) => f.ruleIds.includes(rule))) return 'failed';
    return this.judged.has(rule) ? 'passed' : undefined;
  }
}

const verdicts = (s: Stream, rules: string[]) => rules.map((r) => s.verdict(r));

describe('migration-answer: an accepted migration against its request', () => {
  test('the documented shape, the version asked and the pin hold', () => {
    const s = new Stream().send({ to: 2, status: 200, got: answer(1, 2) });
    expect(verdicts(s, [SHAPE, TO, PINS])).toEqual(['passed', 'passed', 'passed']);
  });

  test('each deviation fails its rule, naming it', () => {
    const { lineItems: _, ...noLineItems } = answer(1, 2);
    const cases: [unknown, unknown, string, RegExp][] = [
      [2, noLineItems, SHAPE, /lineItems is not an object/],
      [
        2,
        { ...answer(1, 2), subscription: { ...answer(1, 2).subscription, id: 'sub_2' } },
        SHAPE,
        /not subscription sub_1/,
      ],
      [2, answer(1, 2, { changed: false }), SHAPE, /a move from version 1 to 2 answers changed false/],
      [3, answer(1, 2), TO, /asked 3, answered 2/],
      [2, answer(1, 2, { policy: 'floating' }), PINS, /versionPolicy "floating"/],
    ];
    for (const [to, got, rule, message] of cases) {
      const s = new Stream().send({ to, status: 200, got });
      expect(s.verdict(rule), rule).toBe('failed');
      expect(s.findings.find((f) => f.ruleIds.includes(rule))?.message).toMatch(message);
    }
  });

  test('a refusal, or an answer to a request breaking a constraint, is not judged here', () => {
    const refused = new Stream().send({ to: 2, status: 404, got: { message: 'no such version' } });
    const broken = new Stream().send({ to: 0, status: 200, got: answer(1, 0) });
    for (const s of [refused, broken])
      expect(verdicts(s, [SHAPE, TO, PINS])).toEqual([undefined, undefined, undefined]);
  });
});

describe('migration-conflict-code: a 409 code in UPPER_SNAKE_CASE', () => {
  const conflict = (code?: unknown) => ({ message: 'not live', ...(code === undefined ? {} : { code }) });

  test('an UPPER_SNAKE_CASE code holds; a lower-case one or a number fails; no code is not judged here', () => {
    const of = (code?: unknown) => new Stream().send({ to: 2, status: 409, got: conflict(code) }).verdict(CODE);
    expect([of('SUBSCRIPTION_NOT_LIVE'), of('subscription_not_live'), of(7), of()]).toEqual([
      'passed',
      'failed',
      'failed',
      undefined,
    ]);
  });

  test('the pattern is ERRORS.CODE.UPPER_SNAKE’s in spec/rules.yaml', () => {
    const rules = changed('ERRORS.CODE.UPPER_SNAKE', { pattern: '^[a-z_]+$' });
    expect(new Stream(rules).send({ to: 2, status: 409, got: conflict('subscription_not_live') }).verdict(CODE)).toBe(
      'passed',
    );
  });
});

/** spec/rules.yaml with `params` of rule `id` replaced. */
function changed(id: string, params: Record<string, unknown>): RuleIndex {
  return {
    ...contract.rules,
    byId: (r: string) => (r === id ? { ...contract.rules.byId(r)!, params } : contract.rules.byId(r)),
  };
}

describe('migration-target-range: an invalid targetVersionNumber gets 400', () => {
  test('400 holds; a 2xx fails; another refusal is judged only when the scenario broke the target alone on purpose', () => {
    const of = (step: Step) => new Stream().send(step).verdict(RANGE);
    const bad = { message: 'bad' };
    expect(of({ to: 0, status: 400, got: bad })).toBe('passed');
    expect(of({ to: '3', status: 200, got: answer(1, 3) })).toBe('failed');
    expect(of({ sent: {}, status: 200, got: answer(1, 1) })).toBe('failed');
    expect(of({ to: 1.5, status: 404, got: bad })).toBeUndefined();
    expect(of({ to: 1.5, status: 404, got: bad, brokenOnPurpose: true })).toBe('failed');
    expect(of({ to: 0, status: 429, got: bad, brokenOnPurpose: true })).toBeUndefined();
    // In range: not this rule's.
    expect(of({ to: 2, status: 400, got: bad })).toBeUndefined();
  });

  test('the range is the rule’s params in spec/rules.yaml', () => {
    const rules = changed(RANGE, { minimum: 1, maximum: 5 });
    expect(new Stream(rules).send({ to: 6, status: 200, got: answer(1, 6) }).verdict(RANGE)).toBe('failed');
    expect(new Stream().send({ to: 6, status: 200, got: answer(1, 6) }).verdict(RANGE)).toBeUndefined();
  });
});

describe('migration-range-shown: 404 to an invalid target on a subscription the stream shows', () => {
  const shown: Step = { to: 2, status: 409, got: { message: 'not live', code: 'SUBSCRIPTION_NOT_LIVE' } };
  const notFound = (to: unknown, over: Partial<Step> = {}): Step => ({
    to,
    status: 404,
    got: { message: 'no such version' },
    ...over,
  });

  test('a 404 after or before the stream shows the subscription to the same key fails; an in-range 404 is not judged', () => {
    expect(new Stream().send(shown).send(notFound(0)).verdict(RANGE)).toBe('failed');
    const before = new Stream().send(notFound('3'));
    expect(before.verdict(RANGE)).toBeUndefined();
    expect(before.send({ to: 2, status: 200, got: answer(1, 2) }).verdict(RANGE)).toBe('failed');
    expect(new Stream().send(shown).send(notFound(7)).verdict(RANGE)).toBeUndefined();
  });

  test('a reference extension’s answer (never judged itself) shows the subscription too, before or after', () => {
    const read: Step = {
      method: 'GET',
      path: '/v0/subscriptions/sub_1',
      status: 200,
      got: { object: 'subscription', id: 'sub_1' },
    };
    expect(new Stream().send(read).send(notFound(0)).verdict(RANGE)).toBe('failed');
    const after = new Stream().send(notFound(0)).send(read);
    expect(after.verdict(RANGE)).toBeUndefined();
    expect(
      after.send({ method: 'GET', path: '/v0/alerts?resourceId=wal_1', status: 200, got: {} }).verdict(RANGE),
    ).toBe('failed');
  });

  test('never shown, shown to another key or long before: not judged', () => {
    expect(new Stream().send(notFound(0)).verdict(RANGE)).toBeUndefined();
    expect(
      new Stream()
        .send({ ...shown, credential: 'other' })
        .send(notFound(0))
        .verdict(RANGE),
    ).toBeUndefined();
    expect(
      new Stream()
        .send(shown)
        .send(notFound(0, { after: 11 }))
        .verdict(RANGE),
    ).toBeUndefined();
  });
});

describe('migration-same-version: migrating again to the version a same-version migration left changes nothing', () => {
  const same = (over: Parameters<typeof answer>[2] = {}): Step => ({ to: 2, status: 200, got: answer(2, 2, over) });

  test('the repeat answering changed false on the same version holds; changed true or another version fails', () => {
    expect(new Stream().send(same()).send(same()).verdict(NO_CHANGE)).toBe('passed');
    const changedTrue = new Stream().send(same()).send(same({ changed: true }));
    expect(changedTrue.verdict(NO_CHANGE)).toBe('failed');
    expect(changedTrue.findings[0].message).toMatch(/left subscription sub_1 on version 2 .*changed true/);
    expect(
      new Stream()
        .send(same())
        .send(same({ versionNumber: 3 }))
        .verdict(NO_CHANGE),
    ).toBe('failed');
  });

  test('not judged: a first same-version migration, a move or another write between (a reference extension’s too), another key, long after', () => {
    const cases: Step[][] = [
      [same({ changed: true })],
      [same(), { to: 3, status: 200, got: answer(2, 3) }, same({ changed: true })],
      [
        same(),
        { method: 'PATCH', path: '/v0/subscriptions/sub_1', sent: { versionPolicy: 'floating' }, status: 200 },
        same({ changed: true }),
      ],
      [same(), { path: '/v0/subscriptions/sub_1/cancel', sent: {}, status: 200, got: {} }, same({ changed: true })],
      [{ ...same(), credential: 'other' }, same({ changed: true })],
      [same(), { ...same({ changed: true }), after: 11 }],
    ];
    for (const steps of cases) {
      const s = new Stream();
      for (const step of steps) s.send(step);
      expect(s.verdict(NO_CHANGE), JSON.stringify(steps)).toBeUndefined();
    }
  });

  test('a refusal between changes nothing: the repeat is still judged', () => {
    const s = new Stream().send(same()).send({ to: 99, status: 404, got: { message: 'no such version' } });
    expect(s.send(same({ changed: true })).verdict(NO_CHANGE)).toBe('failed');
  });
});
