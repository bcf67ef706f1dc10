// Dose-change requests between renewals (docs/plan-management.md): the only writer of
// plan_dose_change_requests. Patient-scoped functions take the account id and put it in the SQL; the
// review desk's act on any patient by design and say so (`...ForClinician`). Notes are sealed at rest.
import type { Queryable } from '../../db/index.ts';
import { sql, sqlOf } from '../../db/kysely.ts';
import { openText, sealText } from '../../lib/sealed.ts';
import type { PlanDoseChangeRequestsRow } from '../../db/schema.ts';
import { forAccount } from '../../db/scope.ts';

export type DoseChangeRow = Omit<PlanDoseChangeRequestsRow, 'note_enc' | 'decision_note_enc'> & { note: string; decision_note: string };

const opened = (q: Queryable, r: PlanDoseChangeRequestsRow): DoseChangeRow => {
  const { note_enc, decision_note_enc, ...rest } = r;
  return { ...rest, note: note_enc ? openText(q, note_enc) : '', decision_note: decision_note_enc ? openText(q, decision_note_enc) : '' };
};

export async function insertDoseChange(
  q: Queryable,
  input: { userId: string; subscriptionId: string; treatmentId: string; fromDosage: string; requestedDosage: string; note: string },
): Promise<DoseChangeRow> {
  const row = await sqlOf(q)
    .insertInto('plan_dose_change_requests')
    .values({
      user_id: input.userId,
      subscription_id: input.subscriptionId,
      treatment_id: input.treatmentId,
      from_dosage: input.fromDosage,
      requested_dosage: input.requestedDosage,
      note_enc: input.note ? sealText(q, input.note) : null,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return opened(q, row);
}

/** The account's requests of one plan, newest first. */
export async function doseChangesOfPlan(q: Queryable, userId: string, subscriptionId: string, limit = 50): Promise<DoseChangeRow[]> {
  const rows = await forAccount(q, userId)
    .selectFrom('plan_dose_change_requests')
    .selectAll()
    .where('subscription_id', '=', subscriptionId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
  return rows.map((r) => opened(q, r));
}

/** Every request of the account, oldest first, notes opened (the data export). */
export async function doseChangesOfAccount(q: Queryable, userId: string): Promise<DoseChangeRow[]> {
  const rows = await forAccount(q, userId).selectFrom('plan_dose_change_requests').selectAll().orderBy('created_at').orderBy('id').execute();
  return rows.map((r) => opened(q, r));
}

/** Account erasure: requests no doctor decided yet are deleted (they would wait on the desk for a patient who is gone); decided ones stay with the prescribing record. */
export async function deletePendingDoseChangesOfAccount(q: Queryable, userId: string): Promise<void> {
  await forAccount(q, userId).deleteFrom('plan_dose_change_requests').where('status', '=', 'pending').execute();
}

/** The latest request of each of the account's plans (the plan object's `dose_change_request`). */
export async function latestDoseChangesOfAccount(q: Queryable, userId: string, subscriptionIds: string[]): Promise<Map<string, DoseChangeRow>> {
  if (!subscriptionIds.length) return new Map();
  const rows = await forAccount(q, userId)
    .selectFrom('plan_dose_change_requests')
    .selectAll()
    .where('subscription_id', 'in', subscriptionIds)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
  const out = new Map<string, DoseChangeRow>();
  for (const r of rows) if (!out.has(r.subscription_id)) out.set(r.subscription_id, opened(q, r));
  return out;
}

/** The desk's queue: requests waiting for a doctor, oldest first (any patient, by design). */
export async function pendingDoseChangesForClinician(q: Queryable, limit: number, offset: number): Promise<{ count: number; rows: DoseChangeRow[] }> {
  const n = await sqlOf(q)
    .selectFrom('plan_dose_change_requests')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('status', '=', 'pending')
    .executeTakeFirstOrThrow();
  const rows = await sqlOf(q)
    .selectFrom('plan_dose_change_requests')
    .selectAll()
    .where('status', '=', 'pending')
    .orderBy('created_at', 'asc')
    .orderBy('id', 'asc')
    .limit(limit)
    .offset(offset)
    .execute();
  return { count: Number(n.n), rows: rows.map((r) => opened(q, r)) };
}

/** One request (any patient: the desk), optionally locked for the decision. */
export async function findDoseChangeForClinician(q: Queryable, id: string, lock = false): Promise<DoseChangeRow | null> {
  let query = sqlOf(q).selectFrom('plan_dose_change_requests').selectAll().where('id', '=', id);
  if (lock) query = query.forUpdate();
  const row = await query.executeTakeFirst();
  return row ? opened(q, row) : null;
}

/** The doctor's decision: only while the request is pending (null when another decision won). */
export async function decideDoseChangeForClinician(
  q: Queryable,
  id: string,
  d: { status: 'approved' | 'declined'; decidedDosage: string | null; note: string; doctorId: string; now: Date },
): Promise<DoseChangeRow | null> {
  const row = await sqlOf(q)
    .updateTable('plan_dose_change_requests')
    .set({
      status: d.status,
      decided_dosage: d.decidedDosage,
      decision_note_enc: d.note ? sealText(q, d.note) : null,
      decided_by: d.doctorId,
      decided_at: d.now,
      updated_at: sql<Date>`now()`,
    })
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .returningAll()
    .executeTakeFirst();
  return row ? opened(q, row) : null;
}
