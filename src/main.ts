// Start-up: config -> database -> migrations -> app -> listen; graceful shutdown on SIGTERM/SIGINT
// (stop accepting, drain in-flight requests, stop background work, close the database).
import { buildApp } from './app.ts';
import { loadConfig } from './config.ts';
import { startPgBossTrigger } from './lib/scheduler.ts';
import { createRuntime } from './runtime.ts';

async function main() {
  const config = loadConfig();
  const runtime = await createRuntime(config);
  const app = await buildApp(runtime.deps);
  runtime.deps.mail.start(config.MAIL_DISPATCH_INTERVAL_MS);
  // Due work (charges, renewal windows, reminders): pg-boss on PostgreSQL so that one process of
  // many runs it each minute; an in-process timer on the embedded database (one process).
  const stopBoss = config.DATABASE_URL
    ? await startPgBossTrigger(config.DATABASE_URL, runtime.deps.scheduler, runtime.deps.log)
    : (runtime.deps.scheduler.start(config.SCHEDULER_INTERVAL_MS), async () => undefined);

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    app.log.info({ signal }, 'shutting down');
    const force = setTimeout(() => process.exit(1), 15_000);
    force.unref();
    try {
      await app.close(); // waits for in-flight requests
      await stopBoss();
      await runtime.close();
      process.exit(0);
    } catch (err) {
      app.log.error({ err }, 'shutdown failed');
      process.exit(1);
    }
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));

  await app.listen({ port: config.PORT, host: config.HOST });
  app.log.info(
    { database: runtime.deps.db.kind, dataDir: config.DATABASE_URL ? undefined : config.DATA_DIR, docs: `${config.PUBLIC_BASE_URL}/v1/docs/` },
    'Patient Treatment Service ready',
  );
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  if (process.env.LOG_LEVEL === 'debug') console.error(err);
  process.exit(1);
});
