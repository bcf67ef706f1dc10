// SQL of the questionnaires module (owner of questionnaire_drafts, questionnaire_draft_red_flags and
// questionnaire_submissions). Every statement is scoped by the authenticated account id. jsonb
// columns are parsed here (zod) so that services get typed answers and results, never `unknown`.
import { z } from 'zod';
import type { Queryable } from '../../db/index.ts';
import { sql, sqlOf } from '../../db/kysely.ts';
import { forAccount } from '../../db/scope.ts';
import type { UsersRow } from '../../db/schema.ts';
import { readJson, sealJson } from '../../lib/sealed.ts';
import type { AnswerItem } from './engine.ts';

/** The profile facts the engine and the country check read (users is the accounts module's; reading it here is a join-style read). */
export type ProfileFacts = Pick<UsersRow, 'date_of_birth' | 'gender' | 'country_of_residence'> & { locale: string | null };

export async function profileFacts(q: Queryable, userId: string): Promise<ProfileFacts> {
  const row = await sqlOf(q).selectFrom('users').select(['date_of_birth', 'gender', 'country_of_residence', 'locale']).where('id', '=', userId).executeTakeFirst();
  return row ?? { date_of_birth: null, gender: null, country_of_residence: null, locale: null };
}

// Stored answers are what validateAnswers produced; parsing them (not casting) keeps a hand-edited
// or legacy row from reaching the engine as something else.
const StoredAnswer = z.object({
  step_id: z.number(),
  question_key: z.string(),
  value: z.union([z.string(), z.number(), z.boolean()]).optional(),
  values: z.record(z.string(), z.unknown()).optional(),
});
const StoredAnswers = z.array(StoredAnswer);
/** An answer as validateAnswers stores it (an engine AnswerItem without null values). */
export type StoredAnswer = z.infer<typeof StoredAnswer> & AnswerItem;

const answersOf = (json: unknown): StoredAnswer[] => StoredAnswers.parse(json ?? []);

// The parts of a stored result that the service reads back (anti-gaming, re-checks). The rest of the
// object is kept as stored (loose), so callers that pass it on see every field.
const StoredReason = z.looseObject({ code: z.string().optional(), kind: z.string().optional(), treatments: z.array(z.string()).optional() });
const StoredResult = z.looseObject({
  deciding_keys: z.array(z.string()).optional(),
  profile: z
    .object({ date_of_birth: z.string().nullable().optional(), gender: z.string().nullable().optional(), country_of_residence: z.string().nullable().optional() })
    .optional(),
  reasons: z.array(StoredReason).optional(),
});
export type StoredResult = z.infer<typeof StoredResult>;

export interface Draft {
  id: string;
  version_id: string;
  data: StoredAnswer[];
  updated_at: Date;
}

export interface Submission {
  id: string;
  category: string;
  version_id: string;
  answers: StoredAnswer[];
  outcome: string;
  result: StoredResult;
  created_at: Date;
}

// Answers are sealed at rest (`data_enc`, `answers_enc`: src/lib/sealed.ts); the plaintext columns
// only hold rows written before that, until the start-up pass seals them. `result` (the engine's
// verdict: outcome, reasons, deciding keys) stays readable: the anti-gaming check queries it.
const SUBMISSION_COLUMNS = ['id', 'category', 'version_id', 'answers', 'answers_enc', 'outcome', 'result', 'created_at'] as const;
const DRAFT_COLUMNS = ['id', 'version_id', 'data', 'data_enc', 'updated_at'] as const;

type SubmissionRow = { id: string; category: string; version_id: string; answers: unknown; answers_enc: string | null; outcome: string; result: unknown; created_at: Date };

function submissionOf(q: Queryable, { answers, answers_enc, ...row }: SubmissionRow): Submission {
  return { ...row, answers: answersOf(readJson(q, answers, answers_enc, [])), result: StoredResult.parse(row.result ?? {}) };
}

function draftOf(q: Queryable, { data, data_enc, ...row }: { id: string; version_id: string; data: unknown; data_enc: string | null; updated_at: Date }): Draft {
  return { ...row, data: answersOf(readJson(q, data, data_enc, [])) };
}

/** The patient's saved draft in a category, or undefined when none is saved (reads never create one). */
export async function findDraft(q: Queryable, userId: string, category: string): Promise<Draft | undefined> {
  const row = await forAccount(q, userId)
    .selectFrom('questionnaire_drafts')
    .select(DRAFT_COLUMNS)
    .where('category', '=', category)
    .executeTakeFirst();
  return row && draftOf(q, row);
}

/**
 * What an unsaved (empty) draft is derived from: the latest submission of the category (the previous
 * draft ended there) and the time the empty draft began (that submission, else the account's
 * creation). Undefined when the account does not exist.
 */
