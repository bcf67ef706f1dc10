// Start-up: config -> (database, migrations) alongside (the HTTP code) -> app -> listen; graceful
// shutdown on SIGTERM/SIGINT: /readyz answers 503 at once, the process keeps serving for
// SHUTDOWN_DRAIN_SECONDS (the load balancer stops sending traffic), then stops accepting, drains
// in-flight requests, stops the background work and closes the database (releasing the DATA_DIR lock).
// Run it as `node dist/main.js` (npm start builds dist/ first when the sources changed).
import module from 'node:module';
import { errorString } from './lib/error-fields.ts';

// Node 22.1+ can keep V8's compiled code of every module on disk (in the OS temporary directory),
// so that a restart skips most of the parsing and compiling of the code it loads. Called before
// anything else loads so that everything is cached; Node 20 has no such cache (the call is absent).
(module as { enableCompileCache?: () => unknown }).enableCompileCache?.();

async function main() {
  // The configuration is checked before the rest of the code loads: a bad setting is refused in a
  // fraction of a second.
  const { loadConfig } = await import('./config.ts');
  const config = loadConfig();
  // The database opens (on a fresh DATA_DIR: is copied from the build's template) and is migrated
  // while the HTTP code loads: its file copies and reads and its WebAssembly compilation run off the
  // main thread, and the loading of the HTTP code fills those waits. Started first, so that it is
  // under way before the larger HTTP code begins to load. Readiness still waits for both (the app is
  // built on the opened, migrated database).
  const { createRuntime, pgTimeouts } = await import('./runtime.ts');
  const opening = createRuntime(config);
  const [{ buildApp }, { markShuttingDown }, { startPgBossTrigger }, runtime] = await Promise.all([
    import('./app.ts'),
    import('./http/readiness.ts'),
    import('./lib/scheduler.ts'),
    opening,
  ]);
  // stdout written once per event-loop turn, error lines at once (src/http/logging.ts).
  const { batchedLogDestination } = await import('./http/logging.ts');
  const app = await buildApp(runtime.deps, { logStream: batchedLogDestination() });
  // REDIS_URL: wait briefly for the first connection so that an unreachable Redis is logged (loudly,
  // by the limiters) and reported by /readyz from the first request on.
  await runtime.deps.limiters.settled(2000);
  runtime.deps.mail.start(config.MAIL_DISPATCH_INTERVAL_MS);
  // Due work (charges, renewal windows, reminders): pg-boss on PostgreSQL so that one process of
  // many runs it each minute; an in-process timer on the embedded database (one process).
  const stopBoss = config.DATABASE_URL
    ? await startPgBossTrigger(config.DATABASE_URL, runtime.deps.scheduler, runtime.deps.log, pgTimeouts(config))
    : (runtime.deps.scheduler.start(config.SCHEDULER_INTERVAL_MS), () => Promise.resolve());

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    markShuttingDown(runtime.deps);
    app.log.info({ signal, drainSeconds: config.SHUTDOWN_DRAIN_SECONDS }, 'shutting down: /readyz answers 503');
    const force = setTimeout(() => {
      app.log.error('shutdown took too long: exiting');
      process.exit(1);
    }, (config.SHUTDOWN_DRAIN_SECONDS + 15) * 1000);
    force.unref();
    try {
      if (config.SHUTDOWN_DRAIN_SECONDS > 0) await new Promise((r) => setTimeout(r, config.SHUTDOWN_DRAIN_SECONDS * 1000));
      await app.close(); // stops accepting, waits for in-flight requests
      await stopBoss();
      await runtime.close();
      app.log.info('stopped');
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

main().catch((err: unknown) => {
  // One line naming the setting (config errors: one line per bad variable); the stack at debug level.
  const message = err instanceof Error ? err.message : String(err);
  const code = errorString(err, 'code');
  const listen = code === 'EADDRINUSE' || code === 'EACCES' ? `PORT/HOST: cannot listen (${code}): ${message}` : message;
  console.error(listen);
  if (process.env.LOG_LEVEL === 'debug') console.error(err);
  process.exit(1);
});
