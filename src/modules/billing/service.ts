// Checkout, finalisation, recurring charges and refunds.
//
// Finalisation (session check, provider webhook, sandbox Pay button; any order, any number of
// times, concurrently) locks the checkout_sessions row FOR UPDATE in one transaction and records
// the consultation, the payment and (for a plan) the subscription once: `finalised_at` is set in
// the same transaction, and unique constraints (consultations.checkout_session_id,
// payments.checkout_session_id, payments(provider, provider_payment_id)) back it up.
import { appLinks } from '../../mail/links.ts';
import type { Queryable } from '../../db/index.ts';
import type { Deps } from '../../deps.ts';
import { detailCode, errorName, fieldErrors, notFound } from '../../http/errors.ts';
import { providerFor } from '../../payments/index.ts';
import type { SessionState } from '../../payments/types.ts';
import { createConsultation, audit } from '../consultations/service.ts';
import { defaultDosage, submissionVerdict, verdictFor } from '../consultations/prescribing.ts';
import type { EngineVerdict, PrescribingVerdict } from '../questionnaires/prescribing.ts';
import { profileFacts } from '../questionnaires/repository.ts';
import { assertCountryServed } from '../questionnaires/service.ts';
import { transition, canTransition } from '../consultations/status.ts';
import { enqueueMail, LOCALES, type Locale } from '../../mail/outbox.ts';
import { duplicateRefundMail, formatAmount } from './mail.ts';
import { billingCategory, oneOffSupplyDays, planCycleDays, priceFor, type BillingTreatment } from './catalogue.ts';
import { paymentDescription, planPaymentDescription } from './product.ts';
import { queueChargeReceipt, queueRefundReceipt } from './receipts.ts';

const DAY_MS = 24 * 3600 * 1000;
/** Submission outcomes that may be paid for (held_for_review goes to the doctor like any other). */
export const PAYABLE_OUTCOMES = ['eligible', 'held_for_review'];

export interface CheckoutInput {
  category: string;
  plan: 'one_off' | 'subscription';
  treatment_id?: string;
  dosage?: string;
  success_url?: string;
  cancel_url?: string;
}

export interface CheckoutResult {
  covered_by_subscription: boolean;
  checkout_url: string | null;
  session_id: string | null;
  provider: string | null;
  consultation_id: string | null;
  plan: 'one_off' | 'subscription';
  category: string;
  treatment_id: string;
  dosage: string;
  amount_cents: number;
  currency: string;
  supply_days: number | null;
  expires_at: string | null;
}

function pickTreatment(treatments: BillingTreatment[], plan: 'one_off' | 'subscription', wanted: string | undefined, suggested: string | undefined, allowed: string[]) {
  if (wanted) return treatments.find((t) => t.id === wanted) ?? null;
  // Without a choice: the suggested treatment, else the first one the engine allowed that is sold on the plan.
  const priced = treatments.filter((t) => priceFor(t, plan) !== null && allowed.includes(t.id));
  return priced.find((t) => t.id === suggested) ?? priced[0] ?? null;
}

/**
 * A treatment or dose the engine did not allow for the patient's latest eligible submission (or
 * that breaks the titration rules): `400 {error_name, message, category, treatment_id, dosage,
 * reason_codes, allowed_treatments, allowed_dosages}` (docs/billing.md, checkout refusals).
 */
function refusal(category: string, treatmentId: string, dosage: string, v: PrescribingVerdict) {
  const treatment = v.refused === 'treatment';
  return errorName(
    400,
    treatment ? 'TREATMENT_NOT_ALLOWED' : 'DOSAGE_NOT_ALLOWED',
    treatment
      ? `This treatment cannot be prescribed on your latest questionnaire (${v.codes.join(', ')}).`
      : `This dosage cannot be prescribed now (${v.codes.join(', ')}). Allowed: ${v.allowed_dosages.join(', ')}.`,
    { category, treatment_id: treatmentId, dosage, reason_codes: v.codes, allowed_treatments: v.allowed_treatments, allowed_dosages: v.allowed_dosages },
  );
}

async function assertPrescribable(q: Queryable, userId: string, category: string, treatmentId: string, dosage: string, engine: EngineVerdict, now: Date) {
  const v = await verdictFor(q, { userId, category, treatmentId, dosage, engine, now });
  if (!v.ok) throw refusal(category, treatmentId, dosage, v);
}

/**
 * Where the provider may send the browser after payment: only this service's own pages and the
 * web app (WEB_APP_URL and the origins in CORS_ORIGINS): no open redirect through a payment page.
 */
