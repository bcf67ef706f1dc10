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
    // A worker runs its test files one after another on the modules it has loaded, instead of
    // loading the app (and compiling PGlite) again for every file: the suite took ~420 s on a 2-core
    // machine with isolation and ~200 s without. It holds because no test file replaces a module or
    // a global (no vi.mock, vi.stubEnv, vi.stubGlobal, fake timers or writes to process.env:
    // eslint.config.js refuses them under test/), each file opens its own database and app
    // (createTestContext), and the one module-level test hook (setMetadataFetcher) is restored in
    // afterAll. Runs narrowed by VITEST_INCLUDE (the mutation runs) keep isolation, as before.
    isolate: Boolean(only?.length),
    testTimeout: 60_000,
    hookTimeout: 120_000,
    reporters: ['default'],
  },
});