export async function emptyDraftBasis(q: Queryable, userId: string, category: string): Promise<{ lastSubmissionId: string | null; since: Date } | undefined> {
  const row = await sqlOf(q)
    .selectFrom('users as u')
    .leftJoinLateral(
      () =>
        forAccount(q, userId)
          .selectFrom('questionnaire_submissions')
          .select(['id', 'created_at'])
          .where('category', '=', category)
          .orderBy('created_at', 'desc')
          .orderBy('id', 'desc')
          .limit(1)
          .as('s'),
      (join) => join.onTrue(),
    )
    .select(['u.created_at as user_created_at', 's.id as submission_id', 's.created_at as submission_created_at'])
    .where('u.id', '=', userId)
    .executeTakeFirst();
  if (!row) return undefined;
  return { lastSubmissionId: row.submission_id, since: row.submission_created_at ?? row.user_created_at };
}

/** Replaces the answers of the patient's draft; the first save inserts it under `newId` (the id the empty draft was shown with). */
// Parallel first saves collide on the primary key (the same derived id) as well as on (user_id,
// category); an upsert names one target only, so the other answered 23505. Insert with no
// conflict target (any conflict: nothing), then update the stored row.
export async function saveDraft(q: Queryable, userId: string, category: string, versionId: string, data: AnswerItem[], now: Date, newId: string): Promise<Draft> {
  const db = sqlOf(q);
  const sealed = sealJson(q, data);
  for (let attempt = 0; attempt < 3; attempt++) {
    const inserted = await db
      .insertInto('questionnaire_drafts')
      .values({ id: newId, user_id: userId, category, version_id: versionId, data: null, data_enc: sealed, updated_at: now })
      .onConflict((oc) => oc.doNothing())
      .returning(DRAFT_COLUMNS)
      .executeTakeFirst();
    const row =
      inserted ??
      (await forAccount(q, userId)
        .updateTable('questionnaire_drafts')
        .set({ version_id: versionId, data: null, data_enc: sealed, updated_at: now })
        .where('category', '=', category)
        .returning(DRAFT_COLUMNS)
        .executeTakeFirst());
    // Neither: the conflicting row went away in between (a submit deleted it); insert again.
    if (row) return draftOf(q, row);
  }
  throw new Error('questionnaire draft: no row after three attempts');
}

/** The draft, locked until the end of the transaction (parallel submits of one draft store one submission). */
export async function lockDraft(q: Queryable, userId: string, category: string): Promise<Draft | null> {
  const row = await forAccount(q, userId)
    .selectFrom('questionnaire_drafts')
    .select(DRAFT_COLUMNS)
    .where('category', '=', category)
    .forUpdate()
    .executeTakeFirst();
  return row ? draftOf(q, row) : null;
}

export async function deleteDraft(q: Queryable, userId: string, draftId: string): Promise<void> {
  await forAccount(q, userId).deleteFrom('questionnaire_drafts').where('id', '=', draftId).execute();
}

/** The patient's latest submission of a category, optionally only among some outcomes. */
export async function latestSubmission(q: Queryable, userId: string, category: string, outcomes?: string[]): Promise<Submission | null> {
  let query = forAccount(q, userId).selectFrom('questionnaire_submissions').select(SUBMISSION_COLUMNS).where('category', '=', category);
  if (outcomes) query = query.where('outcome', 'in', outcomes);
  const row = await query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(1).executeTakeFirst();
  return row ? submissionOf(q, row) : null;
}

export async function insertSubmission(
  q: Queryable,
  userId: string,
  category: string,
  versionId: string,
  answers: AnswerItem[],
  outcome: string,
  result: unknown,
  now: Date,
): Promise<{ id: string; created_at: Date }> {
  return sqlOf(q)
    .insertInto('questionnaire_submissions')
    .values({ user_id: userId, category, version_id: versionId, answers: null, answers_enc: sealJson(q, answers), outcome, result: JSON.stringify(result), created_at: now })
    .returning(['id', 'created_at'])
    .executeTakeFirstOrThrow();
}

/** Remembers red flags raised on a draft save (one row per code; later saves update the time). */
export async function recordDraftRedFlags(q: Queryable, userId: string, category: string, flags: { code: string; keys: string[] }[], now: Date): Promise<void> {
  for (const f of flags) {
    await sqlOf(q)
      .insertInto('questionnaire_draft_red_flags')
      .values({ user_id: userId, category, code: f.code, question_keys: f.keys, first_raised_at: now, last_raised_at: now })
      .onConflict((oc) =>
        oc.columns(['user_id', 'category', 'code']).doUpdateSet((eb) => ({
          last_raised_at: eb.ref('excluded.last_raised_at'),
          times: eb('questionnaire_draft_red_flags.times', '+', 1),
        })),
      )
      .execute();
  }
}

export async function draftRedFlags(q: Queryable, userId: string, category: string): Promise<{ code: string; question_keys: string[]; first_raised_at: Date; last_raised_at: Date }[]> {
  return forAccount(q, userId)
    .selectFrom('questionnaire_draft_red_flags')
    .select(['code', 'question_keys', 'first_raised_at', 'last_raised_at'])
    .where('category', '=', category)
    .orderBy('code')
    .execute();
}