function safeUrl(deps: Deps, field: string, raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw fieldErrors({ [field]: ['Enter a valid URL.'] });
  }
  if (u.protocol !== 'https:' && u.protocol !== 'http:') throw fieldErrors({ [field]: ['Only http and https URLs are accepted.'] });
  const allowed = [...new Set([new URL(deps.config.PUBLIC_BASE_URL).origin, new URL(deps.config.WEB_APP_URL).origin, ...deps.config.CORS_ORIGINS])];
  if (!allowed.includes(u.origin)) throw fieldErrors({ [field]: [`Only pages of this service or its web app are accepted (${allowed.join(', ')}).`] });
  return raw;
}

/** Active plan in the category whose paid period covers a new consultation, if any. */
async function coveringSubscription(q: Queryable, userId: string, category: string, now: Date) {
  const [s] = await q.query(
    "select * from subscriptions where user_id = $1 and category = $2 and status = 'active' and current_period_end > $3 order by created_at desc limit 1 for update",
    [userId, category, now],
  );
  return s ?? null;
}

export async function checkout(deps: Deps, user: { id: string; email: string }, input: CheckoutInput): Promise<CheckoutResult> {
  const successUrl = safeUrl(deps, 'success_url', input.success_url);
  const cancelUrl = safeUrl(deps, 'cancel_url', input.cancel_url);
  const category = await billingCategory(input.category);
  if (!category) throw fieldErrors({ category: [`Unknown category "${input.category}".`] });
  const [residence] = await deps.db.query('select country_of_residence from users where id = $1', [user.id]);
  assertCountryServed(residence?.country_of_residence ?? null);

  const [submission] = await deps.db.query(
    'select id, outcome, result, version_id, answers, created_at from questionnaire_submissions where user_id = $1 and category = $2 order by created_at desc, id desc limit 1',
    [user.id, input.category],
  );
  if (!submission) throw errorName(400, 'SUBMISSION_REQUIRED', 'Submit the questionnaire of this category before checkout.', { category: input.category });
  if (!PAYABLE_OUTCOMES.includes(submission.outcome)) {
    throw errorName(400, 'SUBMISSION_NOT_ELIGIBLE', 'The latest questionnaire of this category is not eligible for treatment.', { category: input.category, outcome: submission.outcome });
  }
  const result = submission.result ?? {};
  // The engine's verdict on that submission binds what is sold (docs/billing.md).
  const engine = submissionVerdict(submission, await profileFacts(deps.db, user.id));
  const suggested = result.treatment_id ?? result.recommended_treatment_id ?? result.recommended?.treatment_id;
  const treatment = pickTreatment(category.treatments, input.plan, input.treatment_id, suggested, engine.treatments);
  if (!treatment) {
    if (input.treatment_id) throw fieldErrors({ treatment_id: ['Not a treatment of this category.'] });
    throw errorName(400, 'PLAN_NOT_AVAILABLE', `No treatment of this category is sold as "${input.plan}".`, { category: input.category, plan: input.plan });
  }
  const amount = priceFor(treatment, input.plan);
  if (amount === null) throw errorName(400, 'PLAN_NOT_AVAILABLE', `This treatment is not sold as "${input.plan}".`, { category: input.category, plan: input.plan });
  // Default dose: the dose to continue with (the first step of a ladder for a first supply).
  const now = deps.clock.now();
  let dosage = input.dosage ?? (await defaultDosage(deps.db, user.id, input.category, treatment.id, now)) ?? treatment.dosages[0] ?? '';
  if (input.dosage !== undefined && treatment.dosages.length > 0 && !treatment.dosages.includes(input.dosage)) {
    throw fieldErrors({ dosage: [`Not a dosage of this treatment. Choose one of: ${treatment.dosages.join(', ')}.`] });
  }
  if (treatment.dosages.length === 0) dosage = input.dosage ?? '';
  await assertPrescribable(deps.db, user.id, input.category, treatment.id, dosage, engine, now);
  const cycleDays = input.plan === 'subscription' ? planCycleDays(input.category, treatment) : null;
  const supplyDays = input.plan === 'subscription' ? cycleDays : oneOffSupplyDays(input.category, treatment);

  // One open consultation per category: paying again for the same review is refused.
  const [open] = await deps.db.query("select id from consultations where user_id = $1 and category = $2 and status in ('pending_review', 'needs_information') limit 1", [
    user.id,
    input.category,
  ]);
  if (open) throw errorName(409, 'CONSULTATION_ALREADY_OPEN', 'A consultation of this category is already waiting for a doctor.', { consultation_id: open.id });

  // Each consultation is decided on its own questionnaire: a submission already used by a
  // consultation (other than a cancelled or refunded one) needs a new submission first.
  const [used] = await deps.db.query(
    "select id from consultations where user_id = $1 and questionnaire_submission_id = $2 and status not in ('cancelled', 'refunded') limit 1",
    [user.id, submission.id],
  );
  if (used) throw errorName(409, 'SUBMISSION_ALREADY_USED', 'Submit the questionnaire again before a new consultation.', { consultation_id: used.id, category: input.category });

  // Covered by an active plan: the consultation is created at once, without a payment.
  const covered = await deps.db.tx(async (q) => {
    const sub = await coveringSubscription(q, user.id, input.category, now);
    if (!sub) return null;
    // Re-checked under the plan's row lock: parallel checkouts create one covered consultation.
    const [again] = await q.query("select id from consultations where user_id = $1 and category = $2 and status in ('pending_review', 'needs_information') limit 1", [
      user.id,
      input.category,
    ]);
    if (again) throw errorName(409, 'CONSULTATION_ALREADY_OPEN', 'A consultation of this category is already waiting for a doctor.', { consultation_id: again.id });
    const coveredTreatment = input.treatment_id ? treatment.id : sub.treatment_id;
    const coveredDosage = input.dosage ?? (coveredTreatment === sub.treatment_id ? sub.dosage : null) ?? dosage;
    await assertPrescribable(q, user.id, input.category, coveredTreatment, coveredDosage, engine, now);
    const c = await createConsultation(q, {
      userId: user.id,
      category: input.category,
      plan: 'subscription',
      origin: 'subscription_covered',
      supplyDays: sub.cycle_days,
      treatmentId: coveredTreatment,
      dosage: coveredDosage,
      submissionId: submission.id,
      subscriptionId: sub.id,
    });
    return { c, sub };
  });
  if (covered) {
    return {
      covered_by_subscription: true,
      checkout_url: null,
      session_id: null,
      provider: null,
      consultation_id: covered.c.id,
      plan: 'subscription',
      category: input.category,
      treatment_id: covered.c.treatment_id,
      dosage: covered.c.dosage,
      amount_cents: 0,
      currency: covered.sub.currency,
      supply_days: covered.c.supply_days,
      expires_at: null,
    };
  }

  // A new checkout for this submission replaces the caller's older open ones: only one tab can pay.
  const older = await deps.db.query<{ id: string; provider: string }>(
    "update checkout_sessions set status = 'expired', updated_at = now() where user_id = $1 and submission_id = $2 and status = 'open' returning id, provider",
    [user.id, submission.id],
  );
  for (const s of older) {
    await providerFor(deps, s.provider)
      .expireSession?.(s.id)
      .catch((err: unknown) => deps.log.warn({ err, sessionId: s.id }, 'could not expire a replaced checkout session at the provider'));
  }

  const provider = providerFor(deps);
  const base = deps.config.PUBLIC_BASE_URL;
  const label = input.plan === 'subscription' ? `every ${cycleDays} days` : `${supplyDays} days`;
  const created = await provider.createCheckoutSession(deps.db, {
    userId: user.id,
    email: user.email,
    plan: input.plan,
    currency: 'EUR',
    amountCents: amount,
    cycleDays,
    lineItems: [
      { name: `Medical consultation and treatment: ${treatment.name}${dosage ? ` ${dosage}` : ''}`, description: input.plan === 'subscription' ? `Treatment plan, billed ${label}` : `One-off, ${label} supply`, amount_cents: amount, quantity: 1 },
    ],
    successUrl: successUrl ?? `${base}/checkout/complete/?session_id={CHECKOUT_SESSION_ID}`,
    cancelUrl: cancelUrl ?? `${base}/checkout/cancelled/?session_id={CHECKOUT_SESSION_ID}`,
    metadata: { category: input.category, plan: input.plan, treatment_id: treatment.id, dosage },
  });
  const fill = (u: string) => u.replaceAll('{CHECKOUT_SESSION_ID}', created.id);
  await deps.db.query(
    `insert into checkout_sessions (id, user_id, provider, category, plan, treatment_id, treatment_name, dosage, submission_id, amount_cents, currency,
       status, success_url, cancel_url, expires_at, checkout_url, cycle_days, supply_days, created_at, updated_at)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, 'EUR', 'open', $11, $12, $13, $14, $15, $16, $17, $17)`,
    [
      created.id,
      user.id,
      provider.name,
      input.category,
      input.plan,
      treatment.id,
      treatment.name,
      dosage,
      submission.id,
      amount,
      fill(successUrl ?? `${base}/checkout/complete/?session_id={CHECKOUT_SESSION_ID}`),
      fill(cancelUrl ?? `${base}/checkout/cancelled/?session_id={CHECKOUT_SESSION_ID}`),
      created.expiresAt,
      created.url,
      cycleDays,
      supplyDays,
      now,
    ],
  );
  return {
    covered_by_subscription: false,
    checkout_url: created.url,
    session_id: created.id,
    provider: provider.name,
    consultation_id: null,
    plan: input.plan,
    category: input.category,
    treatment_id: treatment.id,
    dosage,
    amount_cents: amount,
    currency: 'EUR',
    supply_days: supplyDays,
    expires_at: created.expiresAt.toISOString(),
  };
}

