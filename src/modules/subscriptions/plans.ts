// What other modules (checkout finalisation, provider webhooks, the review desk, privacy) may do with
// a plan row, each named for its behaviour. The statements stay in the repository files, private to
// this folder; every status change still goes through the machine in status.ts.
import * as repo from './repository.ts';
import * as charges from './charges.repository.ts';
import * as doseChanges from './dose-changes.repository.ts';

// ---- status and details, inside the caller's transaction

/**
 * Moves the account's plan from `from` to `to` (with `fields`) only while it is still in `from`:
 * 409 for a move the machine forbids; null when the plan is not the account's or a concurrent move won.
 */
export function transitionPlan(...args: Parameters<typeof repo.transitionPlan>) {
  return repo.transitionPlan(...args);
}

/** Sets the plan's treatment, dose, period or early-order marks (never its status); null when it is not the account's. */
export function updatePlanDetails(...args: Parameters<typeof repo.updatePlanDetails>) {
  return repo.updatePlanDetails(...args);
}

/** Sets or clears cancel-at-period-end on one of the account's plans; `ended` when it is no longer live. */
export function setCancelAtPeriodEnd(...args: Parameters<typeof repo.setCancelAtPeriodEnd>) {
  return repo.setCancelAtPeriodEnd(...args);
}

/** A new card on the plan; a past-due plan is retried at the next scheduler run (`retryAt`). */
export function updatePaymentMethod(...args: Parameters<typeof repo.updatePaymentMethod>) {
  return repo.updatePaymentMethod(...args);
}

// ---- the payment provider's view (webhooks)

/** Locks the plan a payment provider knows by its own id. */
export function lockPlanForProvider(...args: Parameters<typeof repo.lockPlanForProvider>) {
  return repo.lockPlanForProvider(...args);
}

/** Applies the provider's status, period and cancel-at-period-end; an ended plan stays ended. */
export function syncPlanForProvider(...args: Parameters<typeof repo.syncPlanForProvider>) {
  return repo.syncPlanForProvider(...args);
}

/** Records (or clears, with null) the provider's draft invoice held for the plan's current period. */
export function setHeldInvoice(...args: Parameters<typeof repo.setHeldInvoice>) {
  return repo.setHeldInvoice(...args);
}

/** When the doctor approved the renewal of the plan's current period (null: not approved). */
export function renewalApprovalOf(...args: Parameters<typeof charges.renewalApprovalOf>) {
  return charges.renewalApprovalOf(...args);
}

// ---- reads

/** The account's live plan in a category (active, past due or paused), newest first. */
export function findLivePlan(...args: Parameters<typeof repo.findLivePlan>) {
  return repo.findLivePlan(...args);
}

// ---- the account as a whole (the privacy module's export and erasure)

/** Every plan of the account, oldest first (the data export). */
export function plansOfAccount(...args: Parameters<typeof repo.plansOfAccount>) {
  return repo.plansOfAccount(...args);
}

/** The account's live plans (to cancel, at the provider too, before the account is erased). */
export function livePlansOfAccount(...args: Parameters<typeof repo.livePlansOfAccount>) {
  return repo.livePlansOfAccount(...args);
}

/** Every dose-change request of the account, oldest first (the data export). */
export function doseChangesOfAccount(...args: Parameters<typeof doseChanges.doseChangesOfAccount>) {
  return doseChanges.doseChangesOfAccount(...args);
}

/** Account erasure: dose-change requests no doctor decided yet are deleted; decided ones stay. */
export function deletePendingDoseChangesOfAccount(...args: Parameters<typeof doseChanges.deletePendingDoseChangesOfAccount>) {
  return doseChanges.deletePendingDoseChangesOfAccount(...args);
}
