// The money half of a plan's recurring charge: charge the provider once per period and attempt,
// record the payment (succeeded or failed) and queue the receipt. The plan half (which plans are
// due, dunning, the period moving on) belongs to the subscriptions module, which calls this inside
// its transaction with the plan's row locked.
import type { Queryable } from '../../db/index.ts';
import type { SubscriptionsRow } from '../../db/schema.ts';
import type { Deps } from '../../deps.ts';
import { providerFor } from '../../payment-providers/index.ts';
import { billingTreatment } from './catalogue.ts';
import { paymentDescription } from './product.ts';
import { queueChargeReceipt } from './receipts.ts';
import { recordPayment } from './service.ts';

/** The plan columns a charge reads. */
export type PlanToCharge = Pick<
  SubscriptionsRow,
  | 'id'
  | 'user_id'
  | 'provider'
  | 'provider_subscription_id'
  | 'price_cents'
  | 'currency'
  | 'payment_method_last4'
  | 'failed_attempts'
  | 'current_period_end'
  | 'category'
  | 'treatment_id'
  | 'dosage'
  | 'cycle_days'
>;

/** The description of a charge of a plan, with the treatment's catalogue name. */
export function planPaymentDescription(plan: Pick<SubscriptionsRow, 'category' | 'treatment_id' | 'dosage' | 'cycle_days'>): string {
  const name = billingTreatment(plan.category, plan.treatment_id)?.name ?? plan.treatment_id;
  return paymentDescription(name, plan.dosage, 'subscription', plan.cycle_days);
}

export type PeriodCharge =
  | { outcome: 'charged'; paymentId: string }
  | { outcome: 'failed'; paymentId: string | undefined }
  /** The provider bills the plan itself (Stripe): its webhooks record the outcome. */
  | { outcome: 'provider_managed' }
  /** This period was already paid (a retry or a second run): nothing charged or recorded. */
  | { outcome: 'already_paid' };

/**
 * Charges the period that starts at the plan's current period end. Idempotent per period and
 * attempt: the provider's idempotency key names both, and the unique index on (subscription_id,
 * period_start) of successful payments refuses a second success.
 */
export async function chargePlanPeriod(
  deps: Deps,
  q: Queryable,
  plan: PlanToCharge,
  reason: 'subscription_cycle' | 'early_order',
  consultationId: string | null,
  /** First day of the charged period: the plan's current period end unless a late renewal approval moved it. */
  periodStart: Date = new Date(plan.current_period_end),
): Promise<PeriodCharge> {
  const now = deps.clock.now();
  const provider = providerFor(deps, plan.provider);
  const result = await provider.chargeRenewal({
    subscriptionId: plan.id,
    providerSubscriptionId: plan.provider_subscription_id,
    amountCents: plan.price_cents,
    currency: plan.currency,
    cardLast4: plan.payment_method_last4,
    idempotencyKey: `${plan.id}_${periodStart.getTime()}_${plan.failed_attempts}`,
  });
  if (result.ok === 'provider_managed') return { outcome: 'provider_managed' };
  const payment = {
    userId: plan.user_id,
    consultationId,
    subscriptionId: plan.id,
    provider: plan.provider,
    providerPaymentId: result.providerPaymentId,
    isRecurring: true,
    billingReason: reason,
    amountCents: plan.price_cents,
    currency: plan.currency,
    description: planPaymentDescription(plan),
    at: now,
    periodStart,
    ignoreDuplicate: true,
  };
  if (result.ok) {
    const p = await recordPayment(q, { ...payment, status: 'succeeded' });
    if (!p) return { outcome: 'already_paid' };
    await queueChargeReceipt(deps, q, plan.provider, result.providerPaymentId);
    return { outcome: 'charged', paymentId: p.id };
  }
  const p = await recordPayment(q, { ...payment, status: 'failed', failureCode: result.failureCode });
  return { outcome: 'failed', paymentId: p?.id };
}
