// Periodic work (recurring charges, renewal windows, reminders). Every job must be idempotent: it
// may run twice or late. The embedded database runs the jobs in process on a timer; on PostgreSQL,
// several processes may run them at once, so each job claims its rows (FOR UPDATE SKIP LOCKED or a
// unique constraint) rather than relying on being alone. `runDue()` runs every job now (tests and
// the sandbox test clock).
export type Job = { name: string; run: () => Promise<void> };

export interface Scheduler {
  register(name: string, run: () => Promise<void>): void;
  runDue(): Promise<void>;
  start(intervalMs: number): void;
  stop(): Promise<void>;
}

export function createScheduler(log: { warn: (o: object, m: string) => void }): Scheduler {
  const jobs: Job[] = [];
  let timer: NodeJS.Timeout | undefined;
  let current: Promise<void> | undefined;
  const runAll = async () => {
    for (const job of jobs) {
      try {
        await job.run();
      } catch (err: any) {
        log.warn({ job: job.name, err: { message: err?.message, code: err?.code } }, 'scheduled job failed');
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
    },
    runDue,
    start(intervalMs) {
      const tick = async () => {
        await runDue();
        timer = setTimeout(tick, intervalMs);
        timer.unref();
      };
      timer = setTimeout(tick, intervalMs);
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
): Promise<() => Promise<void>> {
  const { default: PgBoss } = await import('pg-boss');
  const boss = new PgBoss({ connectionString, max: 2, application_name: 'pts-scheduler' });
  boss.on('error', (err: any) => log.warn({ err: { message: err?.message, code: err?.code } }, 'pg-boss error'));
  await boss.start();
  const queue = 'run-due-work';
  await boss.createQueue(queue, { name: queue, policy: 'singleton' } as any);
  await boss.schedule(queue, '* * * * *');
  await boss.work(queue, async () => {
    await scheduler.runDue();
  });
  return async () => {
    await boss.stop({ graceful: true, timeout: 10_000, wait: true });
  };
}
