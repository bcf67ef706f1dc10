// The plan half of recurring charges: which plans are due, the charge of one period (the ledger's
// chargePlanPeriod does the money), and dunning. Every status change goes through transitionPlan.
// Moved here from billing so the ledger knows no plan rules and subscriptions -> payments
// is the only direction between the two folders.
import type { Deps } from '../../deps.ts';
import { chargePlanPeriod } from '../payments/index.ts';
import { plansDueForChargeForScheduler, renewalApprovalOf } from './charges.repository.ts';
import { cancelEndedPlansForScheduler, lockPlanForScheduler, plansWithHeldInvoicesForScheduler, setHeldInvoice, transitionPlan } from './repository.ts';
import { providerFor } from '../../payment-providers/index.ts';
import { isPlanStatus } from './status.ts';
import { priceForPeriod } from './price-notices.ts';

const DAY_MS = 24 * 3600 * 1000;
export const MAX_FAILED_ATTEMPTS = 4;

export type ChargeOutcome = 'charged' | 'failed' | 'provider_managed' | 'not_due' | 'not_found';

/**
 * Charges one billing cycle of a plan (scheduler, early orders, renewals). Idempotent per period:
 * a period that is already paid is not charged again (unique index on (subscription_id,
 * period_start) for successful payments). On success the period advances; on failure the payment
 * is recorded as failed (failure_code, failed_at) and the plan becomes past_due.
 *
 * Without `force` (the scheduler and its retries) only a period whose renewal a doctor approved is
 * charged, once: the new period starts at the later of the old period's end and the approval (the
 * supply ships at approval), so after an outage one charge is taken, never one per missed period
 * (docs/renewals.md). An early order (`force`) is charged first and reviewed after.
 */
export async function chargeSubscriptionCycle(
  deps: Deps,
  subscriptionId: string,
  reason: 'subscription_cycle' | 'early_order' | 'retry' = 'subscription_cycle',
  options: { consultationId?: string | null; force?: boolean } = {},
): Promise<{ outcome: ChargeOutcome; paymentId?: string }> {
  return deps.db.tx(async (q) => {
    const sub = await lockPlanForScheduler(q, subscriptionId);
    if (!sub || !isPlanStatus(sub.status)) return { outcome: 'not_found' as const };
    const now = deps.clock.now();
    // The next cycle starts at the period end, or at the date the patient moved it to (skip, pause, date change).
    const due = new Date(sub.next_delivery_at ?? sub.current_period_end);
    if (!options.force && (due > now || !['active', 'past_due'].includes(sub.status))) return { outcome: 'not_due' as const };
    if (sub.next_charge_attempt_at && new Date(sub.next_charge_attempt_at) > now && !options.force) return { outcome: 'not_due' as const };
    // An early order (force) starts its period at the period end, as before; it ends a moved date.
    let periodStart = options.force ? new Date(sub.current_period_end) : due;
    if (!options.force) {
      const approvedAt = await renewalApprovalOf(q, sub.user_id, sub.id);
      if (!approvedAt) return { outcome: 'not_due' as const };
      if (approvedAt > periodStart) periodStart = new Date(approvedAt);
    }
    // A new catalogue price only for a period its notice allows (price-notices.ts, docs/compliance.md).
    const priced = await priceForPeriod(q, sub, periodStart, now);
    const charge = await chargePlanPeriod(deps, q, priced, reason === 'retry' ? 'subscription_cycle' : reason, options.consultationId ?? null, periodStart);
    if (charge.outcome === 'provider_managed') return { outcome: 'provider_managed' as const };
    if (charge.outcome === 'already_paid') return { outcome: 'not_due' as const };
    if (charge.outcome === 'charged') {
      await transitionPlan(q, sub.user_id, sub.id, sub.status, 'active', {
        failed_attempts: 0,
        next_charge_attempt_at: null,
        current_period_start: periodStart,
        current_period_end: new Date(periodStart.getTime() + sub.cycle_days * DAY_MS),
        next_delivery_at: null,
        paused_by_patient: false,
      });
      return { outcome: 'charged' as const, paymentId: charge.paymentId };
    }
    const attempts = sub.failed_attempts + 1;
    // Dunning: retry daily; after MAX_FAILED_ATTEMPTS failures the plan is canceled.
    const cancel = attempts >= MAX_FAILED_ATTEMPTS;
    await transitionPlan(q, sub.user_id, sub.id, sub.status, cancel ? 'canceled' : 'past_due', {
      failed_attempts: attempts,
      next_charge_attempt_at: cancel ? null : new Date(now.getTime() + DAY_MS),
      ...(cancel ? { canceled_at: now } : {}),
    });
    return { outcome: 'failed' as const, paymentId: charge.paymentId };
  });
}

/**
 * Plans the provider bills itself (Stripe) whose next invoice was held as a draft because its
 * renewal was not approved (checkout/events.ts): once the renewal is approved the draft is
 * finalised and paid (Stripe's invoice.paid then records it); a plan that ended has its draft
 * discarded and its provider subscription cancelled. One plan's provider error leaves its invoice
 * held for the next run.
 */
export async function settleHeldInvoices(deps: Deps): Promise<void> {
  for (const plan of await plansWithHeldInvoicesForScheduler(deps.db, 100)) {
    const invoiceId = plan.held_provider_invoice_id!;
    const provider = providerFor(deps, plan.provider);
    try {
      if (plan.status === 'canceled') {
        await provider.discardInvoice?.(invoiceId);
        if (plan.provider_subscription_id) await provider.cancelSubscription?.(plan.provider_subscription_id);
      } else if (await renewalApprovalOf(deps.db, plan.user_id, plan.id)) {
        await provider.releaseInvoice?.(invoiceId);
      } else continue;
      await setHeldInvoice(deps.db, plan.user_id, plan.id, null);
    } catch (err: unknown) {
      deps.log.warn({ subscriptionId: plan.id, err: err instanceof Error ? err.message : String(err) }, 'a held provider invoice could not be settled');
    }
  }
}

/** Scheduler job: charges every due plan of providers that do not bill by themselves; ends plans set to cancel. */
export async function runDueCharges(deps: Deps): Promise<void> {
  const now = deps.clock.now();
  await settleHeldInvoices(deps);
  await cancelEndedPlansForScheduler(deps.db, now, 'stripe');
  for (let round = 0; round < 50; round++) {
    const due = await plansDueForChargeForScheduler(deps.db, now, 'stripe', 100);
    if (due.length === 0) return;
    let progressed = false;
    for (const id of due) {
      try {
        const r = await chargeSubscriptionCycle(deps, id, 'subscription_cycle');
        if (r.outcome === 'charged' || r.outcome === 'failed') progressed = true;
      } catch (err: unknown) {
        // One plan's provider error must not stop the others; the next run retries it.
        const e = err instanceof Error ? { message: err.message, code: 'code' in err ? err.code : undefined } : { message: String(err) };
        deps.log.warn({ subscriptionId: id, err: e }, 'recurring charge failed to run');
      }
    }
    if (!progressed) return;
  }
}
