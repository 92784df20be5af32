import { defineConfig } from 'vitest/config';

/**
 * Test files whose runs measure rate-limit windows or time a target's answers. They run after
 * the rest, two at a time (not the four or more processes of the shared group), so other
 * tests' load stretches their round trips little; most of them wait on windows, not the CPU.
 */
const ALONE = [
  'test/suites/rate-limits.test.ts',
  'test/suites/rate-limits-faults.test.ts',
  'test/faults/faults-e2e.test.ts',
  'test/passive/agreement.test.ts',
  'test/passive/faults.test.ts',
  'test/engine/cli-run-reference.test.ts',
  'test/engine/report-red-gate.test.ts',
  'test/engine/honest-reasons.test.ts',
  'test/reference/platform/ratelimit.test.ts',
  'test/sandbox/sandbox-example.test.ts',
  'test/examples/ci-github-run.test.ts',
  'test/packaging/first-hour.test.ts',
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
        test: { name: 'alone', include: ALONE, maxWorkers: 2, sequence: { groupOrder: 1 } },
      },
    ],
  },
});
