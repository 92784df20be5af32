/**
 * Runs a state model against the target: fast-check generates sequences of documented
 * operations (`fc.commands`), each run on fresh resources from the fixtures; the check registry
 * judges every answer, and the model what needs its own knowledge. Seeded by the run's seed,
 * bounded by the profile. A broken property (or a finding of the registry) shrinks to the
 * shortest sequence that still breaks it, reported once with a replay script of that whole
 * sequence. Sequences continue, batch after batch, until every part only the model
 * judges was judged or found unjudgeable (within the profile's bound).
 */
import fc from 'fast-check';
import type { ScenarioContext } from '../scenario/types.ts';
import { deriveSeed } from '../generators/seed-replay.ts';
import { ModelJudge, ModelViolation } from './judge.ts';
import { ModelHttp } from './state.ts';
import { loadSpec } from '../../contract/index.ts';

export interface ModelBounds {
  /** Sequences per batch. */
  runs: number;
  /** Batches at most, while some part is still unjudged. */
  batches: number;
  maxCommands: number;
  /** Cap on one batch, shrinking included. */
  timeLimitMs: number;
}

export const MODEL_BOUNDS: Record<'quick' | 'full', ModelBounds> = {
  quick: { runs: 3, batches: 4, maxCommands: 8, timeLimitMs: 30_000 },
  full: { runs: 15, batches: 4, maxCommands: 16, timeLimitMs: 90_000 },
};

export interface StateModel<M extends object, R> {
  /** Names the model in reports; with the run seed it derives the model's own seeds. */
  label: string;
  /**
   * The parts the model sets out to judge (the scenario cites them): batches continue until each
   * was judged or found unjudgeable. Any other part the model judges counts as the sequences
   * reach it (as a check's judgements do), and a part no sequence reached is no gap.
   */
  parts: readonly string[];
  /** Fresh resources and an empty model for one sequence. */
  setup(http: ModelHttp, judge: ModelJudge): Promise<{ model: M; real: R }>;
  commands: fc.Arbitrary<fc.AsyncCommand<M, R>>[];
  /** After the commands: reads back what the model holds (the sequence's final state). */
  sweep?(model: M, real: R): Promise<void>;
}

/** A command of the model that, once run, ends the sequence on a finding of the registry (ModelHttp.settle). */
class Settled<M extends object, R> implements fc.AsyncCommand<M, R> {
  constructor(
    readonly cmd: fc.AsyncCommand<M, R>,
    readonly http: () => ModelHttp | undefined,
  ) {}
  check = (m: Readonly<M>) => this.cmd.check(m);
  async run(m: M, r: R): Promise<void> {
    await this.cmd.run(m, r);
    this.http()?.settle();
  }
  toString = () => this.cmd.toString();
}

interface Failure {
  violation: ModelViolation;
  script: string;
  sequence: string;
}

const MAX_RECORDED = 1000;

/** Runs the model's sequences and records its judgements, failure and gaps on the scenario. */
export async function runModel<M extends object, R>(t: ScenarioContext, m: StateModel<M, R>): Promise<void> {
  const bounds = MODEL_BOUNDS[t.target.profile];
  const judge = new ModelJudge(await loadSpec());
  let failure: Failure | undefined;
  // Anything but a violation (a fixture missing, the scenario's time up, the tool's own bug) stops the runs.
  let aborted: unknown;
  const why = [
    'the state model judged this sequence: the state its first requests made is what the last one broke.',
    'Ids are of resources the fixtures made for it: a replay on another target needs fresh ones.',
  ];
  // The client of the sequence running (one at a time).
  let current: ModelHttp | undefined;
  const commands = m.commands.map((c) => c.map((cmd) => new Settled(cmd, () => current)));
  const property = fc.asyncProperty(
    fc.commands(commands, { maxCommands: bounds.maxCommands, disableReplayLog: true }),
    async (cmds) => {
      if (aborted !== undefined) return;
      const http = new ModelHttp(t);
      current = http;
      try {
        const s = await m.setup(http, judge);
        await fc.asyncModelRun(async () => s, cmds);
        if (m.sweep) {
          http.comment('the model reads back what it holds');
          await m.sweep(s.model, s.real);
        }
        http.settle();
      } catch (err) {
        if (!(err instanceof ModelViolation)) {
          aborted = err;
          return;
        }
        const sequence = `[${String(cmds)}]${m.sweep ? ' then the read-back' : ''}`;
        failure = { violation: err, script: http.sequence.script(`${m.label}: ${sequence}`, why), sequence };
        throw err;
      }
    },
  );
  let runs = 0;
  let details: fc.RunDetails<[Iterable<fc.AsyncCommand<M, R>>]> | undefined;
  for (let batch = 0; batch < bounds.batches; batch++) {
    details = await fc.check(property, {
      seed: deriveSeed(t.target.seed, `${m.label}#${batch}`),
      numRuns: bounds.runs,
      interruptAfterTimeLimit: bounds.timeLimitMs,
    });
    runs += details.numRuns;
    if (aborted !== undefined || details.failed || judge.settled(m.parts)) break;
  }
  record(t, m, judge, runs, failure, details);
  if (aborted !== undefined) throw aborted;
}

function record<M extends object, R>(
  t: ScenarioContext,
  m: StateModel<M, R>,
  judge: ModelJudge,
  runs: number,
  failure: Failure | undefined,
  details: fc.RunDetails<[Iterable<fc.AsyncCommand<M, R>>]> | undefined,
): void {
  for (const [key, n] of judge.judged) {
    if (failure && [failure.violation.key, ...failure.violation.also].includes(key)) continue;
    for (let i = 0; i < Math.min(n, MAX_RECORDED); i++) t.softExpectRule(key, true, `${m.label}: held`);
  }
  if (failure && details?.failed) {
    const v = failure.violation;
    const shrunk = details.interrupted ? ' (shrinking stopped at the time limit: the sequence may not be minimal)' : '';
    for (const key of [v.key, ...v.also])
      t.softExpectRule(
        key,
        false,
        `${v.detail}\n  after the generated sequence ${failure.sequence}, shrunk from a failing run of ${m.label} ` +
          `(${details.numRuns} run(s), ${details.numShrinks} shrink(s))${shrunk}; seed ${details.seed}, ` +
          `path ${JSON.stringify(details.counterexamplePath ?? '')} (rerun the whole run with --seed ${t.target.seed})`,
        v.exchange,
        { replaySequence: failure.script, seed: details.seed, counterexample: failure.sequence },
      );
  }
  // A failure ends the runs: what no sequence reached by then was stopped by it, and says so.
  const stoppedBy =
    failure && details?.failed
      ? `${m.label}: not reached before the failure of ${failure.violation.key} ended the sequences ` +
        `(${failure.violation.detail.split('\n')[0].slice(0, 160)})`
      : undefined;
  for (const key of m.parts) {
    if (judge.judged.has(key)) continue;
    const u = judge.unjudged.get(key);
    t.ruleNotJudged(
      key,
      u
        ? u.reason
        : (stoppedBy ?? `${m.label}: none of the ${runs} generated sequences (seed ${t.target.seed}) reached it`),
      u?.category ?? 'target',
    );
  }
}
