// The checkout session status set and its transitions: the ONE place that decides which moves are
// allowed (checkout_sessions.status; migration 0820 holds the set in the database too).
//
//   open     -> paid | declined | expired | refunded
//   declined -> paid | refunded     (the provider reports a later successful payment)
//   expired  -> paid | refunded     (paid at the provider before our expiry reached it)
//   paid     -> paid | refunded     (paid -> paid: the sandbox page marks it paid, finalisation records it)
//   refunded: final                 (a duplicate payment for a review already paid for)
import { fail } from '../../http/errors.ts';

export const SESSION_STATUSES = ['open', 'paid', 'declined', 'expired', 'refunded'] as const;
export type SessionStatus = (typeof SESSION_STATUSES)[number];

export const SESSION_TRANSITIONS: Readonly<Record<SessionStatus, readonly SessionStatus[]>> = {
  open: ['paid', 'declined', 'expired', 'refunded'],
  declined: ['paid', 'refunded'],
  expired: ['paid', 'refunded'],
  paid: ['paid', 'refunded'],
  refunded: [],
};

export const isSessionStatus = (s: string): s is SessionStatus => (SESSION_STATUSES as readonly string[]).includes(s);

export function canTransitionSession(from: string, to: SessionStatus): from is SessionStatus {
  return isSessionStatus(from) && SESSION_TRANSITIONS[from].includes(to);
}

/** 409 {detail, code: "invalid_status_transition"} unless from -> to is allowed. */
export function assertSessionTransition(from: string, to: SessionStatus): asserts from is SessionStatus {
  if (!canTransitionSession(from, to)) throw fail('invalid_status_transition', { message: `A checkout session in status "${from}" cannot become "${to}".` });
}
