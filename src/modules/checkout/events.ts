// The payment providers' entry points into this service, as the ports their adapters are given:
// provider webhook events (recorded once in webhook_events, applied in the same transaction), the
// sandbox checkout page and the sandbox billing portal.
import type { Queryable } from '../../db/index.ts';
import type { Deps } from '../../deps.ts';
import {
  providerFor,
  type ProviderEvent,
  type SandboxCheckoutPort,
  type SandboxPortalPort,
  type WebhookPort,
} from '../../payment-providers/index.ts';
import { transitionConsultationIfAllowed } from '../consultations/index.ts';
import { planPaymentDescription, queueChargeReceipt, recordPayment, recordProviderRefund, type PaymentInput } from '../payments/index.ts';
import {
  canTransitionPlan,
  isPlanStatus,
  lockPlanForProvider,
  priceForPeriod,
  renewalApprovalOf,
  setCancelAtPeriodEnd,
  setHeldInvoice,
  syncPlanForProvider,
  transitionPlan,
  updatePaymentMethod,
  type PlanRow,
} from '../subscriptions/index.ts';
import { finaliseInTx } from './finalise.ts';
import { findSessionForProvider, livePlans, recordWebhookEvent, transitionSession } from './repository.ts';
import { storedSession } from './service.ts';

const DAY_MS = 24 * 3600 * 1000;

type PlanInvoiceEvent = Extract<ProviderEvent, { kind: 'plan_invoice_paid' | 'plan_invoice_failed' }>;

/** The ledger entry of a provider's plan invoice, paid or failed (recorded once per provider payment id). */
function planInvoicePayment(plan: PlanRow, provider: string, event: PlanInvoiceEvent, at: Date): Omit<PaymentInput, 'status'> {
  return {
    userId: plan.user_id,
    subscriptionId: plan.id,
    provider,
    providerPaymentId: event.providerPaymentId,
    isRecurring: true,
    billingReason: event.billingReason,
    amountCents: event.amountCents ?? plan.price_cents,
    currency: (event.currency ?? plan.currency).toUpperCase(),
    description: planPaymentDescription(plan),
    at,
    ignoreDuplicate: true,
  };
}