export interface SessionView {
  id: string;
  provider: string;
  status: 'open' | 'paid' | 'declined' | 'expired' | 'refunded';
  refund_reason: 'submission_already_paid' | 'consultation_already_open' | 'plan_already_active' | null;
  category: string;
  plan: string;
  treatment_id: string;
  dosage: string;
  amount_cents: number;
  currency: string;
  checkout_url: string | null;
  consultation_id: string | null;
  payment_id: string | null;
  subscription_id: string | null;
  expires_at: string;
  finalised_at: string | null;
}

const sessionNotFound = (provider: string) => detailCode(404, `${provider}_session_not_found`, 'No checkout session with this id exists for this account.');

async function viewOf(q: Queryable, row: any, status?: SessionView['status']): Promise<SessionView> {
  const [p] = await q.query('select id, subscription_id from payments where checkout_session_id = $1', [row.id]);
  return {
    id: row.id,
    provider: row.provider,
    status: status ?? row.status,
    refund_reason: row.refund_reason ?? null,
    category: row.category,
    plan: row.plan,
    treatment_id: row.treatment_id,
    dosage: row.dosage,
    amount_cents: row.amount_cents,
    currency: row.currency,
    checkout_url: row.status === 'open' ? row.checkout_url : null,
    consultation_id: row.consultation_id ?? null,
    payment_id: p?.id ?? null,
    subscription_id: p?.subscription_id ?? null,
    expires_at: new Date(row.expires_at).toISOString(),
    finalised_at: row.finalised_at ? new Date(row.finalised_at).toISOString() : null,
  };
}

