// Retention jobs (docs/privacy.md "Retention"): personal data that no purpose needs any
// more is deleted on a schedule, each kind after its named period. The deletes live in the owning
// modules' repositories (reached through their index.ts); this file holds the periods and runs them.
// Every sweep is idempotent (a second run finds nothing) and safe on several processes at once: each
// batch claims its rows with FOR UPDATE SKIP LOCKED. Ages are judged by the service clock (the
// sandbox test clock moves it); the access log is also bounded by the database's own clock.
import type { Deps } from '../../deps.ts';
import { deleteExpiredOneTimeTokens, deleteExpiredSessions, deleteUnverifiedAccounts } from '../accounts/index.ts';
import { deleteAccessLogBefore } from '../audit/index.ts';
import { deleteEndedUnpaidSessionsForScheduler } from '../checkout/index.ts';
import { deleteAbandonedDraftsForScheduler } from '../questionnaires/index.ts';
import type { Queryable } from '../../db/index.ts';

const DAY_MS = 24 * 3600 * 1000;

/** `users` (never verified, no code sent since): deleted this many days after registration. */
export const UNVERIFIED_REGISTRATION_DAYS = 30;
/** `questionnaire_drafts`: deleted when untouched for this many days. */
export const ABANDONED_DRAFT_DAYS = 180;
/**
 * `refresh_tokens`, `refresh_families`, `password_reset_tokens`, `mfa_tickets`: deleted this many
 * days after they expired (a session: after it was revoked or its last token expired). The days in
 * between keep a recent sign-in visible to a security review.
 */
export const EXPIRED_SESSION_DAYS = 30;
/** `checkout_sessions` that ended unpaid (`expired`, `declined`): deleted this many days after their expiry. */
export const ENDED_CHECKOUT_DAYS = 90;
/**
 * `access_log`: entries are deleted this many years after the access (the medical-record period
 * they document: DE §630f BGB, 10 years). Migration 1000 enforces the same period in the database.
 */
export const ACCESS_LOG_RETENTION_YEARS = 10;
// `idempotency_keys`: swept 24 hours after their first answer by the job idempotency.expire
// (src/http/idempotency.ts); nothing more is needed here.

/** Rows per statement, and statements per table and run (the rest waits for the next run). */
export const RETENTION_BATCH = 500;
const MAX_BATCHES_PER_RUN = 20;
/** A process runs the sweeps at most this often (the scheduler ticks every minute). */
export const RETENTION_INTERVAL_MS = 3600 * 1000;

export interface RetentionJob {
  name: string;
  /** The cutoff: rows older than it are past their period. */
  cutoff: (now: Date) => Date;
  sweep: (q: Queryable, before: Date, batch: number) => Promise<number>;
}

const daysBefore = (days: number) => (now: Date) => new Date(now.getTime() - days * DAY_MS);

export const RETENTION_JOBS: readonly RetentionJob[] = [
  { name: 'privacy.retention.unverified-accounts', cutoff: daysBefore(UNVERIFIED_REGISTRATION_DAYS), sweep: deleteUnverifiedAccounts },
  { name: 'privacy.retention.abandoned-drafts', cutoff: daysBefore(ABANDONED_DRAFT_DAYS), sweep: deleteAbandonedDraftsForScheduler },
  { name: 'privacy.retention.expired-sessions', cutoff: daysBefore(EXPIRED_SESSION_DAYS), sweep: deleteExpiredSessions },
  { name: 'privacy.retention.expired-one-time-tokens', cutoff: daysBefore(EXPIRED_SESSION_DAYS), sweep: deleteExpiredOneTimeTokens },
  { name: 'privacy.retention.ended-checkout-sessions', cutoff: daysBefore(ENDED_CHECKOUT_DAYS), sweep: deleteEndedUnpaidSessionsForScheduler },
  {
    name: 'privacy.retention.access-log',
    cutoff: (now) => {
      const d = new Date(now);
      d.setUTCFullYear(d.getUTCFullYear() - ACCESS_LOG_RETENTION_YEARS);
      return d;
    },
    sweep: deleteAccessLogBefore,
  },
];

/** Runs one sweep until nothing past its period is left (or the per-run cap); returns the rows deleted. */
export async function runRetentionJob(deps: Pick<Deps, 'db' | 'clock'>, job: RetentionJob): Promise<number> {
  const before = job.cutoff(deps.clock.now());
  let total = 0;
  for (let i = 0; i < MAX_BATCHES_PER_RUN; i++) {
    const n = await job.sweep(deps.db, before, RETENTION_BATCH);
    total += n;
    if (n < RETENTION_BATCH) break;
  }
  return total;
}

/** Every sweep now (tests, the CLI). */
export async function runRetention(deps: Pick<Deps, 'db' | 'clock'>): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const job of RETENTION_JOBS) out[job.name] = await runRetentionJob(deps, job);
  return out;
}

/** Registers each sweep as a scheduled job, run at most once per RETENTION_INTERVAL_MS per process. */
export function registerRetentionJobs(deps: Deps): void {
  for (const job of RETENTION_JOBS) {
    let lastRun: number | undefined;
    deps.scheduler.register(job.name, async () => {
      const now = deps.clock.now().getTime();
      if (lastRun !== undefined && now - lastRun < RETENTION_INTERVAL_MS && now >= lastRun) return;
      lastRun = now;
      const deleted = await runRetentionJob(deps, job);
      if (deleted > 0) deps.log.info({ job: job.name, deleted }, 'retention: rows past their period deleted');
    });
  }
}
