// The SQL of GET /v1/users/consultations/ for the floor server (bench/floor.ts).
//
// The route sends two statements per page (docs/performance.md): the session check of
// src/http/auth.repository.ts and the consultation list of src/modules/consultations/repository.ts.
// Both statements are imported from there, so the floor always runs exactly what the route runs. The floor
// does none of the route's other work (access control, zod, envelopes, mapping rows to the
// response), which is the overhead the ratio measures.
import { SESSION_ACCOUNT_SQL } from '../src/http/auth.repository.ts';
import { CONSULTATION_LIST_SQL, DATA_VERSION_SQL } from '../src/modules/consultations/repository.ts';

/**
 * Sent as named prepared statements (pg `name`), as the service does on PostgreSQL: the "prepared"
 * floor. FLOOR_UNNAMED=1 sends every route's statements, /identical/'s included, as node-postgres
 * does by default, parsed and planned by the server on every call: the "bare" floor, the one the earlier goals
 * measured against (docs/performance.md, seventh round). bench/run.ts starts one of each.
 */
export const PREPARED = process.env.FLOOR_UNNAMED !== '1';

export interface Statement {
  name: string;
  text: string;
}

const s = (name: string, text: string): Statement => ({ name: `floor_${name}`, text });

/** The statements of one page, in the route's order. */
export const SAME_SQL = {
  // The session check: the account is active and the session not revoked.
  session: s('session', SESSION_ACCOUNT_SQL),
  // One statement: count and user summary (account_totals), the page with its doctors,
  // submissions, payments and prescriptions aggregated.
  list: s('list', CONSULTATION_LIST_SQL),
  // With a page cache (the floor's /cached/ page, as the service's cache does): the data version.
  version: s('version', DATA_VERSION_SQL),
} as const;

/** The floor's profile: one primary-key read of the profile's own columns (no orders, no forms). */
export const PROFILE_SQL = s(
  'profile',
  `select id, email, first_name, last_name, date_of_birth, gender, country_of_residence, timezone, locale, city, postal_code,
          issuing_state, document_type, addresses, is_doctor, is_backoffice_admin, is_marketer, is_referrer
     from users where id = $1`,
);

/** The floor's profile write: one update returning the same columns. */
export const PROFILE_UPDATE_SQL = s(
  'profile_update',
  `update users set first_name = $2, updated_at = now() where id = $1
   returning id, email, first_name, last_name, date_of_birth, gender, country_of_residence, timezone, locale, city, postal_code,
             issuing_state, document_type, addresses, is_doctor, is_backoffice_admin, is_marketer, is_referrer`,
);

/** The floor's minimal query: one page by owner and date, no count, no summary, no session check. */
export const MINIMAL_SQL = s(
  'minimal',
  'select id, status, category, plan, treatment_id, dosage, created_at, updated_at from consultations where user_id = $1 order by created_at desc, id desc limit $2 offset $3',
);

type Row = Record<string, unknown>;
export type RunQuery = (statement: Statement, values: unknown[]) => Promise<Row[]>;

/**
 * One page with the route's statements, sequentially as the route sends them (the second waits for
 * the first: that is the round-trip cost being compared). Returns the page as the database built it.
 */
export async function sameSqlPage(run: RunQuery, auth: { userId: string; sessionId: string }, limit: number, offset: number, open: (item: Row) => Row = (r) => r) {
  const [me] = await run(SAME_SQL.session, [auth.userId, auth.sessionId]);
  if (!me) return null;
  const [row] = await run(SAME_SQL.list, [auth.userId, limit, offset]);
  // The answers are sealed at rest: every implementation answering them opens each one (`open`).
  const page = (row?.page ?? []) as Row[];
  return { count: row?.consultation_count ?? 0, results: page.map(open), version: row?.data_version as string | undefined };
}
