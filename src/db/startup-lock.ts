// Start-up work that several processes would otherwise do at once on one PostgreSQL database (the
// migrations, pg-boss's schema, queue and schedule) runs under one advisory lock, one process at a
// time: unserialised, two pg-boss set-ups can deadlock in pgboss.create_queue and one process exits.
// The migrations take the same key as a transaction lock (migrate.ts), so they and the pg-boss
// set-up of any process never overlap either. Never nest the two in one process: a session holding
// this lock would wait for its own migration's transaction lock.
import type pg from 'pg';

export const STARTUP_LOCK_KEY = 727001;

/** Runs `fn` while this process holds the start-up lock, on a connection of its own. */
export async function withStartupLock<T>(connectionString: string, fn: () => Promise<T>, connectTimeoutMs = 10_000): Promise<T> {
  const { default: pgModule } = await import('pg');
  const client: pg.Client = new pgModule.Client({ connectionString, connectionTimeoutMillis: connectTimeoutMs, application_name: 'pts-startup' });
  client.on('error', () => undefined); // a lost connection releases the lock; the start fails with fn's or unlock's error
  await client.connect();
  try {
    // No statement timeout: waiting for another process's start-up work is the point.
    await client.query('select pg_advisory_lock($1)', [STARTUP_LOCK_KEY]);
    return await fn();
  } finally {
    await client.query('select pg_advisory_unlock($1)', [STARTUP_LOCK_KEY]).catch(() => undefined);
    await client.end().catch(() => undefined);
  }
}