/** The latest earlier submission whose result excluded at least one treatment (anti-gaming on exclusions). */
export async function latestSubmissionWithExclusions(q: Queryable, userId: string, category: string): Promise<Submission | null> {
  const row = await forAccount(q, userId)
    .selectFrom('questionnaire_submissions')
    .select(SUBMISSION_COLUMNS)
    .where('category', '=', category)
    .where(sql<boolean>`result->'reasons' @> '[{"kind": "exclude_treatment"}]'::jsonb`)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row ? submissionOf(q, row) : null;
}

/** A submission by id (scoped by the owner), for re-checks at approval. */
export async function submissionById(q: Queryable, userId: string, id: string): Promise<Submission | null> {
  const row = await forAccount(q, userId).selectFrom('questionnaire_submissions').select(SUBMISSION_COLUMNS).where('id', '=', id).executeTakeFirst();
  return row ? submissionOf(q, row) : null;
}

/**
 * For the clinician's consultation page: a submission and the same account's submissions of its
 * category made before it (newest first, at most `limit`). Both reads are scoped by the account id.
 */
export async function submissionWithEarlier(q: Queryable, userId: string, submissionId: string, limit: number): Promise<{ current: Submission; earlier: Submission[] } | null> {
  const current = await submissionById(q, userId, submissionId);
  if (!current) return null;
  const rows = await forAccount(q, userId)
    .selectFrom('questionnaire_submissions')
    .select(SUBMISSION_COLUMNS)
    .where('category', '=', current.category)
    .where('id', '<>', submissionId)
    .where('created_at', '<=', current.created_at)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
  return { current, earlier: rows.map((r) => submissionOf(q, r)) };
}

/**
 * Retention (docs/privacy.md): questionnaire drafts untouched since before `before` are deleted,
 * across accounts, at most `batch` per call (SKIP LOCKED: several processes share the work). The
 * draft red flags stay (they reach a doctor with the next submission of the category).
 */
export async function deleteAbandonedDraftsForScheduler(q: Queryable, before: Date, batch: number): Promise<number> {
  const { rowCount } = await q.execute(
    `delete from questionnaire_drafts where id in (
       select id from questionnaire_drafts where updated_at < $1 order by updated_at limit $2 for update skip locked)`,
    [before, batch],
  );
  return rowCount;
}

/** One stored outcome as the patient's history lists it (no answers: the verdict only). */
export interface SubmissionSummary {
  id: string;
  category: string;
  outcome: string;
  result: StoredResult;
  created_at: Date;
}

/** The account's submissions (every category), newest first, a page at a time; scoped by the account id. */
export async function listSubmissions(q: Queryable, userId: string, limit: number, offset: number): Promise<{ count: number; results: SubmissionSummary[] }> {
  const total = await forAccount(q, userId).selectFrom('questionnaire_submissions').select((e) => e.fn.countAll<string>().as('n')).executeTakeFirst();
  const rows = await forAccount(q, userId)
    .selectFrom('questionnaire_submissions')
    .select(['id', 'category', 'outcome', 'result', 'created_at'])
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .offset(offset)
    .execute();
  return { count: Number(total?.n ?? 0), results: rows.map((r) => ({ ...r, result: StoredResult.parse(r.result ?? {}) })) };
}

/**
 * Which of `ids` are photos the account uploaded for this question of this questionnaire (the photos
 * module writes clinical_photos; a draft's photo answer may name only these).
 */
export async function photoIdsOfQuestion(q: Queryable, userId: string, category: string, questionKey: string, ids: readonly string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await forAccount(q, userId).selectFrom('clinical_photos').select('id').where('category', '=', category).where('question_key', '=', questionKey).where('id', 'in', [...ids]).execute();
  return new Set(rows.map((r) => r.id));
}

// ---------------------------------------------------------------- erasure

/**
 * Erasure of the account's questionnaire data that no retention rule keeps (the privacy module runs
 * it after the checkout module deleted the unfinished checkout sessions):
 * - questionnaire drafts and draft red flags: deleted;
 * - submissions that no consultation or checkout refers to: deleted (the others are part of the
 *   medical record and stay under the pseudonymous id).
 */
export async function eraseQuestionnaireData(q: Queryable, userId: string): Promise<void> {
  await forAccount(q, userId).deleteFrom('questionnaire_drafts').execute();
  await forAccount(q, userId).deleteFrom('questionnaire_draft_red_flags').execute();
  await forAccount(q, userId)
    .deleteFrom('questionnaire_submissions')
    .where((eb) => eb.not(eb.exists(forAccount(q, userId).selectFrom('consultations as c').select('c.id').where('c.questionnaire_submission_id', '=', eb.ref('questionnaire_submissions.id')))))
    .where((eb) => eb.not(eb.exists(forAccount(q, userId).selectFrom('checkout_sessions as s').select('s.id').where('s.submission_id', '=', eb.ref('questionnaire_submissions.id')))))
    .execute();
}
