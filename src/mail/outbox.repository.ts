// SQL of the mail outbox, owner of mail_outbox and email_suppressions (docs/architecture.md).
import type { Queryable } from '../db/index.ts';
import { sql, sqlOf } from '../db/kysely.ts';
import type { MailOutboxRow } from '../db/schema.ts';

const normalise = (email: string) => email.trim().toLowerCase();

/** A file sent with a mail (an appointment's calendar file, a letter's PDF): its content, kept until the mail is sent. */
export interface MailAttachment {
  filename: string;
  content_type: string;
  /** Text, or base64 when `encoding` says so (a binary file such as a PDF). */
  content: string;
  encoding?: 'base64';
}

export async function insertMail(q: Queryable, mail: { to: string; subject: string; text: string; template: string; attachments?: MailAttachment[] }): Promise<void> {
  await sqlOf(q)
    .insertInto('mail_outbox')
    .values({ to_address: mail.to, subject: mail.subject, text_body: mail.text, template: mail.template, ...(mail.attachments?.length ? { attachments: JSON.stringify(mail.attachments) } : {}) })
    .execute();
}

export type ClaimedMail = Pick<MailOutboxRow, 'id' | 'to_address' | 'subject' | 'text_body' | 'attempts' | 'template' | 'attachments'>;

/**
 * Claims up to `limit` due mails with a lease (next_attempt_at pushed `leaseSeconds` ahead), so that
 * several processes never send the same row twice; call inside a transaction.
 */
/**
 * Whether any mail is due: a read, so that an idle dispatcher pass (every MAIL_DISPATCH_INTERVAL_MS)
 * writes nothing. On the embedded database a write of any kind makes the server ask the database
 * again for what it keeps until the next write (src/db/until-write.ts); a claim that matched no row
 * was such a write, twice a second.
 */
export async function hasDueMail(q: Queryable): Promise<boolean> {
  const row = await sqlOf(q)
    .selectFrom('mail_outbox')
    .select('id')
    .where('status', '=', 'pending')
    .where('next_attempt_at', '<=', sql<Date>`now()`)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

export async function claimDueMails(q: Queryable, leaseSeconds: number, limit: number): Promise<ClaimedMail[]> {
  const k = sqlOf(q);
  const due = k
    .selectFrom('mail_outbox')
    .select('id')
    .where('status', '=', 'pending')
    .where('next_attempt_at', '<=', sql<Date>`now()`)
    .orderBy('created_at')
    .limit(limit)
    .forUpdate()
    .skipLocked();
  return k
    .updateTable('mail_outbox')
    .set((eb) => ({
      next_attempt_at: sql<Date>`now() + make_interval(secs => ${leaseSeconds})`,
      attempts: eb('attempts', '+', 1),
    }))
    .where('id', 'in', due)
    .returning(['id', 'to_address', 'subject', 'text_body', 'attempts', 'template', 'attachments'])
    .execute();
}

/** Sent: the body is blanked (it can hold one-time codes and reset links). */
export async function markMailSent(q: Queryable, id: string): Promise<void> {
  await sqlOf(q)
    .updateTable('mail_outbox')
    .set({ status: 'sent', sent_at: sql<Date>`now()`, text_body: null, html_body: null, attachments: null, last_error: null })
    .where('id', '=', id)
    .execute();
}

/** A permanent rejection: the mail is given up and its address suppressed, in one transaction. */
export async function markMailBounced(q: Queryable, id: string, address: string, error: string): Promise<void> {
  await sqlOf(q).updateTable('mail_outbox').set({ status: 'bounced', text_body: null, attachments: null, last_error: error }).where('id', '=', id).execute();
  await sqlOf(q)
    .insertInto('email_suppressions')
    .values({ email: normalise(address), reason: 'hard_bounce' })
    .onConflict((oc) => oc.doNothing())
    .execute();
}

export async function scheduleMailRetry(q: Queryable, id: string, inSeconds: number, error: string): Promise<void> {
  await sqlOf(q)
    .updateTable('mail_outbox')
    .set({ next_attempt_at: sql<Date>`now() + make_interval(secs => ${inSeconds})`, last_error: error })
    .where('id', '=', id)
    .execute();
}

export interface OutboxBacklog {
  pending: number;
  retrying: number;
  oldestPendingSeconds: number;
  bounced: number;
}

export async function outboxBacklog(q: Queryable): Promise<OutboxBacklog> {
  const row = await sql<{ pending: number; retrying: number; oldest: number | null; bounced: number }>`
    select count(*) filter (where status = 'pending')::int as pending,
           count(*) filter (where status = 'pending' and last_error is not null)::int as retrying,
           extract(epoch from now() - min(created_at) filter (where status = 'pending'))::float8 as oldest,
           count(*) filter (where status = 'bounced')::int as bounced
      from mail_outbox where status in ('pending', 'bounced')`
    .execute(sqlOf(q))
    .then((r) => r.rows[0]);
  return { pending: row?.pending ?? 0, retrying: row?.retrying ?? 0, oldestPendingSeconds: Math.max(0, row?.oldest ?? 0), bounced: row?.bounced ?? 0 };
}

export async function isSuppressed(q: Queryable, email: string): Promise<boolean> {
  const row = await sqlOf(q).selectFrom('email_suppressions').select('email').where('email', '=', normalise(email)).executeTakeFirst();
  return row !== undefined;
}

/** Adds (or re-labels) a suppressed address. */
export async function suppressEmail(q: Queryable, email: string, reason: string): Promise<void> {
  await sqlOf(q)
    .insertInto('email_suppressions')
    .values({ email: normalise(email), reason })
    .onConflict((oc) => oc.column('email').doUpdateSet((eb) => ({ reason: eb.ref('excluded.reason') })))
    .execute();
}

/** Erasure: every mail of the outbox to the address, whatever its state. */
export async function deleteMailTo(q: Queryable, email: string): Promise<void> {
  await sqlOf(q).deleteFrom('mail_outbox').where(sql<string>`lower(to_address)`, '=', email.toLowerCase()).execute();
}
