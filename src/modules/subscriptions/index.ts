// What other modules (checkout finalisation, recurring charges, provider webhooks, the billing
// portal, consultations, the journal) may use of subscriptions. Only this module writes the table.
export {
  transitionPlan,
  findLivePlan,
  updatePlanDetails,
  setCancelAtPeriodEnd,
  updatePaymentMethod,
  lockPlanForProvider,
  syncPlanForProvider,
  setHeldInvoice,
  renewalApprovalOf,
} from './plans.ts';
export type { NewPlan, PlanRow, PlanFields, PlanDetails } from './repository.ts';
export {
  PLAN_STATUSES,
  PLAN_TRANSITIONS,
  LIVE_PLAN_STATUSES,
  canTransitionPlan,
  assertPlanTransition,
  canSetCancelAtPeriodEnd,
  isPlanStatus,
  type PlanStatus,
} from './status.ts';
export { chargeSubscriptionCycle, runDueCharges, MAX_FAILED_ATTEMPTS, type ChargeOutcome } from './charges.ts';
// The plan a paid checkout session starts (checkout finalisation, in its transaction).
export { createForCheckout as createPlanForCheckout } from './service.ts';
// The patient's plans and renewal options as the MCP connector reads them.
export { listSubscriptions, renewalOptions } from './service.ts';
// ... and confirms a pending renewal through the API's own path (engine verdict included).
export { confirmRenewal, renewalAnswers } from './service.ts';
// What a review's end does to the plan it would have supplied (the review desk's outcomes).
export { endPlanNow } from './service.ts';
// The account's plans for its data export and erasure (the privacy module).
export { plansOfAccount, livePlansOfAccount, deletePendingDoseChangesOfAccount, doseChangesOfAccount } from './plans.ts';
// The price-change notice sweep (scheduled by the compliance module, docs/compliance.md).
export { noticePriceChanges, pushNoticedPricesToProvider, firstChargeOnOrAfter, priceForPeriod } from './price-notices.ts';
