// Transactional outbox: a mail is written in the same transaction as the state change that causes
// it, and a dispatcher delivers it afterwards with retries and backoff. If SMTP is down nothing is
// lost: the row stays pending and goes out when the server returns. Bodies are blanked once sent
// (they can hold one-time codes and reset links).
import type { Db, Queryable } from '../db/index.ts';
import { isLocale, type Locale } from '../lib/locales.ts';
import { claimDueMails, hasDueMail, insertMail, markMailBounced, markMailSent, scheduleMailRetry, type MailAttachment } from './outbox.repository.ts';
export type { MailAttachment } from './outbox.repository.ts';
import type { MailTransport } from './transports.ts';

// The locale list lives in src/lib/locales.ts; re-exported for the mail templates of the modules.
export { LOCALES, type Locale } from '../lib/locales.ts';
export { deleteMailTo, isSuppressed, outboxBacklog, suppressEmail, type OutboxBacklog } from './outbox.repository.ts';

export interface RenderedMail {
  subject: string;
  text: string;
}

/** A mail template: one function per locale; English is the fallback. */
export type MailTemplate<V> = { name: string } & Record<Locale, (vars: V) => RenderedMail>;

export function render<V>(template: MailTemplate<V>, locale: string, vars: V): RenderedMail {
  return (isLocale(locale) ? template[locale] : template.en)(vars);
}

export async function enqueueMail<V>(q: Queryable, to: string, template: MailTemplate<V>, locale: string, vars: V, attachments?: MailAttachment[]): Promise<void> {
  const { subject, text } = render(template, locale, vars);
  await insertMail(q, { to, subject, text, template: template.name, attachments });
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

/** The fields of a nodemailer (or database) failure the dispatcher reads; anything else is absent. */
interface SmtpFailure {
  code?: string;
  responseCode?: number;
  response?: string;
  message?: string;
}
function smtpFailure(err: unknown): SmtpFailure {
  if (typeof err !== 'object' || err === null) return {};
  const e = err as Record<string, unknown>;
  return {
    code: typeof e.code === 'string' ? e.code : undefined,
    responseCode: typeof e.responseCode === 'number' ? e.responseCode : undefined,
    response: typeof e.response === 'string' ? e.response : undefined,
    message: typeof e.message === 'string' ? e.message : undefined,
  };
}

export function createDispatcher(db: Db, transport: MailTransport, from: string, log: { warn: (o: object, m: string) => void }): Dispatcher {
  const counts: DispatchStats = { sent: 0, failed: 0, bounced: 0 };
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<number> | undefined;

  async function deliver(): Promise<number> {
    // Nothing due (the usual pass): a read, no claim.
    if (!(await hasDueMail(db))) return 0;
    // Claim a batch with a lease so that several processes never send the same row twice.
    const batch = await db.tx((q) => claimDueMails(q, LEASE_SECONDS, 20));
    let sent = 0;
    for (const mail of batch) {
      try {
        await transport.send({ from, to: mail.to_address, subject: mail.subject, text: mail.text_body ?? '', id: mail.id, ...(Array.isArray(mail.attachments) && mail.attachments.length ? { attachments: mail.attachments } : {}) });
        await markMailSent(db, mail.id);
        sent++;
        counts.sent++;
      } catch (caught) {
        const err = smtpFailure(caught);
        const permanent = typeof err.responseCode === 'number' && err.responseCode >= 550 && err.responseCode < 560;
        let retryInSeconds: number | undefined;
        if (permanent) {
          counts.bounced++;
          // The SMTP bounce path: a permanent recipient rejection suppresses the address.
          await db.tx((q) => markMailBounced(q, mail.id, mail.to_address, String(err.response ?? err.message).slice(0, 500)));
        } else {
          counts.failed++;
          retryInSeconds = retryDelaySeconds(mail.attempts);
          await scheduleMailRetry(db, mail.id, retryInSeconds, String(err.code ?? err.message ?? caught).slice(0, 500));
        }
        // No address, subject or body: the id finds the row; the template says which kind of mail.
        log.warn(
          { mailId: mail.id, template: mail.template, attempt: mail.attempts, code: err.code, responseCode: err.responseCode, permanent, retryInSeconds },
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
        } catch (caught) {
          log.warn({ code: smtpFailure(caught).code }, 'mail dispatcher pass failed');
        }
        timer = setTimeout(() => void tick(), intervalMs);
        timer.unref();
      };
      timer = setTimeout(() => void tick(), 0);
      timer.unref();
    },
    async stop() {
      if (timer) clearTimeout(timer);
      timer = undefined;
      await running?.catch(() => 0);
    },
  };
}