async function applyEvent(deps: Deps, q: Queryable, provider: string, event: ProviderEvent): Promise<void> {
  const now = deps.clock.now();
  switch (event.kind) {
    case 'session_completed':
      await finaliseInTx(deps, q, event.state.id, event.state);
      return;
    case 'session_expired': {
      const row = await findSessionForProvider(q, provider, event.sessionId);
      if (row?.status === 'open') await transitionSession(q, row, 'open', 'expired');
      return;
    }
    case 'plan_invoice_created': {
      // The provider drafted the next period's invoice. It is charged only once the period's
      // renewal is approved (docs/renewals.md): otherwise it is held as a draft, and the
      // recurring-charge job releases it after the approval or discards it when the plan ends. A
      // provider error rolls the event back, so the provider redelivers it.
      const plan = await lockPlanForProvider(q, provider, event.providerSubscriptionId);
      const live = plan && plan.status !== 'canceled';
      if (live && (await renewalApprovalOf(q, plan.user_id, plan.id))) return;
      const p = providerFor(deps, provider);
      if (!live) {
        await p.discardInvoice?.(event.invoiceId);
        return;
      }
      await p.holdInvoice?.(event.invoiceId);
      await setHeldInvoice(q, plan.user_id, plan.id, event.invoiceId);
      return;
    }
    case 'plan_invoice_paid': {
      const plan = await lockPlanForProvider(q, provider, event.providerSubscriptionId);
      if (!plan) return;
      const start = event.periodStart ?? new Date(plan.current_period_end);
      const end = event.periodEnd ?? new Date(start.getTime() + plan.cycle_days * DAY_MS);
      await recordPayment(q, { ...planInvoicePayment(plan, provider, event, now), status: 'succeeded', periodStart: start });
      await queueChargeReceipt(deps, q, provider, event.providerPaymentId);
      // A noticed price the provider charged from this period on becomes the plan's own.
      await priceForPeriod(q, plan, start, now);
      // A plan that has ended stays ended (canceled is final in the plan's machine).
      if (isPlanStatus(plan.status) && canTransitionPlan(plan.status, 'active')) await transitionPlan(q, plan.user_id, plan.id, plan.status, 'active', { failed_attempts: 0, current_period_start: start, current_period_end: end });
      return;
    }
    case 'plan_invoice_failed': {
      const plan = await lockPlanForProvider(q, provider, event.providerSubscriptionId);
      if (!plan) return;
      await recordPayment(q, { ...planInvoicePayment(plan, provider, event, now), status: 'failed', failureCode: event.failureCode });
      if (isPlanStatus(plan.status) && canTransitionPlan(plan.status, 'past_due')) await transitionPlan(q, plan.user_id, plan.id, plan.status, 'past_due', { failed_attempts: plan.failed_attempts + 1 });
      return;
    }
    case 'charge_refunded': {
      const recorded = await recordProviderRefund(deps, q, provider, {
        providerPaymentIds: event.providerPaymentIds,
        amountRefundedCents: event.amountRefundedCents,
        refundId: event.refundId,
        chargeId: event.chargeId,
        reason: event.reason,
      });
      // A fully refunded first payment of a consultation still waiting for a doctor ends the review.
      if (recorded?.endsConsultationId) await transitionConsultationIfAllowed(q, recorded.payment.user_id, recorded.endsConsultationId, 'refunded');
      return;
    }
    case 'plan_updated':
      await syncPlanForProvider(q, provider, event.providerSubscriptionId, {
        status: event.status,
        cancelAtPeriodEnd: event.cancelAtPeriodEnd,
        periodStart: event.periodStart,
        periodEnd: event.periodEnd,
        canceledAt: event.canceledAt,
        now,
      });
      return;
  }
}

export const webhookPort = (deps: Deps): WebhookPort => ({
  receive: (provider, eventId, type, event) =>
    deps.db.tx(async (q) => {
      if (!(await recordWebhookEvent(q, provider, eventId, type))) return true;
      if (event) await applyEvent(deps, q, provider, event);
      return false;
    }),
});

export const sandboxCheckoutPort = (deps: Deps): SandboxCheckoutPort => ({
  load: (id) => findSessionForProvider(deps.db, 'sandbox', id),
  async decline(id, declineCode) {
    await deps.db.tx(async (q) => {
      const row = await findSessionForProvider(q, 'sandbox', id);
      if (row?.status === 'open') await transitionSession(q, row, 'open', 'declined', { decline_code: declineCode });
    });
  },
  async pay(id, card) {
    await deps.db.tx(async (q) => {
      const row = await findSessionForProvider(q, 'sandbox', id);
      if (row?.status !== 'open') return;
      await transitionSession(q, row, 'open', 'paid', {
        provider_payment_id: row.provider_payment_id ?? card.providerPaymentId,
        payment_method_brand: card.brand,
        payment_method_last4: card.last4,
        payment_method_fingerprint: card.fingerprint,
      });
    });
    // What a provider webhook does: the consultation exists when the browser comes back.
    const row = await findSessionForProvider(deps.db, 'sandbox', id);
    const state = row ? await providerFor(deps, 'sandbox').retrieveSession(storedSession(row)) : null;
    if (state) await deps.db.tx((q) => finaliseInTx(deps, q, id, state));
  },
});

export const sandboxPortalPort = (deps: Deps): SandboxPortalPort => ({
  plans: (userId) => livePlans(deps.db, userId),
  async replaceCard(userId, planId, card) {
    await updatePaymentMethod(deps.db, userId, planId, card.brand, card.last4, deps.clock.now());
  },
  async setCancelAtPeriodEnd(userId, planId, cancel) {
    await setCancelAtPeriodEnd(deps.db, userId, planId, cancel);
  },
});
