// Finalisation (session check, provider webhook, sandbox Pay button; any order, any number of
// times, concurrently) locks the checkout_sessions row FOR UPDATE in one transaction and records
// the consultation, the payment and (for a plan) the subscription once: `finalised_at` is set in
// the same transaction, and unique constraints (consultations.checkout_session_id,
// payments.checkout_session_id, payments(provider, provider_payment_id)) back it up.
import type { Queryable } from '../../db/index.ts';
import type { Deps } from '../../deps.ts';
import { fail } from '../../http/errors.ts';
import { appLinks } from '../../mail/links.ts';
import { enqueueMail, LOCALES, type Locale } from '../../mail/outbox.ts';
import { providerFor, type SessionState } from '../../payment-providers/index.ts';
import { createConsultation } from '../consultations/index.ts';
import { createRepeatOrder, repeatRefusalOf } from '../fulfilment/index.ts';
import { duplicateRefundMail, formatAmount, paymentDescription, queueChargeReceipt, recordPayment } from '../payments/index.ts';
import { createPlanForCheckout, findLivePlan } from '../subscriptions/index.ts';
import { accountContact, lockAccount, lockOwnSession, lockSessionForProvider, reviewConflicts, transitionSession, type SessionRow } from './repository.ts';

const DAY_MS = 24 * 3600 * 1000;

export type DuplicateReason = 'submission_already_paid' | 'consultation_already_open' | 'plan_already_active' | 'repeat_not_available';

/** Why a paid session would pay a second time for a review already paid for (null: it would not). */
async function duplicateOf(q: Queryable, row: SessionRow): Promise<DuplicateReason | null> {
  const conflicts = await reviewConflicts(q, row.user_id, row.category, row.submission_id);
  if (conflicts.usedId) return 'submission_already_paid';
  if (conflicts.openId) return 'consultation_already_open';
  if (row.plan === 'subscription' && (await findLivePlan(q, row.user_id, row.category))) return 'plan_already_active';
  return null;
}

/**
 * A second paid session for the same review creates nothing: the money goes back through the
 * provider at once (idempotent per session), a plan the provider opened for it is cancelled, and the
 * patient is told by mail. The session ends as `refunded`.
 */
async function refundDuplicate(deps: Deps, q: Queryable, row: SessionRow, state: SessionState, reason: DuplicateReason, now: Date): Promise<SessionRow> {
  const provider = providerFor(deps, row.provider);
  const amount = state.amountCents ?? row.amount_cents;
  const refund = await provider.refund({ providerPaymentId: state.providerPaymentId ?? row.provider_payment_id ?? row.id, amountCents: amount, idempotencyKey: `duplicate_${row.id}` });
  if (refund.status === 'failed') {
    // Left unfinalised: the next session check or webhook retries; the back office sees it in the log.
    deps.log.error({ sessionId: row.id, reason }, 'duplicate checkout payment could not be refunded');
    throw fail('refund_failed', { message: 'The payment provider refused the refund of a duplicate payment.' });
  }
  if (state.providerSubscriptionId && provider.cancelSubscription) {
    await provider.cancelSubscription(state.providerSubscriptionId).catch((err: unknown) => {
      deps.log.error({ err, sessionId: row.id }, 'plan opened by a duplicate checkout could not be cancelled at the provider');
    });
  }
  const updated = await transitionSession(q, row, row.status, 'refunded', {
    finalised_at: now,
    refunded_at: now,
    refund_reason: reason,
    provider_refund_id: refund.id,
    provider_payment_id: state.providerPaymentId ?? row.provider_payment_id,
  });
  const user = await accountContact(q, row.user_id);
  if (user) {
    const locale: Locale = LOCALES.find((l) => l === user.locale) ?? 'en';
    await enqueueMail(q, user.email, duplicateRefundMail, locale, {
      first_name: user.first_name ?? '',
      amount: formatAmount(locale, amount, row.currency),
      link: appLinks.payments(deps.config),
    });
  }
  deps.log.warn({ sessionId: row.id, reason }, 'duplicate checkout payment refunded');
  // The row is locked by this transaction, so the move cannot lose a race.
  return updated ?? row;
}

/**
 * A paid repeat supply (kind `repeat_supply`, docs/prescriptions.md "Repeats"): under the
 * prescription's row lock fulfilment checks again that a repeat may be ordered (still valid, a
 * repeat left, the interval passed, no supply waiting at the pharmacy) and opens its order; the
 * payment is recorded against the session. A payment that can no longer open one (another tab's
 * repeat came first, the prescription expired or was reissued meanwhile) is refunded at once, like
 * a duplicate, with `repeat_not_available`.
 */
