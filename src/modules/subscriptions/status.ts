// The plan (subscription) status set and its transitions: the ONE place that decides which moves
// are allowed. Checkout creates plans `active`; renewal charges, dunning, the renewal cycle, the
// patient's cancel and the payment provider's webhooks all move them through `transitionPlan`.
//
//   active   -> active | past_due | paused | canceled     (active -> active: a period renewed)
//   past_due -> active | past_due | paused | canceled     (past_due -> past_due: another failed attempt)
//   paused   -> active | past_due | canceled
//   canceled: final
import { fail } from '../../http/errors.ts';

export const PLAN_STATUSES = ['active', 'past_due', 'paused', 'canceled'] as const;
export type PlanStatus = (typeof PLAN_STATUSES)[number];

export const PLAN_TRANSITIONS: Readonly<Record<PlanStatus, readonly PlanStatus[]>> = {
  active: ['active', 'past_due', 'paused', 'canceled'],
  past_due: ['active', 'past_due', 'paused', 'canceled'],
  paused: ['active', 'past_due', 'canceled'],
  canceled: [],
};

/** A plan that still supplies (or will again once paid or confirmed): the patient's live plan. */
export const LIVE_PLAN_STATUSES: readonly PlanStatus[] = ['active', 'past_due', 'paused'];

export const isPlanStatus = (s: string): s is PlanStatus => (PLAN_STATUSES as readonly string[]).includes(s);

export function canTransitionPlan(from: string, to: PlanStatus): boolean {
  return isPlanStatus(from) && PLAN_TRANSITIONS[from].includes(to);
}

/** 409 {detail, code: "invalid_status_transition"} unless from -> to is allowed. */
export function assertPlanTransition(from: string, to: PlanStatus): void {
  if (!canTransitionPlan(from, to)) {
    throw fail('invalid_status_transition', { message: `A plan in status "${from}" cannot become "${to}".` });
  }
}

/**
 * Cancel-at-period-end may be set or cleared only on a live plan: the one check, used by the
 * patient's route and the sandbox billing portal alike.
 */
export const canSetCancelAtPeriodEnd = (status: string): boolean => (LIVE_PLAN_STATUSES as readonly string[]).includes(status);
