// SQL of the red-flag desk (owner of red_flags). Patient-side writes are scoped by the account id;
// the desk's reads and its resolution act on any patient's flag by design (doctors only).
import { listOrdering, type Order } from '../../http/pagination.ts';
import type { Queryable } from '../../db/index.ts';
import { sql, sqlOf } from '../../db/kysely.ts';
import { accountSql, forAccount } from '../../db/scope.ts';
import type { RedFlagsRow, UsersRow } from '../../db/schema.ts';
import { keyedTextHash, keyedTextHashes, readJson, readText, sealJson, sealText } from '../../lib/sealed.ts';
import { RED_FLAG_EXCERPT_HASH } from '../../lib/sealed-columns.repository.ts';

/** A flag as its readers see it: the excerpt and evidence opened (sealed at rest, migration 1230). */
export type RedFlag = Omit<RedFlagsRow, 'excerpt' | 'excerpt_enc' | 'excerpt_hash' | 'evidence' | 'evidence_enc'> & { excerpt: string; evidence: unknown };

function opened<R extends Pick<RedFlagsRow, 'excerpt' | 'excerpt_enc' | 'evidence' | 'evidence_enc'> & Partial<Pick<RedFlagsRow, 'excerpt_hash'>>>(q: Queryable, r: R) {
  const { excerpt_enc, excerpt_hash, evidence_enc, ...rest } = r;
  void excerpt_hash;
  return { ...rest, excerpt: readText(q, r.excerpt, excerpt_enc), evidence: readJson(q, r.evidence, evidence_enc, []) };
}

export interface NewRedFlag {
  source: string;
  sourceId: string | null;
  kind: 'emergency' | 'urgent' | 'history' | 'review';
  categories: string[];
  excerpt: string;
  /** The tier of a current flag (null for history and review), and when the desk must have acted. */
  tier: 'emergency' | 'urgent' | null;
  /** Minutes from now (the row's created_at) until the desk must have acted. */
  dueInMinutes: number;
  /** Per category, what the detector read (rule words or model n-grams). */
  evidence: { category: string; by: string; evidence: string[] }[];
}

/**
 * Files a flag, unless the same words from the same place already wait on the desk (a draft saved
 * again, a note edited without change): true when a row was written.
 */
export async function insertRedFlag(q: Queryable, userId: string, f: NewRedFlag): Promise<boolean> {
  const rows = await INSERT_RED_FLAG.query<{ id: string }>(q, userId, [
    f.source, f.sourceId, f.kind, f.categories, sealText(q, f.excerpt), f.tier, f.dueInMinutes, sealJson(q, f.evidence),
    keyedTextHash(q, RED_FLAG_EXCERPT_HASH, f.excerpt), keyedTextHashes(q, RED_FLAG_EXCERPT_HASH, f.excerpt),
  ]);
  return rows.length > 0;
}

// The same unresolved flag of the account is not written twice: the same words are the same keyed
// hash ($10, matched under every data key: $11), never a comparison of plaintext. Each parameter is
// cast: $1 and $3 are read twice, and both readings must agree on the type.
const INSERT_RED_FLAG = accountSql(
  (owner) => `
    insert into red_flags (user_id, source, source_id, kind, categories, excerpt, excerpt_enc, excerpt_hash, tier, due_at, evidence, evidence_enc)
    select ${owner}::uuid, $2::text, $3::uuid, $4::text, $5::text[], null, $6::text, $10::text, $7::text, now() + $8::int * interval '1 minute', null, $9::text
     where not exists (
       select 1 from red_flags
        where user_id = ${owner} and source = $2 and source_id is not distinct from $3::uuid
          and kind = $4 and excerpt_hash = any($11::text[]) and resolved_at is null)
    returning id`,
);

/** Where the patient lives and their language (the emergency notice). */
export async function patientLocality(q: Queryable, userId: string): Promise<Pick<UsersRow, 'country_of_residence' | 'locale'> | null> {
  const row = await sqlOf(q).selectFrom('users').select(['country_of_residence', 'locale']).where('id', '=', userId).executeTakeFirst();
  return row ?? null;
}

export type DeskStatus = 'open' | 'resolved' | 'all';
export type DeskRow = RedFlag & Pick<UsersRow, 'email' | 'first_name' | 'last_name'>;