async function finaliseRepeat(deps: Deps, q: Queryable, row: SessionRow, state: SessionState, now: Date): Promise<SessionRow> {
  const check = row.prescription_id ? await repeatRefusalOf(q, row.user_id, row.prescription_id, now) : null;
  if (!check?.supply) return refundDuplicate(deps, q, row, state, 'repeat_not_available', now);
  await createRepeatOrder(q, { userId: row.user_id, supply: check.supply, checkoutSessionId: row.id, at: now });
  const providerPaymentId = state.providerPaymentId ?? row.id;
  const product = `${row.treatment_name || row.treatment_id}${row.dosage ? ` ${row.dosage}` : ''}`;
  await recordPayment(q, {
    userId: row.user_id,
    provider: row.provider,
    providerPaymentId,
    providerCheckoutId: row.id,
    checkoutSessionId: row.id,
    isRecurring: false,
    billingReason: 'repeat_supply',
    amountCents: state.amountCents ?? row.amount_cents,
    currency: row.currency,
    status: 'succeeded',
    description: `${product}: repeat supply of a prescription${row.supply_days ? `, ${row.supply_days}-day supply` : ''}`,
    at: now,
    paymentMethodFingerprint: state.cardFingerprint ?? row.payment_method_fingerprint ?? null,
  });
  await queueChargeReceipt(deps, q, row.provider, providerPaymentId);
  const updated = await transitionSession(q, row, row.status, 'paid', {
    finalised_at: now,
    provider_payment_id: providerPaymentId,
    payment_method_brand: state.cardBrand ?? row.payment_method_brand,
    payment_method_last4: state.cardLast4 ?? row.payment_method_last4,
    provider_customer_id: state.providerCustomerId ?? row.provider_customer_id,
  });
  return updated ?? row;
}

/**
 * Records a paid session once: consultation, payment, and for a plan the subscription. Runs inside
 * `q` (a transaction). `userId`, when given, must own the session (else not found); without it
 * (provider events, the sandbox page) any account's session is finalised.
 */
export async function finaliseInTx(deps: Deps, q: Queryable, sessionId: string, state: SessionState, userId?: string): Promise<SessionRow | null> {
  const row = userId === undefined ? await lockSessionForProvider(q, sessionId) : await lockOwnSession(q, userId, sessionId);
  if (!row) return null;
  if (row.finalised_at) return row;
  if (state.clientReferenceId && state.clientReferenceId !== row.user_id) {
    deps.log.warn({ sessionId }, 'checkout session bound to another account; not finalised');
    return row;
  }
  const now = deps.clock.now();
  if (state.status !== 'paid') {
    if (state.status !== row.status && row.status === 'open' && state.status !== 'open') {
      return (await transitionSession(q, row, 'open', state.status, { decline_code: state.declineCode ?? row.decline_code })) ?? row;
    }
    return row;
  }
  // One charge per review. Finalisations of one account queue on its row, so the second of two
  // paid sessions sees the first's consultation and plan; the unique indexes of migration 0203 hold
  // the rule in the database even if a path forgets this check.
  await lockAccount(q, row.user_id);
  if (row.kind === 'repeat_supply') return finaliseRepeat(deps, q, row, state, now);
  const duplicate = await duplicateOf(q, row);
  if (duplicate) return refundDuplicate(deps, q, row, state, duplicate, now);
  let subscriptionId: string | null = null;
  if (row.plan === 'subscription') {
    const cycle = row.cycle_days ?? 28;
    const plan = await createPlanForCheckout(q, {
      userId: row.user_id,
      category: row.category,
      treatmentId: row.treatment_id,
      dosage: row.dosage,
      provider: row.provider,
      providerSubscriptionId: state.providerSubscriptionId,
      providerCustomerId: state.providerCustomerId ?? null,
      priceCents: row.amount_cents,
      currency: row.currency,
      cycleDays: cycle,
      startedAt: now,
      currentPeriodEnd: new Date(now.getTime() + cycle * DAY_MS),
      paymentMethodBrand: state.cardBrand,
      paymentMethodLast4: state.cardLast4,
    });
    subscriptionId = plan.id;
  }
  const consultation = await createConsultation(q, {
    userId: row.user_id,
    category: row.category,
    plan: row.plan === 'subscription' ? 'subscription' : 'one_off',
    origin: 'checkout',
    supplyDays: row.supply_days ?? (row.plan === 'subscription' ? row.cycle_days : null),
    treatmentId: row.treatment_id,
    dosage: row.dosage,
    submissionId: row.submission_id,
    subscriptionId,
    checkoutSessionId: row.id,
    collectionPharmacyId: row.collection_pharmacy_id,
  });
  const providerPaymentId = state.providerPaymentId ?? row.id;
  await recordPayment(q, {
    userId: row.user_id,
    consultationId: consultation.id,
    subscriptionId,
    provider: row.provider,
    providerPaymentId,
    providerCheckoutId: row.id,
    checkoutSessionId: row.id,
    isRecurring: false,
    billingReason: row.plan === 'subscription' ? 'subscription_create' : 'checkout',
    amountCents: state.amountCents ?? row.amount_cents,
    currency: row.currency,
    status: 'succeeded',
    description: paymentDescription(row.treatment_name || row.treatment_id, row.dosage, row.plan, row.plan === 'subscription' ? row.cycle_days : row.supply_days),
    at: now,
    periodStart: subscriptionId ? now : null,
    paymentMethodFingerprint: state.cardFingerprint ?? row.payment_method_fingerprint ?? null,
  });
  await queueChargeReceipt(deps, q, row.provider, providerPaymentId);
  const updated = await transitionSession(q, row, row.status, 'paid', {
    finalised_at: now,
    consultation_id: consultation.id,
    provider_payment_id: providerPaymentId,
    provider_subscription_id: state.providerSubscriptionId,
    payment_method_brand: state.cardBrand ?? row.payment_method_brand,
    payment_method_last4: state.cardLast4 ?? row.payment_method_last4,
    provider_customer_id: state.providerCustomerId ?? row.provider_customer_id,
  });
  return updated ?? row;
}
