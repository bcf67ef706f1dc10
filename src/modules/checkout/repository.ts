// Checkout SQL: checkout_sessions and webhook_events (owner: checkout), and the reads checkout
// joins from other modules' tables (submissions, consultations, plans, the account). Patient-scoped
// functions take the account id and put it in the SQL; the provider's (webhooks, the sandbox page,
// the scheduler) act on any session by design and say so in their names.
import type { Queryable } from '../../db/index.ts';
import { sql, sqlOf } from '../../db/kysely.ts';
import { forAccount } from '../../db/scope.ts';
import { readJson } from '../../lib/sealed.ts';
import type { CheckoutSessionsRow, CheckoutSessionsUpdate, NewCheckoutSessions, SubscriptionsRow } from '../../db/schema.ts';
import { assertSessionTransition, type SessionStatus } from './status.ts';

export type SessionRow = CheckoutSessionsRow;

export async function countryOfResidence(q: Queryable, userId: string): Promise<string | null> {
  const row = await sqlOf(q).selectFrom('users').select('country_of_residence').where('id', '=', userId).executeTakeFirst();
  return row?.country_of_residence ?? null;
}

/** The account's latest submission in a category (what checkout sells against). */
export async function latestSubmission(q: Queryable, userId: string, category: string) {
  const row = await forAccount(q, userId)
    .selectFrom('questionnaire_submissions')
    .select(['id', 'outcome', 'result', 'version_id', 'answers', 'answers_enc', 'created_at'])
    .where('category', '=', category)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
  if (!row) return null;
  // Answers are sealed at rest (src/lib/sealed.ts).
  const { answers_enc, ...rest } = row;
  return { ...rest, answers: readJson(q, rest.answers, answers_enc, []) };
}

/**
 * What stops a payment for a review, in one statement: the account's consultation of the category
 * still waiting for a doctor, and the consultation (not cancelled or refunded) that already used the
 * submission. Checkout refuses on either; finalisation refunds a payment that meets either.
 */
export async function reviewConflicts(q: Queryable, userId: string, category: string, submissionId: string | null): Promise<{ openId: string | null; usedId: string | null }> {
  const row = await sqlOf(q)
    .selectNoFrom(() => [
      forAccount(q, userId)
        .selectFrom('consultations')
        .select('id')
        .where('category', '=', category)
        .where('status', 'in', ['pending_review', 'needs_information', 'awaiting_call'])
        .limit(1)
        .as('open_id'),
      forAccount(q, userId)
        .selectFrom('consultations')
        .select('id')
        .where('questionnaire_submission_id', '=', submissionId)
        .where('status', 'not in', ['cancelled', 'refunded'])
        .limit(1)
        .as('used_id'),
    ])
    .executeTakeFirstOrThrow();
  return { openId: row.open_id, usedId: submissionId ? row.used_id : null };
}

/** The account's active plan in the category whose paid period covers `now`, locked for the covered checkout. */
export async function lockCoveringPlan(q: Queryable, userId: string, category: string, now: Date): Promise<SubscriptionsRow | null> {
  const row = await forAccount(q, userId)
    .selectFrom('subscriptions')
    .selectAll()
    .where('category', '=', category)
    .where('status', '=', 'active')
    .where('current_period_end', '>', now)
    .orderBy('created_at', 'desc')
    .limit(1)
    .forUpdate()
    .executeTakeFirst();
  return row ?? null;
}

