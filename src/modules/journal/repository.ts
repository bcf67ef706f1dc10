// SQL of the journal (owner of weight_entries, injections, injection_plans, journal_notes,
// side_effect_reports, journal_goals): every statement is scoped by the account id.
import type { Queryable } from '../../db/index.ts';
import { sql, sqlOf } from '../../db/kysely.ts';
import { accountSql, forAccount } from '../../db/scope.ts';
import { listOrdering, type ListOrdering, type Order } from '../../http/pagination.ts';
import type {
  InjectionPlansRow,
  InjectionPlansUpdate,
  InjectionsRow,
  InjectionsUpdate,
  JournalNotesRow,
  SideEffectReportsRow,
  WeightEntriesRow,
  WeightEntriesUpdate,
} from '../../db/schema.ts';
import { readText, sealText } from '../../lib/sealed.ts';

// Free text sealed at rest (src/lib/sealed.ts): a note's content and a side-effect report's note are
// stored in `*_enc`; the plaintext column only holds rows written before that, until sealed at start.
export type JournalNote = Omit<JournalNotesRow, 'content' | 'content_enc'> & { content: string };
export type SideEffectReport = Omit<SideEffectReportsRow, 'note' | 'note_enc'> & { note: string };

const noteOf = (q: Queryable, { content, content_enc, ...row }: JournalNotesRow): JournalNote => ({ ...row, content: readText(q, content, content_enc) });
const reportOf = (q: Queryable, { note, note_enc, ...row }: SideEffectReportsRow): SideEffectReport => ({ ...row, note: readText(q, note, note_enc) });

export type Table = 'weight_entries' | 'injections' | 'journal_notes' | 'side_effect_reports';
export interface Rows {
  weight_entries: WeightEntriesRow;
  injections: InjectionsRow;
  journal_notes: JournalNote;
  side_effect_reports: SideEffectReport;
}

