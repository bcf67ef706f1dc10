// What every module receives: built once in main.ts (or by the test harness) and passed down.
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from './config.ts';
import type { Db, Queryable } from './db/index.ts';
import type { Clock } from './lib/clock.ts';
import type { PageCache } from './lib/page-cache.ts';
import type { Limiters } from './lib/rate-limit.ts';
import type { Scheduler } from './lib/scheduler.ts';
import type { Secrets } from './lib/secrets.ts';
import type { Dispatcher } from './mail/outbox.ts';

export interface Deps {
  config: Config;
  db: Db;
  /** Where read-only requests (GET lists and details) read: the replica when DATABASE_REPLICA_URL is set, else db. */
  reader: Queryable;
  clock: Clock;
  secrets: Secrets;
  limiters: Limiters;
  mail: Dispatcher;
  scheduler: Scheduler;
  /** Answered consultation-list pages (src/lib/page-cache.ts); undefined with LIST_CACHE_MB=0. */
  pageCache: PageCache | undefined;
  log: FastifyBaseLogger;
}
