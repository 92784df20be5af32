import { defineConfig } from 'vitest/config';

/**
 * Test files whose runs measure rate-limit windows or time a target's answers. They run one at
 * a time, after the rest, so no other test's load stretches their round trips.
 */
const ALONE = [
  'test/suites/rate-limits.test.ts',
  'test/suites/rate-limits-faults.test.ts',
  'test/engine/faults/faults-e2e.test.ts',
  'test/engine/passive/agreement.test.ts',
  'test/engine/passive/faults.test.ts',
  'test/engine/cli-run-reference.test.ts',
  'test/engine/report-red-gate.test.ts',
  'test/reference/platform/ratelimit.test.ts',
  'test/sandbox/sandbox-example.test.ts',
];

// Project tests (npm test). The scenario suites in suites/ are run by `conform run`, not here.
export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    projects: [
      {
        extends: true,
        // Most of these tests wait on servers, not on the CPU: two files at a time.
        test: {
          name: 'shared',
          include: ['test/**/*.test.ts'],
          exclude: ALONE,
          maxWorkers: 2,
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: { name: 'alone', include: ALONE, maxWorkers: 1, sequence: { groupOrder: 1 } },
      },
    ],
  },
});
