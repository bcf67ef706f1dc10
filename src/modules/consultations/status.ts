// The consultation status set and its transitions: the ONE place that decides which moves are
// allowed (checkout, the review desk, refunds and renewals all go through `transition`).
//
//   pending_review    -> approved | rejected | needs_information | cancelled | refunded
//   needs_information -> pending_review | approved | rejected | cancelled | refunded
//   rejected          -> refunded
//   approved, cancelled, refunded: final
import { detailCode } from '../../http/errors.ts';
import type { Queryable } from '../../db/index.ts';

export const CONSULTATION_STATUSES = ['pending_review', 'approved', 'rejected', 'needs_information', 'cancelled', 'refunded'] as const;
export type ConsultationStatus = (typeof CONSULTATION_STATUSES)[number];

export const TRANSITIONS: Readonly<Record<ConsultationStatus, readonly ConsultationStatus[]>> = {
  pending_review: ['approved', 'rejected', 'needs_information', 'cancelled', 'refunded'],
  needs_information: ['pending_review', 'approved', 'rejected', 'cancelled', 'refunded'],
  rejected: ['refunded'],
  approved: [],
  cancelled: [],
  refunded: [],
};

/** Statuses a doctor may decide from. */
export const REVIEWABLE: readonly ConsultationStatus[] = ['pending_review', 'needs_information'];
/** Statuses that still wait for a doctor (an open consultation). */
export const OPEN_STATUSES: readonly ConsultationStatus[] = ['pending_review', 'needs_information'];

export const isConsultationStatus = (s: string): s is ConsultationStatus => (CONSULTATION_STATUSES as readonly string[]).includes(s);

export function canTransition(from: string, to: ConsultationStatus): boolean {
  return isConsultationStatus(from) && TRANSITIONS[from].includes(to);
}

/** 409 {detail, code: "invalid_status_transition"} unless from -> to is allowed. */
export function assertTransition(from: string, to: ConsultationStatus): void {
  if (!canTransition(from, to)) {
    throw detailCode(409, 'invalid_status_transition', `A consultation in status "${from}" cannot become "${to}".`);
  }
}

/**
 * Moves a consultation (locked with FOR UPDATE inside the caller's transaction) to `to`, with the
 * extra column values given. Returns the updated row. Throws 409 for a move the table forbids.
 */
export async function transition(
  q: Queryable,
  consultationId: string,
  to: ConsultationStatus,
  set: { doctor_id?: string | null; decision_reason?: string; decided_at?: Date | null; treatment_id?: string; dosage?: string } = {},
): Promise<Record<string, any>> {
  const [row] = await q.query('select id, status from consultations where id = $1 for update', [consultationId]);
  if (!row) throw new Error(`consultation ${consultationId} does not exist`);
  assertTransition(row.status, to);
  const cols: string[] = ['status = $2', 'updated_at = now()'];
  const params: unknown[] = [consultationId, to];
  for (const [k, v] of Object.entries(set)) {
    if (v === undefined) continue;
    params.push(v);
    cols.push(`${k} = $${params.length}`);
  }
  const [updated] = await q.query(`update consultations set ${cols.join(', ')} where id = $1 returning *`, params);
  return updated;
}