/** The account's newest plan that has not ended: where its card is managed. */
export async function latestLivePlan(q: Queryable, userId: string) {
  const row = await forAccount(q, userId)
    .selectFrom('subscriptions')
    .select(['provider', 'provider_customer_id'])
    .where('status', '<>', 'canceled')
    .orderBy('created_at', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row ?? null;
}

/** The account's plans that have not ended, newest first (the sandbox billing portal). */
export async function livePlans(q: Queryable, userId: string): Promise<SubscriptionsRow[]> {
  return forAccount(q, userId).selectFrom('subscriptions').selectAll().where('status', '<>', 'canceled').orderBy('created_at', 'desc').execute();
}

/** Serialises the finalisations of one account (its user row lock): the second sees the first's records. */
export async function lockAccount(q: Queryable, userId: string): Promise<void> {
  await sqlOf(q).selectFrom('users').select('id').where('id', '=', userId).forUpdate().execute();
}

export async function accountContact(q: Queryable, userId: string) {
  const row = await sqlOf(q).selectFrom('users').select(['email', 'first_name', 'locale']).where('id', '=', userId).executeTakeFirst();
  return row ?? null;
}

// ------------------------------------------------------------------ checkout_sessions

export async function insertSession(q: Queryable, values: NewCheckoutSessions): Promise<void> {
  await sqlOf(q).insertInto('checkout_sessions').values(values).execute();
}

/** A newer checkout for a submission replaces the account's older open ones: only one tab can pay. */
export async function expireOpenSessionsOfSubmission(q: Queryable, userId: string, submissionId: string) {
  assertSessionTransition('open', 'expired');
  return forAccount(q, userId)
    .updateTable('checkout_sessions')
    .set({ status: 'expired', updated_at: sql<Date>`now()` })
    .where('submission_id', '=', submissionId)
    .where('status', '=', 'open')
    .returning(['id', 'provider'])
    .execute();
}

/** A newer repeat checkout for a prescription replaces the account's older open ones (one payable per prescription, migration 1290). */
export async function expireOpenSessionsOfPrescription(q: Queryable, userId: string, prescriptionId: string) {
  assertSessionTransition('open', 'expired');
  return forAccount(q, userId)
    .updateTable('checkout_sessions')
    .set({ status: 'expired', updated_at: sql<Date>`now()` })
    .where('prescription_id', '=', prescriptionId)
    .where('status', '=', 'open')
    .returning(['id', 'provider'])
    .execute();
}

/** Scheduler: open sessions past their expiry become `expired` (any account). */
export async function expireDueSessionsForScheduler(q: Queryable, now: Date): Promise<void> {
  assertSessionTransition('open', 'expired');
  await sqlOf(q)
    .updateTable('checkout_sessions')
    .set({ status: 'expired', updated_at: sql<Date>`now()` })
    .where('status', '=', 'open')
    .where('expires_at', '<=', now)
    .execute();
}

export async function findOwnSession(q: Queryable, userId: string, provider: string, id: string): Promise<SessionRow | null> {
  const row = await forAccount(q, userId).selectFrom('checkout_sessions').selectAll().where('id', '=', id).where('provider', '=', provider).executeTakeFirst();
  return row ?? null;
}

/** A session by the provider's id, any account (the sandbox's own page and provider events). */
export async function findSessionForProvider(q: Queryable, provider: string, id: string): Promise<SessionRow | null> {
  const row = await sqlOf(q).selectFrom('checkout_sessions').selectAll().where('id', '=', id).where('provider', '=', provider).executeTakeFirst();
  return row ?? null;
}

/** Locks the account's own session for finalisation (the patient's session check). */
export async function lockOwnSession(q: Queryable, userId: string, id: string): Promise<SessionRow | null> {
  return (await forAccount(q, userId).selectFrom('checkout_sessions').selectAll().where('id', '=', id).forUpdate().executeTakeFirst()) ?? null;
}

/** Locks any account's session for finalisation: a provider event (or the sandbox page) names it by the provider's id. */
export async function lockSessionForProvider(q: Queryable, id: string): Promise<SessionRow | null> {
  return (await sqlOf(q).selectFrom('checkout_sessions').selectAll().where('id', '=', id).forUpdate().executeTakeFirst()) ?? null;
}

/** Columns a status move may set along with the status. */
export type SessionFields = Pick<
  CheckoutSessionsUpdate,
  | 'decline_code'
  | 'finalised_at'
  | 'consultation_id'
  | 'payment_method_fingerprint'
  | 'provider_payment_id'
  | 'provider_subscription_id'
  | 'payment_method_brand'
  | 'payment_method_last4'
  | 'provider_customer_id'
  | 'refunded_at'
  | 'refund_reason'
  | 'provider_refund_id'
>;

/**
 * The status machine's write: moves a session from `from` to `to` (with `fields`) only while it is
 * still in `from`. Null when it is no longer there (a concurrent move won).
 */
export async function transitionSession(
  q: Queryable,
  session: Pick<SessionRow, 'id' | 'user_id'>,
  from: string,
  to: SessionStatus,
  fields: SessionFields = {},
): Promise<SessionRow | null> {
  assertSessionTransition(from, to);
  // Every caller holds the session's row, so the write is filtered on its owner like any other.
  const row = await forAccount(q, session.user_id)
    .updateTable('checkout_sessions')
    .set({ ...fields, status: to, updated_at: sql<Date>`now()` })
    .where('id', '=', session.id)
    .where('status', '=', from)
    .returningAll()
    .executeTakeFirst();
  return row ?? null;
}

// ------------------------------------------------------------------ webhook_events

/** Records a provider event id once; false when it was already recorded (a redelivery). */
export async function recordWebhookEvent(q: Queryable, provider: string, eventId: string, type: string): Promise<boolean> {
  const row = await sqlOf(q)
    .insertInto('webhook_events')
    .values({ provider, event_id: eventId, type })
    .onConflict((oc) => oc.doNothing())
    .returning('event_id')
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * Retention (docs/privacy.md): checkout sessions that ended unpaid (`expired` or `declined`) with
 * an expiry before `before` are deleted, across accounts, at most `batch` per call. Never one that
 * was finalised, led to a consultation or has a payment row (payments are kept for 10 years).
 */
export async function deleteEndedUnpaidSessionsForScheduler(q: Queryable, before: Date, batch: number): Promise<number> {
  const { rowCount } = await q.execute(
    `delete from checkout_sessions where id in (
       select s.id from checkout_sessions s
        where s.status in ('expired', 'declined') and s.finalised_at is null and s.consultation_id is null and s.expires_at < $1
          and not exists (select 1 from payments p where p.checkout_session_id = s.id)
        order by s.expires_at limit $2 for update of s skip locked)`,
    [before, batch],
  );
  return rowCount;
}

// ---------------------------------------------------------------- the account's privacy

/** Every checkout session of the account, oldest first (the data export). */
export async function sessionsOfAccount(q: Queryable, userId: string): Promise<SessionRow[]> {
  return forAccount(q, userId).selectFrom('checkout_sessions').selectAll().orderBy('created_at').orderBy('id').execute();
}

/** Erasure: the account's unfinished checkout sessions (never paid, not finalised, no consultation) are deleted. */
export async function deleteUnfinishedSessionsOfAccount(q: Queryable, userId: string): Promise<void> {
  await forAccount(q, userId)
    .deleteFrom('checkout_sessions')
    .where('consultation_id', 'is', null)
    .where('finalised_at', 'is', null)
    .where((eb) => eb.not(eb.exists(forAccount(q, userId).selectFrom('payments as p').select('p.id').where('p.checkout_session_id', '=', eb.ref('checkout_sessions.id')))))
    .execute();
}