/**
 * Records a paid session once: consultation, payment, and for a plan the subscription. Runs inside
 * `q` (a transaction). `userId`, when given, must own the session (else not found).
 */
export async function finaliseInTx(deps: Deps, q: Queryable, sessionId: string, state: SessionState, userId?: string): Promise<any | null> {
  const [row] = await q.query(`select * from checkout_sessions where id = $1 ${userId ? 'and user_id = $2' : ''} for update`, userId ? [sessionId, userId] : [sessionId]);
  if (!row) return null;
  if (row.finalised_at) return row;
  if (state.clientReferenceId && state.clientReferenceId !== row.user_id) {
    deps.log.warn({ sessionId }, 'checkout session bound to another account; not finalised');
    return row;
  }
  const now = deps.clock.now();
  if (state.status !== 'paid') {
    if (state.status !== row.status && row.status === 'open') {
      const [u] = await q.query('update checkout_sessions set status = $2, decline_code = coalesce($3, decline_code), updated_at = now() where id = $1 returning *', [
        row.id,
        state.status,
        state.declineCode,
      ]);
      return u;
    }
    return row;
  }
  // One charge per review. Finalisations of one account queue on its row, so the second of two
  // paid sessions sees the first's consultation and plan; the unique indexes of migration 0203 hold
  // the rule in the database even if a path forgets this check.
  await q.query('select id from users where id = $1 for update', [row.user_id]);
  const duplicate = await duplicateOf(q, row);
  if (duplicate) return refundDuplicate(deps, q, row, state, duplicate, now);
  let subscriptionId: string | null = null;
  if (row.plan === 'subscription') {
    const cycle = row.cycle_days ?? 28;
    const [sub] = await q.query(
      `insert into subscriptions (user_id, category, treatment_id, dosage, status, provider, provider_subscription_id, price_cents, currency, interval, interval_count,
         cycle_days, started_at, current_period_start, current_period_end, payment_method_brand, payment_method_last4, provider_customer_id, created_at, updated_at)
       values ($1, $2, $3, $4, 'active', $5, $6, $7, $8, 'day', $9, $9, $10, $10, $11, $12, $13, $14, $10, $10) returning id`,
      [
        row.user_id,
        row.category,
        row.treatment_id,
        row.dosage,
        row.provider,
        state.providerSubscriptionId,
        row.amount_cents,
        row.currency,
        cycle,
        now,
        new Date(now.getTime() + cycle * DAY_MS),
        state.cardBrand,
        state.cardLast4,
        state.providerCustomerId ?? null,
      ],
    );
    subscriptionId = sub.id;
  }
  const consultation = await createConsultation(q, {
    userId: row.user_id,
    category: row.category,
    plan: row.plan,
    origin: 'checkout',
    supplyDays: row.supply_days ?? (row.plan === 'subscription' ? row.cycle_days : null),
    treatmentId: row.treatment_id,
    dosage: row.dosage,
    submissionId: row.submission_id,
    subscriptionId,
    checkoutSessionId: row.id,
  });
  const providerPaymentId = state.providerPaymentId ?? row.id;
  await q.query(
    `insert into payments (user_id, consultation_id, subscription_id, provider, provider_payment_id, provider_checkout_id, is_recurring, billing_reason,
       amount_cents, currency, status, description, captured_at, checkout_session_id, invoice_number, period_start, created_at, updated_at)
     values ($1, $2, $3, $4, $5, $6, false, $7, $8, $9, 'succeeded', $10, $11, $6, nextval('invoice_number_seq'), $12, $11, $11)`,
    [
      row.user_id,
      consultation.id,
      subscriptionId,
      row.provider,
      providerPaymentId,
      row.id,
      row.plan === 'subscription' ? 'subscription_create' : 'checkout',
      state.amountCents ?? row.amount_cents,
      row.currency,
      paymentDescription(row.treatment_name || row.treatment_id, row.dosage, row.plan, row.plan === 'subscription' ? row.cycle_days : row.supply_days),
      now,
      subscriptionId ? now : null,
    ],
  );
  await queueChargeReceipt(deps, q, row.provider, providerPaymentId);
  const [updated] = await q.query(
    `update checkout_sessions set status = 'paid', finalised_at = $2, consultation_id = $3, provider_payment_id = $4, provider_subscription_id = $5,
       payment_method_brand = coalesce($6, payment_method_brand), payment_method_last4 = coalesce($7, payment_method_last4),
       provider_customer_id = coalesce($8, provider_customer_id), updated_at = now()
     where id = $1 returning *`,
    [row.id, now, consultation.id, providerPaymentId, state.providerSubscriptionId, state.cardBrand, state.cardLast4, state.providerCustomerId ?? null],
  );
  return updated;
}

