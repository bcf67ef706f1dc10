// Mutation testing (StrykerJS) of the safety-critical code: `npm run mutation` runs every target,
// `MUTATION_TARGET=emergency npm run mutation` one of them (targets below). Each target mutates one
// file (or the part of a file that is the safety rule) and runs only the test files that exercise it,
// with per-test coverage, so a mutant runs only the tests that reach it. Slow (minutes to an hour
// per target on a shared 2-core machine): not part of .ci/run. Scores: docs/testing.md.
// Reports and the sandbox go to .tmp/ (ignored by git).

/** @type {Record<string, { mutate: string[]; testFiles: string[] }>} */
export const TARGETS = {
  emergency: {
    mutate: ['src/lib/emergency.ts'],
    testFiles: ['test/emergency-detector.test.ts'],
  },
  engine: {
    mutate: ['src/modules/questionnaires/engine.ts'],
    testFiles: ['test/engine.test.ts', 'test/engine-conditions.test.ts', 'test/engine-prescribing.test.ts'],
  },
  prescribing: {
    mutate: ['src/modules/questionnaires/prescribing.ts'],
    testFiles: ['test/prescribing-rules.test.ts', 'test/engine-prescribing.test.ts'],
  },
  finalise: {
    mutate: ['src/modules/checkout/finalise.ts'],
    testFiles: ['test/billing.test.ts', 'test/billing-duplicates.test.ts', 'test/billing-consultation-status.test.ts', 'test/stripe.test.ts', 'test/finalise-paths.test.ts'],
  },
  // Token rotation: issuing a pair (tokens.ts) and the refresh route's rotation and reuse detection
  // (the `refresh` function of the accounts service).
  refresh: {
    mutate: ['src/modules/accounts/tokens.ts', 'src/modules/accounts/service.ts:214-244'],
    testFiles: ['test/tokens.test.ts', 'test/accounts.test.ts'],
  },
};

const name = process.env.MUTATION_TARGET;
if (name && !TARGETS[name]) throw new Error(`MUTATION_TARGET must be one of: ${Object.keys(TARGETS).join(', ')}`);
const chosen = name ? [TARGETS[name]] : Object.values(TARGETS);
// MUTATION_TEST_FILES=a.test.ts,b.test.ts runs only those test files (e.g. the pure tests of a target,
// minutes instead of the hour its database-backed tests take); the report is then named after them.
const only = process.env.MUTATION_TEST_FILES?.split(',').filter(Boolean);
const label = `${name ?? 'all'}${only ? '-partial-tests' : ''}`;
// The test files run are given to vitest (vitest.config.ts reads VITEST_INCLUDE; the test runner
// processes inherit this environment), not to Stryker as `testFiles`: with `testFiles`, StrykerJS
// 9.6.1's vitest runner activates a static mutant (one in module-level code: the emergency pattern
// tables, constants such as DAY_MS) only after its module has loaded, so every static mutant was
// reported as survived although the tests kill it (stryker-js issues 6144 and 6209). Without a test
// filter, a static mutant is activated before the module loads and its tests run against it.
process.env.VITEST_INCLUDE = (only ?? [...new Set(chosen.flatMap((t) => t.testFiles))]).join(',');

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'vitest',
  plugins: ['@stryker-mutator/vitest-runner'],
  vitest: { configFile: 'vitest.config.ts', related: false },
  mutate: chosen.flatMap((t) => t.mutate),
  // The target's test files reach vitest through VITEST_INCLUDE (set above), not Stryker's `testFiles`.

  coverageAnalysis: 'perTest',
  // The machine is shared: one test process (override with --concurrency).
  concurrency: 1,
  // Database-backed HTTP tests are slow; a mutant that loops is cut off after this much extra time.
  timeoutMS: 60_000,
  timeoutFactor: 2,
  checkers: [],
  // The web app, its build and data are not needed to run the tests.
  ignorePatterns: ['web', 'dist', '.data', 'artifacts', 'coverage', 'bench/results', 'docs', '.tmp', '.ci'],
  tempDirName: '.tmp/stryker',
  cleanTempDir: 'always',
  reporters: ['clear-text', 'progress-append-only', 'json', 'html'],
  jsonReporter: { fileName: `.tmp/mutation/${label}.json` },
  htmlReporter: { fileName: `.tmp/mutation/${label}.html` },
  thresholds: { high: 90, low: 75, break: null },
};
