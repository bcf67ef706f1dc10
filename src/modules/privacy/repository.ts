// SQL of the privacy module (issue 23, docs/privacy.md). Owner of consents. The data export's reads
// of tables whose module offers no account-wide read, and the erasure's statements on them, are here
// too: every statement is scoped by the account id, and each names the rule it applies.
import type { Queryable } from '../../db/index.ts';
import { sql, sqlOf } from '../../db/kysely.ts';
import type { ConsentsRow } from '../../db/schema.ts';
import { readJson } from '../../lib/sealed.ts';

export const CONSENT_KINDS = ['health_data_processing', 'terms', 'privacy', 'marketing'] as const;
export type ConsentKind = (typeof CONSENT_KINDS)[number];

// ---------------------------------------------------------------- consents

export async function insertConsent(q: Queryable, userId: string, c: { kind: ConsentKind; version: string; granted: boolean; at: Date }): Promise<ConsentsRow> {
  return sqlOf(q)
    .insertInto('consents')
    .values({ user_id: userId, kind: c.kind, version: c.version, granted: c.granted, created_at: c.at })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Every consent decision of the account, newest first (the first row of a kind is its current state). */
export async function consentsOf(q: Queryable, userId: string): Promise<ConsentsRow[]> {
  return sqlOf(q).selectFrom('consents').selectAll().where('user_id', '=', userId).orderBy('created_at', 'desc').orderBy('id', 'desc').execute();
}

/** The account's current decision on one kind (null: never asked). */
export async function currentConsent(q: Queryable, userId: string, kind: ConsentKind): Promise<boolean | null> {
  const row = await sqlOf(q)
    .selectFrom('consents')
    .select('granted')
    .where('user_id', '=', userId)
    .where('kind', '=', kind)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row ? row.granted : null;
}

// ---------------------------------------------------------------- the data export's reads

/** Questionnaire drafts, submissions (with answers) and draft red flags of the account. */
export async function questionnaireProgressOf(q: Queryable, userId: string) {
  const db = sqlOf(q);
  // Answers are sealed at rest (src/lib/sealed.ts): the export carries them opened, never the sealed text.
  const drafts = await db.selectFrom('questionnaire_drafts').selectAll().where('user_id', '=', userId).orderBy('created_at').orderBy('id').execute();
  const submissions = await db.selectFrom('questionnaire_submissions').selectAll().where('user_id', '=', userId).orderBy('created_at').orderBy('id').execute();
  return {
    drafts: drafts.map(({ data, data_enc, ...d }) => ({ ...d, data: readJson(q, data, data_enc, []) })),
    submissions: submissions.map(({ answers, answers_enc, ...s }) => ({ ...s, answers: readJson(q, answers, answers_enc, []) })),
    red_flags: await db.selectFrom('questionnaire_draft_red_flags').selectAll().where('user_id', '=', userId).orderBy('first_raised_at').execute(),
  };
}

export async function checkoutSessionsOf(q: Queryable, userId: string) {
  return sqlOf(q).selectFrom('checkout_sessions').selectAll().where('user_id', '=', userId).orderBy('created_at').orderBy('id').execute();
}

export async function subscriptionsOf(q: Queryable, userId: string) {
  return sqlOf(q).selectFrom('subscriptions').selectAll().where('user_id', '=', userId).orderBy('created_at').orderBy('id').execute();
}


/** Who referred the account (its referrer's id only: nothing else of another account). */
export async function referredByOf(q: Queryable, userId: string): Promise<string | null> {
  const row = await sqlOf(q).selectFrom('users').select('referred_by').where('id', '=', userId).executeTakeFirst();
  return row?.referred_by ?? null;
}

// ---------------------------------------------------------------- erasure

/** The account's live plans (to cancel, at the provider too, before the account is erased). */
export async function livePlansOf(q: Queryable, userId: string) {
  return sqlOf(q)
    .selectFrom('subscriptions')
    .select(['id', 'status', 'provider', 'provider_subscription_id'])
    .where('user_id', '=', userId)
    .where('status', 'in', ['active', 'past_due', 'paused'])
    .execute();
}

/** The account's consultations still waiting for a doctor (cancelled on erasure). */
export async function openConsultationsOf(q: Queryable, userId: string): Promise<string[]> {
  const rows = await sqlOf(q).selectFrom('consultations').select('id').where('user_id', '=', userId).where('status', 'in', ['pending_review', 'needs_information']).execute();
  return rows.map((r) => r.id);
}

/**
 * Erasure of what no retention rule keeps, outside the tables whose module erases its own
 * (accounts, messages, journal, mcp):
 * - questionnaire drafts and draft red flags: deleted;
 * - submissions that no consultation or checkout refers to: deleted (the others are part of the
 *   medical record and stay under the pseudonymous id);
 * - unfinished checkout sessions (never paid, no consultation): deleted;
 * - orders: the shipping address (name, street) emptied; the order and its items stay (dispensing record);
 * - prescription reissue requests still pending: deleted (no doctor decides for an erased account);
 *   decided ones stay with the prescriptions they concern;
 * - the mail outbox: every mail to the old address deleted.
 */
export async function eraseAccountData(q: Queryable, userId: string, email: string): Promise<void> {
  const db = sqlOf(q);
  await db.deleteFrom('questionnaire_drafts').where('user_id', '=', userId).execute();
  await db.deleteFrom('questionnaire_draft_red_flags').where('user_id', '=', userId).execute();
  await db
    .deleteFrom('checkout_sessions')
    .where('user_id', '=', userId)
    .where('consultation_id', 'is', null)
    .where('finalised_at', 'is', null)
    .where((eb) => eb.not(eb.exists(eb.selectFrom('payments as p').select('p.id').whereRef('p.checkout_session_id', '=', 'checkout_sessions.id'))))
    .execute();
  await db
    .deleteFrom('questionnaire_submissions')
    .where('user_id', '=', userId)
    .where((eb) => eb.not(eb.exists(eb.selectFrom('consultations as c').select('c.id').whereRef('c.questionnaire_submission_id', '=', 'questionnaire_submissions.id'))))
    .where((eb) => eb.not(eb.exists(eb.selectFrom('checkout_sessions as s').select('s.id').whereRef('s.submission_id', '=', 'questionnaire_submissions.id'))))
    .execute();
  await db.updateTable('orders').set({ shipping_address: sql`'{}'::jsonb`, updated_at: sql<Date>`now()` }).where('user_id', '=', userId).execute();
  await db.deleteFrom('prescription_reissue_requests').where('user_id', '=', userId).where('status', '=', 'pending').execute();
  await db.deleteFrom('mail_outbox').where(sql<string>`lower(to_address)`, '=', email.toLowerCase()).execute();
}