function deskForClinician(q: Queryable, status: DeskStatus) {
  let query = sqlOf(q).selectFrom('red_flags as f').innerJoin('users as u', 'u.id', 'f.user_id');
  if (status === 'open') query = query.where('f.resolved_at', 'is', null);
  if (status === 'resolved') query = query.where('f.resolved_at', 'is not', null);
  return query;
}

export async function countForClinician(q: Queryable, status: DeskStatus): Promise<number> {
  const row = await deskForClinician(q, status).select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow();
  return Number(row.n);
}

/** The desk's `ordering` whitelist; without one: emergencies first, then urgent flags by deadline, then the oldest. */
export const DESK_ORDERING = listOrdering(['resolved_at'], 'created_at', 'emergencies first, then `created_at`');
export type DeskOrder = Order<(typeof DESK_ORDERING.fields)[number]>;

/** In the asked order, else emergencies first, then the oldest: the order a person works through them. */
export async function pageForClinician(q: Queryable, status: DeskStatus, limit: number, offset: number, order?: DeskOrder): Promise<DeskRow[]> {
  const base = deskForClinician(q, status).selectAll('f').select(['u.email', 'u.first_name', 'u.last_name']);
  const ordered = order
    ? base.orderBy(`f.${order.field}`, order.direction).orderBy('f.id', order.direction)
    : base.orderBy(sql`(f.kind = 'emergency')`, 'desc').orderBy(sql`(f.kind = 'urgent')`, 'desc').orderBy('f.due_at', 'asc').orderBy('f.created_at', 'asc').orderBy('f.id', 'asc');
  const rows = await ordered
    .limit(limit)
    .offset(offset)
    .execute();
  return rows.map((r) => opened(q, r));
}

export async function findForClinician(q: Queryable, id: string): Promise<DeskRow | null> {
  const row = await deskForClinician(q, 'all').selectAll('f').select(['u.email', 'u.first_name', 'u.last_name']).where('f.id', '=', id).executeTakeFirst();
  return row ? opened(q, row) : null;
}

/** Resolves an open flag (null when it does not exist or is already resolved). */
export async function resolveForClinician(q: Queryable, id: string, doctorId: string, resolution: string, at: Date): Promise<RedFlag | null> {
  const row = await sqlOf(q)
    .updateTable('red_flags')
    .set({ resolved_at: at, resolved_by: doctorId, resolution })
    .where('id', '=', id)
    .where('resolved_at', 'is', null)
    .returningAll()
    .executeTakeFirst();
  return row ? opened(q, row) : null;
}

/**
 * The treatments the patient was prescribed (any approved consultation, whenever; any plan that
 * has started), with their category: side-effect reports are accepted for each, and the
 * side-effect rules read the category (a GLP-1 is the weight_loss category).
 */
export async function prescribedCategories(q: Queryable, userId: string): Promise<string[]> {
  const rows = await PRESCRIBED_CATEGORIES.query<{ category: string }>(q, userId);
  return rows.map((r) => r.category);
}

const PRESCRIBED_CATEGORIES = accountSql(
  (owner) => `
    select category from consultations where user_id = ${owner} and status = 'approved'
    union
    select category from subscriptions where user_id = ${owner} and status in ('active', 'past_due', 'paused', 'canceled')`,
);

/** The account's own flags, oldest first (the data export). */
export async function flagsOfAccount(q: Queryable, userId: string) {
  const rows = await forAccount(q, userId)
    .selectFrom('red_flags')
    .select(['id', 'source', 'kind', 'categories', 'excerpt', 'excerpt_enc', 'evidence', 'evidence_enc', 'created_at', 'resolved_at', 'resolution'])
    .orderBy('created_at', 'asc')
    .orderBy('id', 'asc')
    .execute();
  return rows.map((r) => opened(q, r));
}

/**
 * Erasure: the patient's words go (the excerpt, its keyed hash and the evidence, sealed or not); the flag's kind, categories, times and
 * the clinician's resolution stay as part of the clinical record of what the service did, and a flag
 * still open leaves the desk, closed with a note saying why (the account, and with it any way to
 * reach the patient, is gone).
 */
export async function eraseFlagsOfAccount(q: Queryable, userId: string, at: Date, closedNote: string): Promise<void> {
  await forAccount(q, userId)
    .updateTable('red_flags')
    .set({ excerpt: null, excerpt_enc: null, excerpt_hash: null, evidence: null, evidence_enc: null, resolved_at: sql<Date>`coalesce(resolved_at, ${at})`, resolution: sql<string>`coalesce(resolution, ${closedNote})` })
    .execute();
}
