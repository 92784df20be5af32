/**
 * Version migrations in the state model: sequences of migrations of one live subscription (the
 * fixtures' migration subscription, shared by the sequences of a scenario: none crosses the
 * boundary, so the version in use never moves) to the version in use, older and newer published
 * versions, an archived and a missing one. What each must do (Endpoints > Subscriptions,
 * States and transitions): an accepted migration pins the subscription, moves from the version
 * in use (a pending one has not taken effect) to the one asked for at the end of the current
 * period, and a second one replaces the first; a read (the fixtures': the document shows none)
 * finds the version in use kept until then; a same-version migration with nothing pending
 * can be repeated; an archived or missing version gets 404. The answer's shape, its
 * toVersionNumber, the pin and a same-version migration changing nothing are judged by the
 * registry on the exchanges the model sends (checks/migration.ts, migration-stream.ts).
 */
import fc from 'fast-check';
import type { ScenarioContext } from '../scenario/types.ts';
import type { MigrationFixture } from '../fixtures/types.ts';
import { is2xx } from '../checks/types.ts';
import { isFixtureUnavailable } from '../fixtures/types.ts';
import { loadSpec } from '../../contract/index.ts';
import { versionPolicies } from '../predicates.ts';
import { MIGRATION as P } from './parts.ts';
import type { ModelJudge } from './judge.ts';
import { bodyOf, compareInstants, observe, show, track, type Json, type ModelHttp, type Tracked } from './state.ts';
import type { StateModel } from './run.ts';

const spec = await loadSpec();
const POLICY = versionPolicies(spec);

/**
 * What the migrations model sets out to judge (its scenario cites these): every other part it
 * judges (the period end, a second migration replacing the first, same-version, 404s, targets
 * older and newer, timestamps) counts as the sequences reach it, the version-migration suite
 * judging each in a scenario of its own.
 */
export const MIGRATIONS_MODEL_PARTS = [P.accepted, P.fromInUse] as const;

type Target = 'same' | 'other' | 'archived' | 'missing';

export interface MigrationsModel {
  m: MigrationFixture;
  sub: Tracked;
  /** Pinned by an accepted migration (the first accepted one pins a floating subscription for good). */
  pinned: boolean;
  /** The version a migration of this sequence left pending; 'unknown' until one was accepted. */
  pending: number | undefined | 'unknown';
  /** The last command was an accepted same-version migration (nothing is pending after it). */
  lastSame: boolean;
}

export interface MigrationsReal {
  http: ModelHttp;
  judge: ModelJudge;
  /** The policy the subscription had when the scenario began, and whether a migration pinned it since. */
  shared: { pinned: boolean };
  read(): Promise<Json | undefined>;
}

type Cmd = fc.AsyncCommand<MigrationsModel, MigrationsReal>;

function versionFor(m: MigrationFixture, target: Target, i: number): number | undefined {
  const others = [...m.olderVersionNumbers, ...m.newerVersionNumbers];
  if (target === 'same') return m.currentVersionNumber;
  if (target === 'archived') return m.archivedVersionNumber;
  if (target === 'missing') return m.missingVersionNumber;
  return others.length ? others[i % others.length] : undefined;
}

class Migrate implements Cmd {
  constructor(
    readonly target: Target,
    readonly i: number,
  ) {}
  check = (s: Readonly<MigrationsModel>) => versionFor(s.m, this.target, this.i) !== undefined;
  toString = () => `migrate to ${this.target}${this.target === 'other' ? ` #${this.i}` : ''}`;

