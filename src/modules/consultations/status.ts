// The consultation status set and its transitions: the ONE place that decides which moves are
// allowed (checkout, the review desk, refunds, renewals and the patient's reply all go through
// the transition functions of records.repository.ts, which update `where status = <from>`).
//
//   pending_review    -> approved | rejected | needs_information | awaiting_call | cancelled | refunded
//   needs_information -> pending_review | approved | rejected | awaiting_call | cancelled | refunded
//   awaiting_call     -> approved | rejected | needs_information | cancelled | refunded
//                        (the doctor asked for a call: the patient books one, docs/appointments.md)
//   rejected          -> refunded
//   approved, cancelled, refunded: final
import { fail } from '../../http/errors.ts';

export const CONSULTATION_STATUSES = ['pending_review', 'approved', 'rejected', 'needs_information', 'awaiting_call', 'cancelled', 'refunded'] as const;
export type ConsultationStatus = (typeof CONSULTATION_STATUSES)[number];

export const TRANSITIONS: Readonly<Record<ConsultationStatus, readonly ConsultationStatus[]>> = {
  pending_review: ['approved', 'rejected', 'needs_information', 'awaiting_call', 'cancelled', 'refunded'],
  needs_information: ['pending_review', 'approved', 'rejected', 'awaiting_call', 'cancelled', 'refunded'],
  awaiting_call: ['approved', 'rejected', 'needs_information', 'cancelled', 'refunded'],
  rejected: ['refunded'],
  approved: [],
  cancelled: [],
  refunded: [],
};

/** Statuses a doctor may decide from. */
export const REVIEWABLE: readonly ConsultationStatus[] = ['pending_review', 'needs_information', 'awaiting_call'];
/** Statuses that still wait for a doctor (an open consultation). */
export const OPEN_STATUSES: readonly ConsultationStatus[] = ['pending_review', 'needs_information', 'awaiting_call'];

export const isConsultationStatus = (s: string): s is ConsultationStatus => (CONSULTATION_STATUSES as readonly string[]).includes(s);

export function canTransition(from: string, to: ConsultationStatus): boolean {
  return isConsultationStatus(from) && TRANSITIONS[from].includes(to);
}

/** 409 {detail, code: "invalid_status_transition"} unless from -> to is allowed. */
export function assertTransition(from: string, to: ConsultationStatus): void {
  if (!canTransition(from, to)) {
    throw fail('invalid_status_transition', { message: `A consultation in status "${from}" cannot become "${to}".` });
  }
}