type DuplicateReason = 'submission_already_paid' | 'consultation_already_open' | 'plan_already_active';

/** Why a paid session would pay a second time for a review already paid for (null: it would not). */
async function duplicateOf(q: Queryable, row: Record<string, any>): Promise<DuplicateReason | null> {
  if (row.submission_id) {
    const [used] = await q.query("select 1 from consultations where questionnaire_submission_id = $1 and status not in ('cancelled', 'refunded') limit 1", [row.submission_id]);
    if (used) return 'submission_already_paid';
  }
  const [open] = await q.query("select 1 from consultations where user_id = $1 and category = $2 and status in ('pending_review', 'needs_information') limit 1", [
    row.user_id,
    row.category,
  ]);
  if (open) return 'consultation_already_open';
  if (row.plan === 'subscription') {
    const [live] = await q.query("select 1 from subscriptions where user_id = $1 and category = $2 and status in ('active', 'past_due', 'paused') limit 1", [
      row.user_id,
      row.category,
    ]);
    if (live) return 'plan_already_active';
  }
  return null;
}

/**
 * A second paid session for the same review creates nothing: the money goes back through the
 * provider at once (idempotent per session), a plan the provider opened for it is cancelled, and the
 * patient is told by mail. The session ends as `refunded`.
 */
async function refundDuplicate(deps: Deps, q: Queryable, row: any, state: SessionState, reason: DuplicateReason, now: Date) {
  const provider = providerFor(deps, row.provider);
  const amount = state.amountCents ?? row.amount_cents;
  const refund = await provider.refund({ providerPaymentId: state.providerPaymentId ?? row.provider_payment_id ?? row.id, amountCents: amount, idempotencyKey: `duplicate_${row.id}` });
  if (refund.status === 'failed') {
    // Left unfinalised: the next session check or webhook retries; the back office sees it in the log.
    deps.log.error({ sessionId: row.id, reason }, 'duplicate checkout payment could not be refunded');
    throw detailCode(502, 'refund_failed', 'The payment provider refused the refund of a duplicate payment.');
  }
  if (state.providerSubscriptionId && provider.cancelSubscription) {
    await provider.cancelSubscription(state.providerSubscriptionId).catch((err: unknown) => {
      deps.log.error({ err, sessionId: row.id }, 'plan opened by a duplicate checkout could not be cancelled at the provider');
    });
  }
  const [updated] = await q.query(
    `update checkout_sessions set status = 'refunded', finalised_at = $2, refunded_at = $2, refund_reason = $3, provider_refund_id = $4,
       provider_payment_id = coalesce($5, provider_payment_id), updated_at = now() where id = $1 returning *`,
    [row.id, now, reason, refund.id, state.providerPaymentId],
  );
  const [user] = await q.query<{ email: string; first_name: string | null; locale: string | null }>('select email, first_name, locale from users where id = $1', [row.user_id]);
  if (user) {
    const locale: Locale = LOCALES.find((l) => l === user.locale) ?? 'en';
    await enqueueMail(q, user.email, duplicateRefundMail, locale, {
      first_name: user.first_name ?? '',
      amount: formatAmount(locale, amount, row.currency),
      link: appLinks.payments(deps.config),
    });
  }
  deps.log.warn({ sessionId: row.id, reason }, 'duplicate checkout payment refunded');
  return updated;
}

