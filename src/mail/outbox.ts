// Transactional outbox: a mail is written in the same transaction as the state change that causes
// it, and a dispatcher delivers it afterwards with retries and backoff. If SMTP is down nothing is
// lost: the row stays pending and goes out when the server returns. Bodies are blanked once sent
// (they can hold one-time codes and reset links).
import type { Db, Queryable } from '../db/index.ts';
import type { MailTransport } from './transports.ts';

export type Locale = 'de' | 'en' | 'es' | 'fr' | 'it' | 'nl' | 'pt';
export const LOCALES: readonly Locale[] = ['de', 'en', 'es', 'fr', 'it', 'nl', 'pt'];

export interface RenderedMail {
  subject: string;
  text: string;
}

/** A mail template: one function per locale; English is the fallback. */
export type MailTemplate<V> = { name: string } & Record<Locale, (vars: V) => RenderedMail>;

export function render<V>(template: MailTemplate<V>, locale: string, vars: V): RenderedMail {
  const fn = (template as any)[locale] ?? template.en;
  return fn(vars);
}

export async function enqueueMail<V>(q: Queryable, to: string, template: MailTemplate<V>, locale: string, vars: V): Promise<void> {
  const { subject, text } = render(template, locale, vars);
  await q.query('insert into mail_outbox (to_address, subject, text_body, template) values ($1, $2, $3, $4)', [to, subject, text, template.name]);
}

const LEASE_SECONDS = 120;
/**
 * Retry delay after a failed attempt: 2^attempts seconds, at most one minute. A longer cap would
 * hold one-time codes (valid 10 minutes) back for longer than they live after an SMTP outage.
 */
export const MAX_BACKOFF_SECONDS = 60;
export const retryDelaySeconds = (attempts: number) => Math.min(MAX_BACKOFF_SECONDS, 2 ** Math.min(Math.max(attempts, 0), 12));

/** Deliveries by this process since it started (/metrics reads them). */
export interface DispatchStats {
  sent: number;
  /** Attempts that failed and will be retried. */
  failed: number;
  /** Permanent rejections (the address is suppressed). */
  bounced: number;
}

export interface Dispatcher {
  /** Delivers every due mail once; returns how many were sent. */
  runOnce(): Promise<number>;
  start(intervalMs: number): void;
  stop(): Promise<void>;
  stats(): DispatchStats;
}

/** The state of the outbox (all processes): pending mails, the oldest one's age, mails failing. */
export async function outboxBacklog(q: Queryable): Promise<{ pending: number; retrying: number; oldestPendingSeconds: number; bounced: number }> {
  const [row] = await q.query<{ pending: number; retrying: number; oldest: number | null; bounced: number }>(
    `select count(*) filter (where status = 'pending')::int as pending,
            count(*) filter (where status = 'pending' and last_error is not null)::int as retrying,
            extract(epoch from now() - min(created_at) filter (where status = 'pending'))::float8 as oldest,
            count(*) filter (where status = 'bounced')::int as bounced
       from mail_outbox where status in ('pending', 'bounced')`,
  );
  return { pending: row?.pending ?? 0, retrying: row?.retrying ?? 0, oldestPendingSeconds: Math.max(0, row?.oldest ?? 0), bounced: row?.bounced ?? 0 };
}

export function createDispatcher(db: Db, transport: MailTransport, from: string, log: { warn: (o: object, m: string) => void }): Dispatcher {
  const counts: DispatchStats = { sent: 0, failed: 0, bounced: 0 };
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<number> | undefined;

  async function deliver(): Promise<number> {
    // Claim a batch with a lease so that several processes never send the same row twice.
    const batch = await db.tx((q) =>
      q.query<{ id: string; to_address: string; subject: string; text_body: string; attempts: number; template: string }>(
        `update mail_outbox set next_attempt_at = now() + interval '${LEASE_SECONDS} seconds', attempts = attempts + 1
          where id in (select id from mail_outbox where status = 'pending' and next_attempt_at <= now()
                       order by created_at limit 20 for update skip locked)
          returning id, to_address, subject, text_body, attempts, template`,
      ),
    );
    let sent = 0;
    for (const mail of batch) {
      try {
        await transport.send({ from, to: mail.to_address, subject: mail.subject, text: mail.text_body, id: mail.id });
        await db.query("update mail_outbox set status = 'sent', sent_at = now(), text_body = null, html_body = null, last_error = null where id = $1", [mail.id]);
        sent++;
        counts.sent++;
      } catch (err: any) {
        const permanent = typeof err?.responseCode === 'number' && err.responseCode >= 550 && err.responseCode < 560;
        let retryInSeconds: number | undefined;
        if (permanent) {
          counts.bounced++;
          // The SMTP bounce path: a permanent recipient rejection suppresses the address.
          await db.tx(async (q) => {
            await q.query("update mail_outbox set status = 'bounced', text_body = null, last_error = $2 where id = $1", [mail.id, String(err.response ?? err.message).slice(0, 500)]);
            await q.query("insert into email_suppressions (email, reason) values (lower($1), 'hard_bounce') on conflict do nothing", [mail.to_address]);
          });
        } else {
          counts.failed++;
          retryInSeconds = retryDelaySeconds(mail.attempts);
          await db.query(`update mail_outbox set next_attempt_at = now() + ($2 || ' seconds')::interval, last_error = $3 where id = $1`, [
            mail.id,
            String(retryInSeconds),
            String(err?.code ?? err?.message ?? err).slice(0, 500),
          ]);
        }
        // No address, subject or body: the id finds the row; the template says which kind of mail.
        log.warn(
          { mailId: mail.id, template: mail.template, attempt: mail.attempts, code: err?.code, responseCode: err?.responseCode, permanent, retryInSeconds },
          'mail delivery failed',
        );
      }
    }
    return sent;
  }

  const runOnce = async () => {
    // One delivery pass at a time per process.
    while (running) await running.catch(() => 0);
    running = deliver();
    try {
      return await running;
    } finally {
      running = undefined;
    }
  };

  return {
    runOnce,
    stats: () => ({ ...counts }),
    start(intervalMs) {
      const tick = async () => {
        try {
          while ((await runOnce()) > 0) {
            /* drain */
          }
        } catch (err: any) {
          log.warn({ code: err?.code }, 'mail dispatcher pass failed');
        }
        timer = setTimeout(tick, intervalMs);
        timer.unref();
      };
      timer = setTimeout(tick, 0);
      timer.unref();
    },
    async stop() {
      if (timer) clearTimeout(timer);
      timer = undefined;
      await running?.catch(() => 0);
    },
  };
}
