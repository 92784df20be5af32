// StrykerJS over the reference server; the tests are the conformance suites (quick
// profile) run against the mutated server through mutation/conform-test-runner.js.
// `npm run mutation`; reviewed survivors: mutation/survivors.yaml.
const here = (p) => new URL(p, import.meta.url).pathname;

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  plugins: [here('./conform-test-runner.js')],
  testRunner: 'conform',
  coverageAnalysis: 'perTest',
  // The default subset: the code that carries the document's behavioural rules (migration,
  // items, refunds, delete blockers, rate limits, error bodies, webhooks, payments, source
  // rules). Every mutant runs conform processes of 5-45 s, so all of src/reference (3800
  // mutants) takes about ten hours on two cores; this subset keeps a run under an hour.
  // Other areas: npm run mutation -- --mutate 'src/reference/domain/customers.ts'
  mutate: [
    'src/reference/domain/migration.ts',
    'src/reference/domain/items.ts',
    'src/reference/domain/refunds.ts',
    'src/reference/domain/blockers.ts',
    'src/reference/ratelimit/*.ts',
    'src/reference/http/rateLimit.ts',
    'src/reference/http/errorHandler.ts',
    'src/reference/plugins/webhooks.ts',
    'src/reference/plugins/payments.ts',
    'src/reference/plugins/sources.ts',
  ],
  concurrency: 2,
  timeoutMS: 20_000,
  timeoutFactor: 1.5,
  disableTypeChecks: 'src/**/*.ts',
  conform: { workers: 1, seed: 1, dryRunParallel: 2 },
  warnings: { unknownOptions: false }, // `conform` is the test runner's own section
  incrementalFile: 'reports/mutation/stryker-incremental.json',
  reporters: ['clear-text', 'progress', 'html', 'json'],
  htmlReporter: { fileName: 'reports/mutation/mutation.html' },
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  tempDirName: '.stryker-tmp',
  cleanTempDir: true,
};