/** GET /v1/users/{provider}/session/{id}/: the session's state; finalises a paid session. */
export async function checkSession(deps: Deps, userId: string, providerName: string, sessionId: string): Promise<SessionView> {
  if (sessionId.length > 255) throw sessionNotFound(providerName);
  const [own] = await deps.db.query('select * from checkout_sessions where id = $1 and user_id = $2 and provider = $3', [sessionId, userId, providerName]);
  if (!own) throw sessionNotFound(providerName);
  if (own.finalised_at) return viewOf(deps.db, own);
  const state = await providerFor(deps, providerName).retrieveSession(deps.db, sessionId);
  if (!state) throw sessionNotFound(providerName);
  const row = await deps.db.tx((q) => finaliseInTx(deps, q, sessionId, state, userId));
  if (!row) throw sessionNotFound(providerName);
  return viewOf(deps.db, row, row.status === 'refunded' ? 'refunded' : row.finalised_at ? 'paid' : state.status === 'expired' ? 'expired' : row.status);
}

// ---------------------------------------------------------------------------------------------
// Recurring charges

export type ChargeOutcome = 'charged' | 'failed' | 'provider_managed' | 'not_due' | 'not_found';

/**
 * Charges one billing cycle of a plan (scheduler, early orders, renewals). Idempotent per period:
 * a period that is already paid is not charged again (unique index on (subscription_id,
 * period_start) for successful payments). On success the period advances; on failure the payment
 * is recorded as failed (failure_code, failed_at) and the plan becomes past_due.
 */
