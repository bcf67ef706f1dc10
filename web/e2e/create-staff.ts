// The journey's staff accounts, created in one process: the CLI's own `create-staff` (src/cli.ts),
// given one opened runtime, so the embedded database starts once instead of once per account (each
// start of a fresh process costs the migrations' check and the TypeScript load).
// Usage: node --import tsx web/e2e/create-staff.ts '[["--email", "...", ...], ...]'
import { runCli } from '../../src/cli.ts';
import { loadConfig } from '../../src/config.ts';
import { createRuntime } from '../../src/runtime.ts';

const accounts = JSON.parse(process.argv[2] ?? '[]') as string[][];
const runtime = await createRuntime(loadConfig({ ...process.env, LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn' }));
try {
  for (const args of accounts) {
    const r = await runCli(['create-staff', ...args], process.env, { deps: runtime.deps });
    if (r.code !== 0) {
      process.stderr.write(`create-staff ${args[1]}: ${r.out}\n`);
      process.exitCode = 1;
      break;
    }
  }
} finally {
  await runtime.close();
}
