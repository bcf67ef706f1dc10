// SQL of the privacy module (docs/privacy.md). Owner of consents. The export's read of the
// questionnaire progress and the erasure of it are here too (every statement scoped by the account
// id); every other table is read and erased through its owning module's index.ts.
import type { Queryable } from '../../db/index.ts';
import { sqlOf } from '../../db/kysely.ts';
import { forAccount } from '../../db/scope.ts';
import type { ConsentsRow } from '../../db/schema.ts';
import { readJson } from '../../lib/sealed.ts';

export const CONSENT_KINDS = ['health_data_processing', 'terms', 'privacy', 'marketing', 'gp_sharing'] as const;
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
  return forAccount(q, userId).selectFrom('consents').selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').execute();
}

/** The account's current decision on one kind (null: never asked). */
export async function currentConsent(q: Queryable, userId: string, kind: ConsentKind): Promise<boolean | null> {
  const row = await forAccount(q, userId)
    .selectFrom('consents')
    .select('granted')
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
  // Answers are sealed at rest (src/lib/sealed.ts): the export carries them opened, never the sealed text.
  const drafts = await forAccount(q, userId).selectFrom('questionnaire_drafts').selectAll().orderBy('created_at').orderBy('id').execute();
  const submissions = await forAccount(q, userId).selectFrom('questionnaire_submissions').selectAll().orderBy('created_at').orderBy('id').execute();
  return {
    drafts: drafts.map(({ data, data_enc, ...d }) => ({ ...d, data: readJson(q, data, data_enc, []) })),
    submissions: submissions.map(({ answers, answers_enc, ...s }) => ({ ...s, answers: readJson(q, answers, answers_enc, []) })),
    red_flags: await forAccount(q, userId).selectFrom('questionnaire_draft_red_flags').selectAll().orderBy('first_raised_at').execute(),
  };
}

