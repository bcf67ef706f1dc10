// Periodic work (recurring charges, renewal windows, reminders). Every job must be idempotent: it
// may run twice or late. The embedded database runs the jobs in process on a timer; on PostgreSQL,
// several processes may run them at once, so each job claims its rows (FOR UPDATE SKIP LOCKED or a
// unique constraint) rather than relying on being alone. `runDue()` runs every job now (tests and
// the sandbox test clock).
import { DEFAULT_PG_TIMEOUTS, pgPoolSettings, type PgTimeouts } from '../db/index.ts';
import { withStartupLock } from '../db/startup-lock.ts';
import { errorSummary } from './error-fields.ts';
export type Job = { name: string; run: () => Promise<void> };

/** What this process saw of one job (wall-clock times in ms since the epoch; /metrics reads it). */
export interface JobStats {
  name: string;
  runs: number;
  failures: number;
  lastStartedAt?: number;
  lastFinishedAt?: number;
  lastSuccessAt?: number;
  lastDurationMs?: number;
}

export interface Scheduler {
  register(name: string, run: () => Promise<void>): void;
  runDue(): Promise<void>;
  start(intervalMs: number): void;
  stop(): Promise<void>;
  /** Per-job counts and times of the runs in this process. */
  stats(): JobStats[];
}

export function createScheduler(log: { warn: (o: object, m: string) => void }): Scheduler {
  const jobs: Job[] = [];
  const stats = new Map<string, JobStats>();
  let timer: NodeJS.Timeout | undefined;
  let current: Promise<void> | undefined;
  const runAll = async () => {
    for (const job of jobs) {
      const s = stats.get(job.name)!;
      const started = Date.now();
      s.lastStartedAt = started;
      s.runs++;
      try {
        await job.run();
        s.lastSuccessAt = Date.now();
      } catch (err) {
        s.failures++;
        log.warn({ job: job.name, err: errorSummary(err) }, 'scheduled job failed');
      } finally {
        s.lastFinishedAt = Date.now();
        s.lastDurationMs = s.lastFinishedAt - started;
      }
    }
  };
  const runDue = async () => {
    while (current) await current;
    current = runAll();
    try {
      await current;
    } finally {
      current = undefined;
    }
  };
  return {
    register(name, run) {
      jobs.push({ name, run });
      if (!stats.has(name)) stats.set(name, { name, runs: 0, failures: 0 });
    },
    stats: () => [...stats.values()].map((s) => ({ ...s })),
    runDue,
    start(intervalMs) {
      const tick = async () => {
        await runDue();
        timer = setTimeout(() => void tick(), intervalMs);
        timer.unref();
      };
      timer = setTimeout(() => void tick(), intervalMs);
      timer.unref();
    },
    async stop() {
      if (timer) clearTimeout(timer);
      timer = undefined;
      await current;
    },
  };
}

/**
 * On PostgreSQL, pg-boss triggers the due work once a minute across all processes (one of them
 * runs it; the singleton key keeps two runs from overlapping). Returns a stop function.
 */
export async function startPgBossTrigger(
  connectionString: string,
  scheduler: Scheduler,
  log: { warn: (o: object, m: string) => void },
  timeouts: PgTimeouts = DEFAULT_PG_TIMEOUTS,
): Promise<() => Promise<void>> {
  const { default: PgBoss } = await import('pg-boss');
  // pg-boss's own pool, with the service's timeouts; its clients are only used through pool.query
  // (which listens for their errors) and its pool's errors reach boss.on('error') below, so a lost
  // connection is a logged warning and pg-boss carries on when the database returns.
  const boss = new PgBoss({ connectionString, max: 2, application_name: 'pts-scheduler', ...pgPoolSettings(timeouts) });
  boss.on('error', (err) => log.warn({ err: errorSummary(err) }, 'pg-boss error'));
  const queue = 'run-due-work';
  // pg-boss's schema, queue and schedule are set up one process at a time (db/startup-lock.ts).
  await withStartupLock(
    connectionString,
    async () => {
      await boss.start();
      await boss.createQueue(queue, { name: queue, policy: 'singleton' });
      await boss.schedule(queue, '* * * * *');
    },
    timeouts.connectMs,
  );
  await boss.work(queue, async () => {
    await scheduler.runDue();
  });
  return async () => {
    await boss.stop({ graceful: true, timeout: 10_000, wait: true });
  };
}
