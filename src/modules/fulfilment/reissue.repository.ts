// Prescription reissue requests (docs/pharmacy.md). Patient reads take the account id.
import type { Queryable } from '../../db/index.ts';
import { sqlOf } from '../../db/kysely.ts';
import { forAccount } from '../../db/scope.ts';
import { listOrdering, orderBy, type Order } from '../../http/pagination.ts';
import type { PrescriptionReissueRequestsRow } from '../../db/schema.ts';
import { readText, sealText } from '../../lib/sealed.ts';

/**
 * A request as the module hands it out: the patient's reason and the doctor's reason are sealed at
 * rest (migration 1231, `*_enc`) and opened here.
 */
export type ReissueRow = Omit<PrescriptionReissueRequestsRow, 'reason' | 'reason_enc' | 'decision_reason' | 'decision_reason_enc'> & { reason: string; decision_reason: string | null };

function opened<R extends Pick<PrescriptionReissueRequestsRow, 'reason' | 'reason_enc' | 'decision_reason' | 'decision_reason_enc'>>(q: Queryable, r: R) {
  const { reason_enc, decision_reason_enc, ...rest } = r;
  return {
    ...rest,
    reason: readText(q, r.reason, reason_enc, ''),
    decision_reason: r.decision_reason ?? (decision_reason_enc ? readText(q, null, decision_reason_enc) : null),
  };
}

/** One of the account's prescriptions, locked (the request's checks run on it), or null. */
export async function lockOwnPrescription(q: Queryable, userId: string, prescriptionId: string) {
  return (await forAccount(q, userId).selectFrom('prescriptions').selectAll().where('id', '=', prescriptionId).forUpdate().executeTakeFirst()) ?? null;
}

export async function pendingRequestFor(q: Queryable, userId: string, prescriptionId: string): Promise<ReissueRow | null> {
  const row = await forAccount(q, userId).selectFrom('prescription_reissue_requests').selectAll().where('prescription_id', '=', prescriptionId).where('status', '=', 'pending').executeTakeFirst();
  return row ? opened(q, row) : null;
}

export async function insertReissueRequest(q: Queryable, r: { userId: string; prescriptionId: string; reason: string; at: Date }): Promise<ReissueRow> {
  const row = await sqlOf(q)
    .insertInto('prescription_reissue_requests')
    .values({ user_id: r.userId, prescription_id: r.prescriptionId, reason: null, reason_enc: sealText(q, r.reason), created_at: r.at })
    .returningAll()
    .executeTakeFirstOrThrow();
  return opened(q, row);
}

export async function countReissueRequests(q: Queryable, userId: string): Promise<number> {
  const r = await forAccount(q, userId).selectFrom('prescription_reissue_requests').select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow();
  return Number(r.n);
}

/** The patient's reissue requests: `ordering` whitelist (default newest first). */
export const REISSUE_ORDERING = listOrdering(['decided_at'], '-created_at');
/** The doctor's pending requests: `ordering` whitelist (default oldest first). */
export const PENDING_REISSUE_ORDERING = listOrdering([], 'created_at');

export async function pageReissueRequests(
  q: Queryable,
  userId: string,
  limit: number,
  offset: number,
  order: Order<(typeof REISSUE_ORDERING.fields)[number]> = orderBy({}, REISSUE_ORDERING),
): Promise<ReissueRow[]> {
  const rows = await forAccount(q, userId)
    .selectFrom('prescription_reissue_requests')
    .selectAll()
    .orderBy(order.field, order.direction)
    .orderBy('id', order.direction)
    .limit(limit)
    .offset(offset)
    .execute();
  return rows.map((r) => opened(q, r));
}

// ---- the doctor's side (a staff desk: across accounts)

export async function countPendingReissuesForClinician(q: Queryable): Promise<number> {
  const r = await sqlOf(q).selectFrom('prescription_reissue_requests').select((eb) => eb.fn.countAll<string>().as('n')).where('status', '=', 'pending').executeTakeFirstOrThrow();
  return Number(r.n);
}

/** Pending requests, oldest first, with the prescription and the patient's name. */
export async function pagePendingReissuesForClinician(q: Queryable, limit: number, offset: number, order: Order<'created_at'> = orderBy({}, PENDING_REISSUE_ORDERING)) {
  const rows = await sqlOf(q)
    .selectFrom('prescription_reissue_requests as x')
    .innerJoin('prescriptions as r', 'r.id', 'x.prescription_id')
    .innerJoin('users as u', 'u.id', 'x.user_id')
    .selectAll('x')
    .select(['r.treatment_name', 'r.dosage', 'r.valid_until', 'u.first_name', 'u.last_name'])
    .where('x.status', '=', 'pending')
    .orderBy(`x.${order.field}`, order.direction)
    .orderBy('x.id', order.direction)
    .limit(limit)
    .offset(offset)
    .execute();
  return rows.map((r) => opened(q, r));
}

/** A request with its prescription and the patient's contact, locked for the decision. */
export async function lockReissueForClinician(q: Queryable, id: string) {
  const row = await sqlOf(q)
    .selectFrom('prescription_reissue_requests as x')
    .innerJoin('prescriptions as r', 'r.id', 'x.prescription_id')
    .innerJoin('users as u', 'u.id', 'x.user_id')
    .selectAll('x')
    .select([
      'r.consultation_id',
      'r.category',
      'r.treatment_id',
      'r.treatment_name',
      'r.dosage',
      'r.instructions',
      'r.supply_days',
      'r.valid_until',
      'u.email',
      'u.locale',
      'u.first_name',
    ])
    .where('x.id', '=', id)
    .forUpdate('x')
    .executeTakeFirst();
  return row ? opened(q, row) : null;
}

export async function decideReissueForClinician(
  q: Queryable,
  id: string,
  d: { status: 'approved' | 'declined'; by: string; at: Date; decisionReason: string | null; newPrescriptionId: string | null },
): Promise<ReissueRow | null> {
  const row = await sqlOf(q)
    .updateTable('prescription_reissue_requests')
    .set({ status: d.status, decided_by: d.by, decided_at: d.at, decision_reason: null, decision_reason_enc: d.decisionReason === null ? null : sealText(q, d.decisionReason), new_prescription_id: d.newPrescriptionId })
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .returningAll()
    .executeTakeFirst();
  return row ? opened(q, row) : null;
}

/** Marks a prescription as the reissue of another. */
export async function setReissuedFromForClinician(q: Queryable, prescriptionId: string, originalId: string): Promise<void> {
  await sqlOf(q).updateTable('prescriptions').set({ reissued_from: originalId }).where('id', '=', prescriptionId).execute();
}
