/**
 * No request produces a 5xx: a property-based run over every operation of the spec (the
 * engine's generators from the request schemas plus hostile values, see ../fuzz/requests.ts),
 * FUZZ_RUNS requests per operation (default 12), seeded by FUZZ_SEED (default fixed, so npm
 * test is repeatable), on PGlite and, when DATABASE_URL is set, once on PostgreSQL.
 * FUZZ_OP=<operationId> replays one operation; FUZZ_SWEEP sets the hostile values per field. `npm run fuzz:server` sends 100,000 over HTTP.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deriveSeed } from '../../../src/engine/generators/index.ts';
import { loadSpec, type Spec } from '../../../src/contract/index.ts';
import {
  fuzzOrder,
  fuzzRequests,
  seedResources,
  sweepRequests,
  type ExistingIds,
  type FuzzRequest,
} from '../fuzz/requests.ts';
import { drivers, isolatedPgUrl } from './drivers.ts';
import { startTestServer, type TestServer } from './helpers.ts';

const RUNS = Number(process.env.FUZZ_RUNS ?? 12);
const SEED = Number(process.env.FUZZ_SEED ?? 20261124);
const ONLY = process.env.FUZZ_OP;
/** Hostile values per declared field in the sweep (default 3, the most telling). */
const SWEEP = Number(process.env.FUZZ_SWEEP ?? 3);

const describeExchange = (r: FuzzRequest, res: { body: unknown }) =>
  `${r.method} ${r.url} ${r.payload?.slice(0, 300) ?? ''} -> ${JSON.stringify(res.body)?.slice(0, 300)}`;

describe.each(drivers)('fuzz: every operation on $name', (driver) => {
  let s: TestServer;
  let spec: Spec;
  let ids: ExistingIds;
  let dispose: () => Promise<void> = async () => {};
  const serverErrors: string[] = [];
  const operations = () => fuzzOrder(spec).filter((op) => !ONLY || op.operationId === ONLY);

  beforeAll(async () => {
    if (driver.skip) return;
    spec = await loadSpec();
    const huge = Object.fromEntries(
      [...spec.operations.values()].filter((op) => op.rateLimit).map((op) => [op.operationId, 1_000_000_000]),
    );
    const errorLog = (line: string) => serverErrors.push(line);
    if (driver.name.startsWith('PGlite')) {
      s = await startTestServer({ rateLimits: huge, errorLog });
    } else {
      const pgUrl = await isolatedPgUrl();
      s = await startTestServer({ rateLimits: huge, errorLog, database: pgUrl.url });
      dispose = pgUrl.drop;
    }
    ids = await seedResources(
      (method, url, body) => s.call(method, url, body === undefined ? {} : { body }),
      s.merchantId,
    );
  });
  afterAll(async () => {
    await s?.close();
    await dispose();
  });

  const send = (r: FuzzRequest) =>
    s.call(
      r.method,
      r.url,
      r.payload === undefined ? {} : { payload: r.payload, headers: { 'content-type': 'application/json' } },
    );

  it.skipIf(driver.skip)(
    'answers each declared body field, given its most telling hostile values in turn, below 500',
    async () => {
      let sent = 0;
      for (const op of operations()) {
        for (const r of sweepRequests(spec, op, ids, deriveSeed(SEED, op.operationId), SWEEP)) {
          const res = await send(r);
          sent++;
          expect(res.status, describeExchange(r, res)).toBeLessThan(500);
        }
      }
      if (!ONLY) expect(sent).toBeGreaterThan(500);
      expect(serverErrors).toEqual([]);
    },
    300_000,
  );

  it.skipIf(driver.skip)(
    `answers every generated request below 500 (${RUNS} per operation, seed ${SEED})`,
    async () => {
      let sent = 0;
      for (const op of operations()) {
        try {
          await fc.assert(
            fc.asyncProperty(fuzzRequests(spec, op, ids), async (r) => {
              const res = await send(r);
              sent++;
              expect(res.status, describeExchange(r, res)).toBeLessThan(500);
            }),
            { numRuns: RUNS, seed: deriveSeed(SEED, op.operationId) },
          );
        } catch (err) {
          throw new Error(
            `${op.operationId}: ${(err as Error).message}\nreplay: FUZZ_SEED=${SEED} FUZZ_RUNS=${RUNS} FUZZ_OP=${op.operationId} npx vitest run test/reference/platform/fuzz.test.ts`,
          );
        }
      }
      expect(sent).toBeGreaterThanOrEqual(operations().length * RUNS);
      expect(serverErrors).toEqual([]);
    },
    300_000,
  );
});
