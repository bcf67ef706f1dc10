// The SQL of GET /v1/users/consultations/, copied for the floor server (bench/floor.ts).
//
// THIS FILE MUST TRACK src/modules/consultations (routes.ts -> repository.ts serialiseConsultations,
// userSummaries) and src/http/auth.ts (verifyAccessToken's session check). When the route's SQL
// changes (fewer round trips, counters instead of count(*), named statements), change the
// statements below in the same commit: the floor's "same SQL" ratio is only meaningful while the
// floor sends the database exactly what the route sends, statement for statement, in the same
// order. The floor does none of the route's other work (access control, zod, envelopes, ISO
// dates), which is the overhead the ratio measures.
//
// Copied from the route as of e5e2ed2 (7 sequential round trips for a page whose consultations
// have a doctor and no questionnaire submission, as the bench's seed makes them):
//   session, count, page, user summary, doctors, payments, prescriptions.

/** Sent as named prepared statements (pg `name`) when the route does so too; today it does not. */
export const PREPARED = false;

export interface Statement {
  name: string;
  text: string;
}

const s = (name: string, text: string): Statement => ({ name: `floor_${name}`, text });

/** The statements of one page, in the route's order. `$n` parameters are listed by `pageStatements`. */
export const SAME_SQL = {
  // src/http/auth.ts verifyAccessToken: the account is active and the session not revoked.
  session: s(
    'session',
    `select u.id, u.email, u.locale, u.is_doctor, u.is_backoffice_admin, u.is_marketer
       from users u join refresh_families f on f.user_id = u.id
      where u.id = $1 and f.id = $2 and f.revoked_at is null and u.disabled_at is null and u.email_verified_at is not null`,
  ),
  // repository.ts countForUser
  count: s('count', 'select count(*)::int as n from consultations where user_id = $1'),
  // repository.ts pageForUser
  page: s('page', 'select * from consultations where user_id = $1 order by created_at desc, id desc limit $2 offset $3'),
  // repository.ts userSummaries
  summary: s(
    'summary',
    `select u.*,
       (select count(*)::int from consultations c where c.user_id = u.id) as consultation_count,
       (select coalesce(sum(p.amount_cents), 0)::int from payments p where p.user_id = u.id and p.status <> 'failed') as total_spent_cents,
       (select coalesce(sum(p.refunded_amount_cents), 0)::int from payments p where p.user_id = u.id) as total_refunded_cents,
       (select s.status from subscriptions s where s.user_id = u.id order by s.created_at desc limit 1) as subscription_status,
       (select max(s.created_at) from subscriptions s where s.user_id = u.id) as last_subscription_at,
       (select max(r.issued_at) from prescriptions r where r.user_id = u.id) as last_prescription_at
     from users u where u.id = any($1::uuid[])`,
  ),
  // repository.ts serialiseConsultations: doctors (only when a row has one)
  doctors: s('doctors', 'select id, first_name, last_name, email, doctor_license_number from users where id = any($1::uuid[])'),
  // repository.ts serialiseConsultations: payments
  payments: s('payments', 'select * from payments where consultation_id = any($1::uuid[]) order by created_at, id'),
  // repository.ts PRESCRIPTION_SELECT + serialiseConsultations
  prescriptions: s(
    'prescriptions',
    `select r.*, d.first_name as doctor_first_name, d.last_name as doctor_last_name, d.doctor_license_number
       from prescriptions r join users d on d.id = r.doctor_id where r.consultation_id = any($1::uuid[]) order by r.issued_at, r.id`,
  ),
  // repository.ts serialiseConsultations: submissions (only when a row has one)
  submissions: s('submissions', 'select id, category, version_id, outcome, result, created_at from questionnaire_submissions where id = any($1::uuid[])'),
} as const;

/** The floor's minimal query: one page by owner and date, no count, no summary, no session check. */
export const MINIMAL_SQL = s(
  'minimal',
  'select id, status, category, plan, treatment_id, dosage, created_at, updated_at from consultations where user_id = $1 order by created_at desc, id desc limit $2 offset $3',
);

type Row = Record<string, unknown>;
export type RunQuery = (statement: Statement, values: unknown[]) => Promise<Row[]>;

/**
 * One page with the route's statements, sequentially as the route sends them (each waits for the
 * previous one: that is the round-trip cost being compared). Returns the page body, assembled
 * without validation or reformatting.
 */
export async function sameSqlPage(run: RunQuery, auth: { userId: string; sessionId: string }, limit: number, offset: number) {
  const [me] = await run(SAME_SQL.session, [auth.userId, auth.sessionId]);
  if (!me) return null;
  const [countRow] = await run(SAME_SQL.count, [auth.userId]);
  const rows = await run(SAME_SQL.page, [auth.userId, limit, offset]);
  if (rows.length === 0) return { count: countRow?.n ?? 0, results: [] };
  const ids = rows.map((r) => r.id);
  const [summary] = await run(SAME_SQL.summary, [[...new Set(rows.map((r) => r.user_id))]]);
  const doctorIds = [...new Set(rows.map((r) => r.doctor_id).filter(Boolean))];
  const doctors = doctorIds.length ? await run(SAME_SQL.doctors, [doctorIds]) : [];
  const payments = await run(SAME_SQL.payments, [ids]);
  const prescriptions = await run(SAME_SQL.prescriptions, [ids]);
  const subIds = [...new Set(rows.map((r) => r.questionnaire_submission_id).filter(Boolean))];
  const submissions = subIds.length ? await run(SAME_SQL.submissions, [subIds]) : [];
  const byId = <T extends Row>(list: T[]) => new Map(list.map((x) => [x.id, x]));
  const doctorMap = byId(doctors);
  const submissionMap = byId(submissions);
  // The route never answers these two; the floor does not either (same body weight, no hash on the wire).
  const user: Row | null = summary ? { ...summary } : null;
  if (user) {
    delete user.password_hash;
    delete user.document_number_enc;
  }
  return {
    count: countRow?.n ?? 0,
    results: rows.map((r) => ({
      ...r,
      user,
      doctor: r.doctor_id ? (doctorMap.get(r.doctor_id) ?? null) : null,
      questionnaire_submission: r.questionnaire_submission_id ? (submissionMap.get(r.questionnaire_submission_id) ?? null) : null,
      payments: payments.filter((p) => p.consultation_id === r.id),
      prescriptions: prescriptions.filter((p) => p.consultation_id === r.id),
    })),
  };
}
