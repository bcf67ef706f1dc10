// SQL of the questionnaires module: every statement is scoped by the authenticated account id.
import type { Queryable } from '../../db/index.ts';

export async function profileFacts(q: Queryable, userId: string) {
  const [row] = await q.query<{ date_of_birth: string | null; gender: string | null; country_of_residence: string | null; locale: string | null }>(
    'select date_of_birth, gender, country_of_residence, locale from users where id = $1',
    [userId],
  );
  return row ?? { date_of_birth: null, gender: null, country_of_residence: null, locale: null };
}

/** The patient's draft in a category, created empty (current version) on first read. */
export async function ensureDraft(q: Queryable, userId: string, category: string, versionId: string) {
  await q.query('insert into questionnaire_drafts (user_id, category, version_id) values ($1, $2, $3) on conflict (user_id, category) do nothing', [userId, category, versionId]);
  const [row] = await q.query('select id, version_id, data, updated_at from questionnaire_drafts where user_id = $1 and category = $2', [userId, category]);
  return row;
}

export async function saveDraft(q: Queryable, userId: string, category: string, versionId: string, data: unknown[], now: Date) {
  const [row] = await q.query(
    `insert into questionnaire_drafts (user_id, category, version_id, data, updated_at) values ($1, $2, $3, $4::jsonb, $5)
     on conflict (user_id, category) do update set version_id = excluded.version_id, data = excluded.data, updated_at = excluded.updated_at
     returning id, version_id, data, updated_at`,
    [userId, category, versionId, JSON.stringify(data), now],
  );
  return row;
}

export async function lockDraft(q: Queryable, userId: string, category: string) {
  const [row] = await q.query('select id, version_id, data from questionnaire_drafts where user_id = $1 and category = $2 for update', [userId, category]);
  return row ?? null;
}

export async function deleteDraft(q: Queryable, userId: string, draftId: string) {
  await q.query('delete from questionnaire_drafts where id = $1 and user_id = $2', [draftId, userId]);
}

export async function latestSubmission(q: Queryable, userId: string, category: string, outcomes?: string[]) {
  const [row] = await q.query(
    `select id, category, version_id, answers, outcome, result, created_at from questionnaire_submissions
      where user_id = $1 and category = $2 ${outcomes ? 'and outcome = any($3::text[])' : ''} order by created_at desc, id desc limit 1`,
    outcomes ? [userId, category, outcomes] : [userId, category],
  );
  return row ?? null;
}

export async function insertSubmission(q: Queryable, userId: string, category: string, versionId: string, answers: unknown[], outcome: string, result: unknown, now: Date) {
  const [row] = await q.query(
    `insert into questionnaire_submissions (user_id, category, version_id, answers, outcome, result, created_at)
     values ($1, $2, $3, $4::jsonb, $5, $6::jsonb, $7) returning id, created_at`,
    [userId, category, versionId, JSON.stringify(answers), outcome, JSON.stringify(result), now],
  );
  return row;
}

/** Remembers red flags raised on a draft save (one row per code; later saves update the time). */
export async function recordDraftRedFlags(q: Queryable, userId: string, category: string, flags: { code: string; keys: string[] }[], now: Date) {
  for (const f of flags) {
    await q.query(
      `insert into questionnaire_draft_red_flags (user_id, category, code, question_keys, first_raised_at, last_raised_at) values ($1, $2, $3, $4::text[], $5, $5)
       on conflict (user_id, category, code) do update set last_raised_at = excluded.last_raised_at, times = questionnaire_draft_red_flags.times + 1`,
      [userId, category, f.code, f.keys, now],
    );
  }
}

export async function draftRedFlags(q: Queryable, userId: string, category: string): Promise<{ code: string; question_keys: string[]; first_raised_at: Date; last_raised_at: Date }[]> {
  return q.query('select code, question_keys, first_raised_at, last_raised_at from questionnaire_draft_red_flags where user_id = $1 and category = $2 order by code', [userId, category]);
}

/** The latest earlier submission whose result excluded at least one treatment (anti-gaming on exclusions). */
export async function latestSubmissionWithExclusions(q: Queryable, userId: string, category: string) {
  const [row] = await q.query(
    `select id, category, version_id, answers, outcome, result, created_at from questionnaire_submissions
      where user_id = $1 and category = $2 and result->'reasons' @> '[{"kind": "exclude_treatment"}]'::jsonb
      order by created_at desc, id desc limit 1`,
    [userId, category],
  );
  return row ?? null;
}

/** A submission by id (scoped by the owner), for re-checks at approval. */
export async function submissionById(q: Queryable, userId: string, id: string) {
  const [row] = await q.query('select id, category, version_id, answers, outcome, result, created_at from questionnaire_submissions where id = $1 and user_id = $2', [id, userId]);
  return row ?? null;
}
