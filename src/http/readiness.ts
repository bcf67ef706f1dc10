// GET /readyz: whether a load balancer should send this process traffic.
//   200 {status: "ready"}        database reachable, rate limits where configured
//   200 {status: "degraded"}     serving, but REDIS_URL is unreachable: rate-limit budgets are per
//                                process until it returns (keep routing; alert on it)
//   503 {status: "unavailable"}  database unreachable, or shutting down (answered from the first
//                                moment of a SIGTERM, before the listener closes)
// `checks` says which.
import { z } from 'zod';
import type { Deps } from '../deps.ts';

const draining = new WeakSet<Deps>();

/** From now on /readyz answers 503 (main.ts calls it on SIGTERM/SIGINT). */
export function markShuttingDown(deps: Deps): void {
  draining.add(deps);
}

export const ReadinessSchema = z.object({
  status: z.enum(['ready', 'degraded', 'unavailable']),
  checks: z.object({
    database: z.enum(['ok', 'unreachable']),
    rate_limit_store: z
      .enum(['memory', 'redis', 'redis_connecting', 'redis_unreachable'])
      .describe('memory: no REDIS_URL (one process); redis_unreachable: per-process memory stands in'),
    shutting_down: z.boolean(),
  }),
});

/** How long /readyz waits for the database: a load balancer's probe must get an answer, not hang. */
export const READINESS_DB_TIMEOUT_MS = 1500;

/** Whether `select 1` answers within `ms` (a database that does not answer in time is unreachable). */
async function databaseAnswers(deps: Deps, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const probe = deps.db.query('select 1').then(
    () => true,
    () => false,
  );
  const late = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([probe, late]);
  } finally {
    clearTimeout(timer);
  }
}

export async function readiness(deps: Deps): Promise<{ code: 200 | 503; body: z.infer<typeof ReadinessSchema> }> {
  const shuttingDown = draining.has(deps);
  let database: 'ok' | 'unreachable' = 'ok';
  if (!shuttingDown) {
    if (!(await databaseAnswers(deps, READINESS_DB_TIMEOUT_MS))) database = 'unreachable';
  }
  const store = deps.limiters.store();
  const checks = { database, rate_limit_store: store, shutting_down: shuttingDown };
  if (shuttingDown || database !== 'ok') return { code: 503, body: { status: 'unavailable', checks } };
  if (store === 'redis_unreachable' || store === 'redis_connecting') return { code: 200, body: { status: 'degraded', checks } };
  return { code: 200, body: { status: 'ready', checks } };
}