export async function count(q: Queryable, table: Table, userId: string): Promise<number> {
  const row = await forAccount(q, userId)
    .selectFrom(table)
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Each list's `ordering` whitelist and default: weight by day, injections by time, notes and reports by creation. */
export const ORDERINGS = {
  weight_entries: listOrdering(['logged_on', 'weight_kg'], '-logged_on'),
  injections: listOrdering(['injected_at'], '-injected_at'),
  journal_notes: listOrdering([], '-created_at'),
  side_effect_reports: listOrdering([], '-created_at'),
} satisfies { [K in Table]: ListOrdering<string> };

export type JournalOrder = Order<string>;

type Pager<T extends Table> = (q: Queryable, userId: string, order: JournalOrder, limit: number, offset: number) => Promise<Rows[T][]>;

const PAGERS: { [K in Table]: Pager<K> } = {
  weight_entries: (q, userId, o, limit, offset) =>
    forAccount(q, userId).selectFrom('weight_entries').selectAll().orderBy(sql.ref(o.field), o.direction).orderBy('id', o.direction).limit(limit).offset(offset).execute(),
  injections: (q, userId, o, limit, offset) =>
    forAccount(q, userId).selectFrom('injections').selectAll().orderBy(sql.ref(o.field), o.direction).orderBy('id', o.direction).limit(limit).offset(offset).execute(),
  journal_notes: async (q, userId, o, limit, offset) =>
    (await forAccount(q, userId).selectFrom('journal_notes').selectAll().orderBy(sql.ref(o.field), o.direction).orderBy('id', o.direction).limit(limit).offset(offset).execute()).map(
      (r) => noteOf(q, r),
    ),
  side_effect_reports: async (q, userId, o, limit, offset) =>
    (
      await forAccount(q, userId).selectFrom('side_effect_reports').selectAll().orderBy(sql.ref(o.field), o.direction).orderBy('id', o.direction).limit(limit).offset(offset).execute()
    ).map((r) => reportOf(q, r)),
};

/** A page of the account's entries in the asked order (a field of the table's whitelist, then the id the same way). */
export function page<T extends Table>(q: Queryable, table: T, userId: string, order: JournalOrder, limit: number, offset: number): Promise<Rows[T][]> {
  // The field is interpolated as an identifier: only the table's own whitelist reaches SQL.
  if (!ORDERINGS[table].fields.some((f) => f === order.field)) throw new Error(`not an ordering of ${table}: ${order.field}`);
  const pager: Pager<T> = PAGERS[table];
  return pager(q, userId, order, limit, offset);
}

export async function deleteOwn(q: Queryable, table: Table, userId: string, id: string): Promise<boolean> {
  const r = await forAccount(q, userId).deleteFrom(table).where('id', '=', id).executeTakeFirst();
  return Number(r.numDeletedRows) > 0;
}

/** One weight entry per day: a second entry for a day updates the first (`inserted` says which). */
export async function upsertWeight(q: Queryable, userId: string, weightKg: number, loggedOn: string, note: string | undefined) {
  return sqlOf(q)
    .insertInto('weight_entries')
    .values({ user_id: userId, weight_kg: weightKg, logged_on: loggedOn, note: note ?? '' })
    .onConflict((oc) =>
      oc.columns(['user_id', 'logged_on']).doUpdateSet({
        weight_kg: (eb) => eb.ref('excluded.weight_kg'),
        note: note === undefined ? sql<string>`weight_entries.note` : note,
        // A typed weight that differs from the one the desk verified for the day is no longer verified.
        verified_by: sql<string | null>`case when weight_entries.weight_kg = excluded.weight_kg then weight_entries.verified_by end`,
        verified_at: sql<Date | null>`case when weight_entries.weight_kg = excluded.weight_kg then weight_entries.verified_at end`,
        updated_at: sql<Date>`now()`,
      }),
    )
    .returningAll()
    .returning(sql<boolean>`(xmax = 0)`.as('inserted'))
    .executeTakeFirstOrThrow();
}

export async function updateWeight(q: Queryable, userId: string, id: string, fields: Pick<WeightEntriesUpdate, 'weight_kg' | 'logged_on' | 'note'>) {
  const row = await forAccount(q, userId)
    .updateTable('weight_entries')
    .set({
      ...fields,
      // The patient's edit of a verified weight or its day (to another value) ends the desk's verification of it.
      ...(fields.weight_kg !== undefined || fields.logged_on !== undefined
        ? (() => {
            const same = sql<boolean>`(${fields.weight_kg ?? null}::numeric is null or weight_entries.weight_kg = ${fields.weight_kg ?? null}::numeric) and (${fields.logged_on ?? null}::date is null or weight_entries.logged_on = ${fields.logged_on ?? null}::date)`;
            return { verified_by: sql<string | null>`case when ${same} then weight_entries.verified_by end`, verified_at: sql<Date | null>`case when ${same} then weight_entries.verified_at end` };
          })()
        : {}),
      updated_at: sql<Date>`now()`,
    })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
  return row ?? null;
}

/**
 * A weight the desk verified from a photo on the scales: the day's entry takes that weight, marked
 * verified (by whom, when); the note of an existing entry stays.
 */
export async function upsertVerifiedWeight(q: Queryable, userId: string, e: { weightKg: number; loggedOn: string; verifiedBy: string; verifiedAt: Date }) {
  return sqlOf(q)
    .insertInto('weight_entries')
    .values({ user_id: userId, weight_kg: e.weightKg, logged_on: e.loggedOn, note: '', verified_by: e.verifiedBy, verified_at: e.verifiedAt })
    .onConflict((oc) =>
      oc.columns(['user_id', 'logged_on']).doUpdateSet({
        weight_kg: (eb) => eb.ref('excluded.weight_kg'),
        verified_by: (eb) => eb.ref('excluded.verified_by'),
        verified_at: (eb) => eb.ref('excluded.verified_at'),
        updated_at: sql<Date>`now()`,
      }),
    )
    .returningAll()
    .executeTakeFirstOrThrow();
}

export interface NewInjection {
  medication?: string;
  dose: string;
  injected_at: Date | string;
  injection_site?: string | null;
  note?: string;
}

export async function insertInjection(q: Queryable, userId: string, input: NewInjection): Promise<InjectionsRow> {
  return sqlOf(q)
    .insertInto('injections')
    .values({ ...input, user_id: userId })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function updateInjection(
  q: Queryable,
  userId: string,
  id: string,
  fields: Pick<InjectionsUpdate, 'medication' | 'dose' | 'injected_at' | 'injection_site' | 'note'>,
): Promise<InjectionsRow | null> {
  const row = await forAccount(q, userId)
    .updateTable('injections')
    .set({ ...fields, updated_at: sql<Date>`now()` })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
  return row ?? null;
}

export async function insertNote(q: Queryable, userId: string, content: string): Promise<JournalNote> {
  return noteOf(q, await sqlOf(q).insertInto('journal_notes').values({ user_id: userId, content: null, content_enc: sealText(q, content) }).returningAll().executeTakeFirstOrThrow());
}

export async function findNote(q: Queryable, userId: string, id: string): Promise<JournalNote | null> {
  const row = await forAccount(q, userId).selectFrom('journal_notes').selectAll().where('id', '=', id).executeTakeFirst();
  return row ? noteOf(q, row) : null;
}

export async function updateNote(q: Queryable, userId: string, id: string, content: string): Promise<JournalNote | null> {
  const row = await forAccount(q, userId)
    .updateTable('journal_notes')
    .set({ content: null, content_enc: sealText(q, content), updated_at: sql<Date>`now()` })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
  return row ? noteOf(q, row) : null;
}

export async function insertSideEffect(
  q: Queryable,
  userId: string,
  input: { symptom: string; severity: string; started_on: string | null; note: string; flagged: boolean },
): Promise<SideEffectReport> {
  const { note, ...rest } = input;
  const row = await sqlOf(q)
    .insertInto('side_effect_reports')
    .values({ ...rest, note: null, note_enc: sealText(q, note), user_id: userId })
    .returningAll()
    .executeTakeFirstOrThrow();
  return reportOf(q, row);
}

export async function planFor(q: Queryable, userId: string): Promise<InjectionPlansRow | null> {
  const row = await forAccount(q, userId).selectFrom('injection_plans').selectAll().executeTakeFirst();
  return row ?? null;
}

/** The default plan, stored on the first write under the id the reads showed (no-op when it exists). */
export async function insertDefaultPlan(q: Queryable, userId: string, plan: { id: string; anchor_weekday: number; preferred_time: string; starts_on: string }): Promise<void> {
  await sqlOf(q)
    .insertInto('injection_plans')
    .values({ user_id: userId, ...plan })
    .onConflict((oc) => oc.column('user_id').doNothing())
    .execute();
}

export async function updatePlan(
  q: Queryable,
  userId: string,
  fields: Pick<InjectionPlansUpdate, 'medication' | 'anchor_weekday' | 'preferred_time' | 'starts_on' | 'active'>,
): Promise<InjectionPlansRow> {
  return forAccount(q, userId)
    .updateTable('injection_plans')
    .set({ ...fields, updated_at: sql<Date>`now()` })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** The account's weight entries, newest first (at most `limit`). */
export async function recentWeights(q: Queryable, userId: string, limit: number) {
  return forAccount(q, userId).selectFrom('weight_entries').select(['weight_kg', 'logged_on']).orderBy('logged_on', 'desc').limit(limit).execute();
}

/**
 * "Active treatment plan" (docs/journal.md): an approved consultation whose supply has not run out
 * (decided_at + supply_days, 30 days when the consultation predates supply tracking), or a
 * subscription that is active or past due (a failed charge does not end the treatment at once).
 * Reads consultations and subscriptions (owned elsewhere) in one statement.
 */
// A plan the patient paused is still their treatment (the paid supply runs on, the plan resumes): the
// journal stays open; a plan paused for a missed renewal or ended is not.
export async function hasActiveTreatmentPlan(q: Queryable, userId: string, now: Date): Promise<boolean> {
  const rows = await ACTIVE_TREATMENT_PLAN.query(q, userId, [now]);
  return rows.length > 0;
}

const ACTIVE_TREATMENT_PLAN = accountSql(
  (owner) => `
    select 1 as one from consultations
      where user_id = ${owner} and status = 'approved' and decided_at is not null
        and decided_at + make_interval(days => coalesce(supply_days, 30)) > $2
    union all
    select 1 from subscriptions where user_id = ${owner}
      and (status in ('active', 'past_due') or (status = 'paused' and paused_by_patient))
    limit 1`,
);

/** The account's goal weight, or null when it never set one. */
export async function goalFor(q: Queryable, userId: string) {
  const row = await forAccount(q, userId).selectFrom('journal_goals').select(['goal_weight_kg', 'updated_at']).executeTakeFirst();
  return row ?? null;
}

/** Sets (or clears, with null) the account's goal weight: one row per account. */
export async function upsertGoal(q: Queryable, userId: string, goalWeightKg: number | null) {
  return sqlOf(q)
    .insertInto('journal_goals')
    .values({ user_id: userId, goal_weight_kg: goalWeightKg })
    .onConflict((oc) => oc.column('user_id').doUpdateSet({ goal_weight_kg: (eb) => eb.ref('excluded.goal_weight_kg'), updated_at: sql<Date>`now()` }))
    .returning(['goal_weight_kg', 'updated_at'])
    .executeTakeFirstOrThrow();
}

/** Marks a report the red-flag desk took up (the row as it is now). */
export async function markSideEffectFlagged(q: Queryable, userId: string, id: string): Promise<SideEffectReport> {
  return reportOf(q, await forAccount(q, userId).updateTable('side_effect_reports').set({ flagged: true }).where('id', '=', id).returningAll().executeTakeFirstOrThrow());
}

// ---------------------------------------------------------------- the account's privacy

/** Every journal record of the account (the data export), oldest first. */
export async function journalOfAccount(q: Queryable, userId: string) {
  const [weight_entries, injections, notes, plans, side_effect_reports, goal] = [
    await forAccount(q, userId).selectFrom('weight_entries').selectAll().orderBy('logged_on').orderBy('id').execute(),
    await forAccount(q, userId).selectFrom('injections').selectAll().orderBy('injected_at').orderBy('id').execute(),
    await forAccount(q, userId).selectFrom('journal_notes').selectAll().orderBy('created_at').orderBy('id').execute(),
    await forAccount(q, userId).selectFrom('injection_plans').selectAll().orderBy('created_at').orderBy('id').execute(),
    await forAccount(q, userId).selectFrom('side_effect_reports').selectAll().orderBy('created_at').orderBy('id').execute(),
    await forAccount(q, userId).selectFrom('journal_goals').select(['goal_weight_kg', 'updated_at']).executeTakeFirst(),
  ];
  return {
    weight_entries,
    injections,
    notes: notes.map((r) => noteOf(q, r)),
    side_effect_reports: side_effect_reports.map((r) => reportOf(q, r)),
    injection_plan: plans.find((p) => p.active) ?? plans.at(-1) ?? null,
    injection_plans: plans,
    goal: goal ?? null,
  };
}

/**
 * Erasure: the patient's own tracking (weights, injections, notes, injection plans, goal weight) deleted. Side-effect
 * reports stay, under the account's pseudonymous id: they are pharmacovigilance records (docs/privacy.md).
 */
export async function deleteAccountJournal(q: Queryable, userId: string): Promise<void> {
  await forAccount(q, userId).deleteFrom('weight_entries').execute();
  await forAccount(q, userId).deleteFrom('injections').execute();
  await forAccount(q, userId).deleteFrom('journal_notes').execute();
  await forAccount(q, userId).deleteFrom('injection_plans').execute();
  await forAccount(q, userId).deleteFrom('journal_goals').execute();
}
