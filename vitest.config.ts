import { defineConfig } from 'vitest/config';

// VITEST_INCLUDE=a.test.ts,b.test.ts narrows the run to those files. The mutation runs set it
// (stryker.config.mjs) instead of Stryker's `testFiles`, which makes StrykerJS 9.6 activate module-level
// ("static") mutants after the module has loaded, so they were reported as survived.
const only = process.env.VITEST_INCLUDE?.split(',').filter(Boolean);

export default defineConfig({
  test: {
    include: only?.length ? only : ['test/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 120_000,
    reporters: ['default'],
  },
});
