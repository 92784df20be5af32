import { defineConfig } from 'vitest/config';

// Project tests (npm test). The scenario suites in suites/ are run by `conform run`, not here.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