export async function chargeSubscriptionCycle(
  deps: Deps,
  subscriptionId: string,
  reason: 'subscription_cycle' | 'early_order' | 'retry' = 'subscription_cycle',
  options: { consultationId?: string | null; force?: boolean } = {},
): Promise<{ outcome: ChargeOutcome; paymentId?: string }> {
  return deps.db.tx(async (q) => {
    const [sub] = await q.query('select s.*, u.email from subscriptions s join users u on u.id = s.user_id where s.id = $1 for update of s', [subscriptionId]);
    if (!sub) return { outcome: 'not_found' as const };
    const now = deps.clock.now();
    if (!options.force && (new Date(sub.current_period_end) > now || !['active', 'past_due'].includes(sub.status))) return { outcome: 'not_due' as const };
    if (sub.next_charge_attempt_at && new Date(sub.next_charge_attempt_at) > now && !options.force) return { outcome: 'not_due' as const };
    const periodStart = new Date(sub.current_period_end);
    const provider = providerFor(deps, sub.provider);
    const key = `${sub.id}_${periodStart.getTime()}_${sub.failed_attempts}`;
    const result = await provider.chargeRenewal({
      subscriptionId: sub.id,
      providerSubscriptionId: sub.provider_subscription_id,
      amountCents: sub.price_cents,
      currency: sub.currency,
      cardLast4: sub.payment_method_last4,
      idempotencyKey: key,
    });
    if (result.ok === 'provider_managed') return { outcome: 'provider_managed' as const };
    const billingReason = reason === 'retry' ? 'subscription_cycle' : reason;
    const description = await planPaymentDescription(sub);
    if (result.ok) {
      const [p] = await q.query(
        `insert into payments (user_id, consultation_id, subscription_id, provider, provider_payment_id, provider_checkout_id, is_recurring, billing_reason, amount_cents,
           currency, status, description, captured_at, invoice_number, period_start, created_at, updated_at)
         values ($1, $2, $3, $4, $5, '', true, $6, $7, $8, 'succeeded', $9, $10, nextval('invoice_number_seq'), $11, $10, $10)
         on conflict do nothing returning id`,
        [sub.user_id, options.consultationId ?? null, sub.id, sub.provider, result.providerPaymentId, billingReason, sub.price_cents, sub.currency, description, now, periodStart],
      );
      if (!p) return { outcome: 'not_due' as const };
      await queueChargeReceipt(deps, q, sub.provider, result.providerPaymentId);
      await q.query(
        `update subscriptions set status = 'active', failed_attempts = 0, next_charge_attempt_at = null, current_period_start = $2,
           current_period_end = $2::timestamptz + make_interval(days => cycle_days), updated_at = now() where id = $1`,
        [sub.id, periodStart],
      );
      return { outcome: 'charged' as const, paymentId: p.id };
    }
    const [p] = await q.query(
      `insert into payments (user_id, consultation_id, subscription_id, provider, provider_payment_id, provider_checkout_id, is_recurring, billing_reason, amount_cents,
         currency, status, failure_code, failed_at, description, period_start, created_at, updated_at)
       values ($1, $2, $3, $4, $5, '', true, $6, $7, $8, 'failed', $9, $10, $11, $12, $10, $10)
       on conflict (provider, provider_payment_id) do nothing returning id`,
      [sub.user_id, options.consultationId ?? null, sub.id, sub.provider, result.providerPaymentId, billingReason, sub.price_cents, sub.currency, result.failureCode, now, description, periodStart],
    );
    const attempts = sub.failed_attempts + 1;
    // Dunning: retry daily; after MAX_FAILED_ATTEMPTS failures the plan is canceled.
    const cancel = attempts >= MAX_FAILED_ATTEMPTS;
    await q.query(
      `update subscriptions set status = $2, failed_attempts = $3, next_charge_attempt_at = $4, canceled_at = case when $5 then $6::timestamptz else canceled_at end, updated_at = now() where id = $1`,
      [sub.id, cancel ? 'canceled' : 'past_due', attempts, cancel ? null : new Date(now.getTime() + DAY_MS), cancel, now],
    );
    return { outcome: 'failed' as const, paymentId: p?.id };
  });
}

export const MAX_FAILED_ATTEMPTS = 4;

/** Scheduler job: charges every due plan of providers that do not bill by themselves; ends plans set to cancel. */
export async function runDueCharges(deps: Deps): Promise<void> {
  const now = deps.clock.now();
  await deps.db.query(
    "update subscriptions set status = 'canceled', canceled_at = coalesce(canceled_at, $1), updated_at = now() where cancel_at_period_end and status in ('active', 'past_due') and current_period_end <= $1 and provider <> 'stripe'",
    [now],
  );
  for (let round = 0; round < 50; round++) {
    const due = await deps.db.query(
      `select id from subscriptions where status in ('active', 'past_due') and provider <> 'stripe' and not cancel_at_period_end and current_period_end <= $1
         and (next_charge_attempt_at is null or next_charge_attempt_at <= $1)
         -- a renewal opened for this period must be approved by a doctor before the next supply is charged
         and not exists (select 1 from consultations c where c.subscription_id = subscriptions.id and c.origin = 'renewal'
                          and c.renewal_period_end = subscriptions.current_period_end and c.status <> 'approved')
         order by current_period_end limit 100`,
      [now],
    );
    if (due.length === 0) return;
    let progressed = false;
    for (const { id } of due) {
      try {
        const r = await chargeSubscriptionCycle(deps, id, 'subscription_cycle');
        if (r.outcome === 'charged' || r.outcome === 'failed') progressed = true;
      } catch (err: any) {
        // One plan's provider error must not stop the others; the next run retries it.
        deps.log.warn({ subscriptionId: id, err: { message: err?.message, code: err?.code } }, 'recurring charge failed to run');
      }
    }
    if (!progressed) return;
  }
}