  async run(s: MigrationsModel, r: MigrationsReal): Promise<void> {
    const { m, sub } = s;
    const v = versionFor(m, this.target, this.i)!;
    const ex = await r.http.send('POST', spec.pathFor('migrateSubscriptionVersion', { id: sub.id }), {
      targetVersionNumber: v,
    });
    const pending = s.pending === undefined ? 'nothing' : show(s.pending);
    const what = `migrating subscription ${sub.id} (on version ${m.currentVersionNumber}, ${pending} pending) to version ${v}`;
    if (this.target === 'archived' || this.target === 'missing') {
      r.judge.judge(
        this.target === 'archived' ? P.archived404 : P.missing404,
        ex.status === 404,
        `${what} (${this.target}) answered ${ex.status ?? ex.transportError}`,
        ex,
      );
      s.lastSame = false;
      return;
    }
    const same = v === m.currentVersionNumber;
    const b = bodyOf(ex);
    const subscription = (b.subscription && typeof b.subscription === 'object' ? b.subscription : {}) as Json;
    const migration = (b.migration && typeof b.migration === 'object' ? b.migration : {}) as Json;
    r.judge.judge(P.accepted, is2xx(ex), `${what} answered ${ex.status ?? ex.transportError}`, ex);
    if (!same) r.judge.judge(v < m.currentVersionNumber ? P.older : P.newer, true, '');
    r.judge.judge(
      P.fromInUse,
      migration.fromVersionNumber === m.currentVersionNumber,
      `${what}: fromVersionNumber answers ${show(migration.fromVersionNumber)}`,
      ex,
    );
    if (!same) {
      r.judge.judge(
        P.atBoundary,
        compareInstants(migration.effectiveAt, m.currentPeriodEnd) === 0,
        `${what}: effectiveAt answers ${show(migration.effectiveAt)}, the current period ends ${m.currentPeriodEnd}`,
        ex,
      );
      // A second migration while the first is pending moves from the version in use, at the same boundary.
      if (typeof s.pending === 'number' && s.pending !== v)
        r.judge.judge(
          P.replaces,
          migration.fromVersionNumber === m.currentVersionNumber &&
            compareInstants(migration.effectiveAt, m.currentPeriodEnd) === 0,
          `${what}, replacing the pending one: from ${show(migration.fromVersionNumber)} at ${show(migration.effectiveAt)}`,
          ex,
        );
    } else if (s.pending === undefined && s.lastSame) {
      const changed = `${what}, the version in use with nothing pending: changed answers ${show(migration.changed)}`;
      r.judge.judge(P.repeatable, migration.changed === false && is2xx(ex), `repeated: ${changed}`, ex);
    }
    observe(r.judge, '', sub, subscription, ex, `POST /v0/subscriptions/${sub.id}/versionMigration`);
    s.lastSame = same;
    // The second migration replaces the first: to the version in use, nothing is pending any more.
    s.pending = same ? undefined : v;
    s.pinned = true;
    r.shared.pinned = true;
  }
}

/** The subscription as the fixtures read it: pinned once migrated, on the version in use until the boundary. */
async function readBack(s: MigrationsModel, r: MigrationsReal): Promise<void> {
  r.http.comment(`the fixtures read subscription ${s.sub.id} (the document shows no subscription read)`);
  const got = await r.read();
  if (!got) return;
  const where = `a read of subscription ${s.sub.id}`;
  if (s.pinned)
    r.judge.judge(
      P.accepted,
      got.versionPolicy === POLICY.pinned,
      `${where} after a migration: versionPolicy ${show(got.versionPolicy)}`,
    );
  r.judge.judge(
    P.inUseUntilBoundary,
    got.versionNumber === s.m.currentVersionNumber,
    `${where} before the boundary: version ${show(got.versionNumber)}, the one in use is ${s.m.currentVersionNumber}`,
  );
}

/** The migrations model of a scenario: one migration fixture for all its sequences. */
export async function migrationsModel(t: ScenarioContext): Promise<StateModel<MigrationsModel, MigrationsReal>> {
  const m = await t.fixture((f) => f.migration(POLICY.floating));
  const shared = { pinned: false };
  let reads = true;
  const read = async (): Promise<Json | undefined> => {
    if (!reads) return undefined;
    try {
      return (await t.fixture((f) => f.readSubscription(m.subscriptionId))) as Json;
    } catch (err) {
      if (!isFixtureUnavailable(err)) throw err;
      reads = false;
      return undefined;
    }
  };
  const target = fc.constantFrom<Target>('same', 'same', 'other', 'other', 'archived', 'missing');
  return {
    label: 'migrations model',
    parts: MIGRATIONS_MODEL_PARTS,
    commands: [fc.tuple(target, fc.nat({ max: 7 })).map(([k, i]) => new Migrate(k, i))],
    async setup(http, judge) {
      if (m.archivedVersionNumber === undefined)
        judge.cannot(P.archived404, 'the migration fixture names no archived plan version', 'fixture');
      if (!m.olderVersionNumbers.length)
        judge.cannot(P.older, 'the migration fixture names no older published version', 'fixture');
      if (!m.newerVersionNumbers.length)
        judge.cannot(P.newer, 'the migration fixture names no newer published version', 'fixture');
      const sub = track('subscription', m.subscriptionId);
      // What earlier sequences left pending on the shared subscription is unknown until a migration replaces it.
      const model: MigrationsModel = { m, sub, pinned: shared.pinned, pending: 'unknown', lastSame: false };
      return { model, real: { http, judge, shared, read } };
    },
    sweep: (s, r) => readBack(s, r),
  };
}