// ---------------------------------------------------------------------------------------------
// Refunds

/** Applies a refund to a payment row (provider already refunded); returns the updated row. */
export async function applyRefund(
  q: Queryable,
  payment: any,
  refund: { id: string; amountCents: number; status: string; reason: string; at: Date; totalRefundedCents?: number },
): Promise<any> {
  const prev = payment.refund?.refunds ?? [];
  if (prev.some((r: any) => r.id === refund.id)) return payment;
  const total = refund.totalRefundedCents ?? payment.refunded_amount_cents + refund.amountCents;
  const refunds = [...prev, { id: refund.id, amount_cents: refund.amountCents, status: refund.status, reason: refund.reason, created_at: refund.at.toISOString() }];
  const obj = {
    id: refund.id,
    amount_cents: refund.amountCents,
    total_refunded_cents: total,
    currency: payment.currency,
    status: refund.status,
    reason: refund.reason,
    created_at: refund.at.toISOString(),
    refunds,
  };
  const status = total >= payment.amount_cents ? 'refunded' : 'partially_refunded';
  const [updated] = await q.query('update payments set refunded_amount_cents = $2, status = $3, refund = $4::jsonb, updated_at = now() where id = $1 returning *', [
    payment.id,
    total,
    status,
    JSON.stringify(obj),
  ]);
  // A fully refunded first payment of a consultation still waiting for a doctor ends the review.
  if (status === 'refunded' && payment.consultation_id && !payment.is_recurring) {
    const [c] = await q.query('select id, status from consultations where id = $1 for update', [payment.consultation_id]);
    if (c && canTransition(c.status, 'refunded')) await transition(q, c.id, 'refunded');
  }
  return updated;
}

/** Back-office refund, full (amount omitted) or partial. */
export async function refundPayment(deps: Deps, actorId: string, paymentId: string, amountCents: number | undefined, reason: string): Promise<any> {
  return deps.db.tx(async (q) => {
    const [p] = await q.query('select * from payments where id = $1 for update', [paymentId]);
    if (!p) throw notFound();
    if (!['succeeded', 'partially_refunded'].includes(p.status)) throw fieldErrors({ amount_cents: ['This payment cannot be refunded.'] });
    const remaining = p.amount_cents - p.refunded_amount_cents;
    const amount = amountCents ?? remaining;
    if (amount <= 0 || amount > remaining) throw fieldErrors({ amount_cents: [`Enter an amount between 1 and ${remaining}.`] });
    const provider = providerFor(deps, p.provider);
    const r = await provider.refund({ providerPaymentId: p.provider_payment_id, amountCents: amount, idempotencyKey: `refund_${p.id}_${p.refunded_amount_cents}_${amount}` });
    if (r.status === 'failed') throw detailCode(502, 'refund_failed', 'The payment provider refused the refund.');
    const updated = await applyRefund(q, p, { id: r.id, amountCents: amount, status: r.status, reason, at: deps.clock.now() });
    await queueRefundReceipt(deps, q, p.id, { id: r.id, amountCents: amount, at: deps.clock.now() });
    await audit(q, actorId, 'payment.refunded', 'payment', p.id, { amount_cents: amount, provider_refund_id: r.id });
    return updated;
  });
}

/** A link to the provider's page where the patient manages the card of their plans (null: none). */
export async function billingPortal(deps: Deps, userId: string, returnUrl: string | undefined): Promise<{ url: string | null; provider: string | null }> {
  const [sub] = await deps.db.query(
    "select provider, provider_customer_id from subscriptions where user_id = $1 and status <> 'canceled' order by created_at desc limit 1",
    [userId],
  );
  if (!sub) return { url: null, provider: null };
  const url = await providerFor(deps, sub.provider).billingPortalUrl({
    userId,
    providerCustomerId: sub.provider_customer_id,
    returnUrl: safeUrl(deps, 'return_url', returnUrl) ?? `${deps.config.PUBLIC_BASE_URL}/checkout/complete/`,
  });
  return { url, provider: sub.provider };
}

/** Scheduler job: open checkout sessions past their expiry become `expired` (idempotent). */
export async function expireSessions(deps: Deps): Promise<void> {
  await deps.db.query("update checkout_sessions set status = 'expired', updated_at = now() where status = 'open' and expires_at <= $1", [deps.clock.now()]);
}
