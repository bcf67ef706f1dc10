// Checkout: start a checkout for a consultation (or create it at once when a plan covers it), the
// session check, the billing portal link and the expiry job. Finalisation is in finalise.ts.
import type { Deps } from '../../deps.ts';
import { fail, fieldErrors, type ErrorCode } from '../../http/errors.ts';
import { providerFor, type ProviderName, type StoredSession } from '../../payment-providers/index.ts';
import { createConsultation, defaultDosage, submissionVerdict, verdictFor } from '../consultations/index.ts';
import { collectionPharmacyFor, type FulfilmentChoice } from '../pharmacies/index.ts';
import { billingCategory, oneOffSupplyDays, paymentOfSession, planCycleDays, priceFor, type BillingTreatment } from '../payments/index.ts';
import { assertCountryServed, profileFacts, submissionDeliveryVerdicts, type EcDeliveryVerdict, type EngineVerdict, type PrescribingVerdict } from '../questionnaires/index.ts';
import type { Queryable } from '../../db/index.ts';
import { finaliseInTx } from './finalise.ts';
import {
  countryOfResidence,
  expireDueSessionsForScheduler,
  expireOpenSessionsOfSubmission,
  findOwnSession,
  insertSession,
  latestLivePlan,
  latestSubmission,
  lockAccount,
  lockCoveringPlan,
  reviewConflicts,
  type SessionRow,
} from './repository.ts';
import * as sessions from './repository.ts';
import type { SessionStatus } from './status.ts';

/** Submission outcomes that may be paid for (held_for_review goes to the doctor like any other). */
export const PAYABLE_OUTCOMES = ['eligible', 'held_for_review'];

export interface CheckoutInput {
  category: string;
  plan: 'one_off' | 'subscription';
  treatment_id?: string;
  dosage?: string;
  success_url?: string;
  cancel_url?: string;
  fulfilment?: FulfilmentChoice;
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
  /** Emergency contraception delivered: when it is expected and that it arrives well inside the window (null otherwise). */
  delivery_estimate: EcDeliveryVerdict | null;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const strOf = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

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
  return fail(treatment ? 'TREATMENT_NOT_ALLOWED' : 'DOSAGE_NOT_ALLOWED', {
    message: treatment
      ? `This treatment cannot be prescribed on your latest questionnaire (${v.codes.join(', ')}).`
      : `This dosage cannot be prescribed now (${v.codes.join(', ')}). Allowed: ${v.allowed_dosages.join(', ')}.`,
    extra: { category, treatment_id: treatmentId, dosage, reason_codes: v.codes, allowed_treatments: v.allowed_treatments, allowed_dosages: v.allowed_dosages },
  });
}

async function assertPrescribable(q: Queryable, userId: string, category: string, treatmentId: string, dosage: string, engine: EngineVerdict, now: Date) {
  const v = await verdictFor(q, { userId, category, treatmentId, dosage, engine, now });
  if (!v.ok) throw refusal(category, treatmentId, dosage, v);
}

const alreadyOpen = (consultationId: string) => fail('CONSULTATION_ALREADY_OPEN', { extra: { consultation_id: consultationId } });

/**
 * Where the provider may send the browser after payment: only this service's own pages and the
 * web app (WEB_APP_URL and the origins in CORS_ORIGINS): no open redirect through a payment page.
 */
export function safeUrl(deps: Deps, field: string, raw: string | undefined): string | undefined {
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

export async function checkout(deps: Deps, user: { id: string; email: string }, input: CheckoutInput): Promise<CheckoutResult> {
  const successUrl = safeUrl(deps, 'success_url', input.success_url);
  const cancelUrl = safeUrl(deps, 'cancel_url', input.cancel_url);
  const collectionPharmacyId = await collectionPharmacyFor(deps.db, user.id, input.fulfilment);
  const category = billingCategory(input.category);
  if (!category) throw fieldErrors({ category: [`Unknown category "${input.category}".`] });
  const country = await countryOfResidence(deps.db, user.id);
  assertCountryServed(country);

  const submission = await latestSubmission(deps.db, user.id, input.category);
  if (!submission) throw fail('SUBMISSION_REQUIRED', { extra: { category: input.category } });
  if (!PAYABLE_OUTCOMES.includes(submission.outcome)) {
    throw fail('SUBMISSION_NOT_ELIGIBLE', { extra: { category: input.category, outcome: submission.outcome } });
  }
  const result = isRecord(submission.result) ? submission.result : {};
  // The engine's verdict on that submission binds what is sold (docs/billing.md).
  const engine = submissionVerdict(submission, await profileFacts(deps.db, user.id));
  const suggested = strOf(result.treatment_id) ?? strOf(result.recommended_treatment_id) ?? (isRecord(result.recommended) ? strOf(result.recommended.treatment_id) : undefined);
  const treatment = pickTreatment(category.treatments, input.plan, input.treatment_id, suggested, engine.treatments);
  if (!treatment) {
    if (input.treatment_id) throw fieldErrors({ treatment_id: ['Not a treatment of this category.'] });
    throw fail('PLAN_NOT_AVAILABLE', { message: `No treatment of this category is sold as "${input.plan}".`, extra: { category: input.category, plan: input.plan } });
  }
  const amount = priceFor(treatment, input.plan);
  if (amount === null) throw fail('PLAN_NOT_AVAILABLE', { message: `This treatment is not sold as "${input.plan}".`, extra: { category: input.category, plan: input.plan } });
  // Default dose: the dose to continue with (the first step of a ladder for a first supply).
  const now = deps.clock.now();
  let dosage = input.dosage ?? (await defaultDosage(deps.db, user.id, input.category, treatment.id, now)) ?? treatment.dosages[0] ?? '';
  if (input.dosage !== undefined && treatment.dosages.length > 0 && !treatment.dosages.includes(input.dosage)) {
    throw fieldErrors({ dosage: [`Not a dosage of this treatment. Choose one of: ${treatment.dosages.join(', ')}.`] });
  }
  if (treatment.dosages.length === 0) dosage = input.dosage ?? '';
  await assertPrescribable(deps.db, user.id, input.category, treatment.id, dosage, engine, now);
  // A time-critical pill (emergency contraception) is delivered only if it can arrive well inside its
  // window (carrier cut-off, working days, holidays, transit to the country, a margin); otherwise the
  // patient is told before paying to get it from a nearby pharmacy now, or to collect it.
  const delivery = collectionPharmacyId
    ? null
    : (submissionDeliveryVerdicts({ answers: submission.answers, answeredAt: new Date(submission.created_at), treatments: [treatment.id], country, start: now })[0] ?? null);
  if (delivery && !delivery.arrives_in_time) {
    throw fail('EC_DELIVERY_TOO_LATE', {
      message: `Delivery cannot reach you well before the ${treatment.name} window ends (${delivery.window_ends_at}; expected arrival ${delivery.estimated_arrival}). Get emergency contraception from a pharmacy near you now: it is sold without a prescription in most EU countries. Or choose collection at a partner pharmacy (click and collect).`,
      extra: { category: input.category, treatment_id: treatment.id, delivery },
    });
  }
  const cycleDays = input.plan === 'subscription' ? planCycleDays(input.category, treatment) : null;
  const supplyDays = input.plan === 'subscription' ? cycleDays : oneOffSupplyDays(input.category, treatment);

  // One open consultation per category: paying again for the same review is refused. Each
  // consultation is decided on its own questionnaire: a submission already used by a consultation
  // (other than a cancelled or refunded one) needs a new submission first.
  const conflicts = await reviewConflicts(deps.db, user.id, input.category, submission.id);
  if (conflicts.openId) throw alreadyOpen(conflicts.openId);
  if (conflicts.usedId) {
    throw fail('SUBMISSION_ALREADY_USED', { extra: { consultation_id: conflicts.usedId, category: input.category } });
  }

  // Covered by an active plan: the consultation is created at once, without a payment.
  const covered = await deps.db.tx(async (q) => {
    const sub = await lockCoveringPlan(q, user.id, input.category, now);
    if (!sub) return null;
    // Re-checked under the plan's row lock: parallel checkouts create one covered consultation.
    const again = await reviewConflicts(q, user.id, input.category, null);
    if (again.openId) throw alreadyOpen(again.openId);
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
      collectionPharmacyId,
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
      delivery_estimate: delivery,
    };
  }

  const provider = providerFor(deps);
  const base = deps.config.PUBLIC_BASE_URL;
  const label = input.plan === 'subscription' ? `every ${cycleDays} days` : `${supplyDays} days`;
  const successTemplate = successUrl ?? `${base}/checkout/complete/?session_id={CHECKOUT_SESSION_ID}`;
  const cancelTemplate = cancelUrl ?? `${base}/checkout/cancelled/?session_id={CHECKOUT_SESSION_ID}`;
  const created = await provider.createCheckoutSession({
    userId: user.id,
    email: user.email,
    plan: input.plan,
    currency: 'EUR',
    amountCents: amount,
    cycleDays,
    lineItems: [
      { name: `Medical consultation and treatment: ${treatment.name}${dosage ? ` ${dosage}` : ''}`, description: input.plan === 'subscription' ? `Treatment plan, billed ${label}` : `One-off, ${label} supply`, amount_cents: amount, quantity: 1 },
    ],
    successUrl: successTemplate,
    cancelUrl: cancelTemplate,
    metadata: { category: input.category, plan: input.plan, treatment_id: treatment.id, dosage },
  });
  const fill = (u: string) => u.replaceAll('{CHECKOUT_SESSION_ID}', created.id);
  // A new checkout for this submission replaces the caller's older open ones in the same
  // transaction, so only one session is ever payable: the account's row lock queues parallel
  // checkouts (the last one wins), and a partial unique index (migration 0900) holds the rule in
  // the database for any writer.
  const older = await deps.db.tx(async (q) => {
    await lockAccount(q, user.id);
    const replaced = await expireOpenSessionsOfSubmission(q, user.id, submission.id);
    await insertSession(q, {
      id: created.id,
      user_id: user.id,
      provider: provider.name,
      category: input.category,
      plan: input.plan,
      treatment_id: treatment.id,
      treatment_name: treatment.name,
      dosage,
      submission_id: submission.id,
      amount_cents: amount,
      currency: 'EUR',
      status: 'open',
      success_url: fill(successTemplate),
      cancel_url: fill(cancelTemplate),
      expires_at: created.expiresAt,
      checkout_url: created.url,
      cycle_days: cycleDays,
      supply_days: supplyDays,
      collection_pharmacy_id: collectionPharmacyId,
      created_at: now,
      updated_at: now,
    });
    return replaced;
  });
  for (const s of older) {
    await providerFor(deps, s.provider)
      .expireSession?.(s.id)
      .catch((err: unknown) => deps.log.warn({ err, sessionId: s.id }, 'could not expire a replaced checkout session at the provider'));
  }
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
    delivery_estimate: delivery,
  };
}

export interface SessionView {
  id: string;
  provider: string;
  status: SessionStatus;
  refund_reason: 'submission_already_paid' | 'consultation_already_open' | 'plan_already_active' | 'repeat_not_available' | null;
  kind: 'consultation' | 'repeat_supply';
  prescription_id: string | null;
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

const SESSION_NOT_FOUND = { sandbox: 'sandbox_session_not_found', stripe: 'stripe_session_not_found' } as const satisfies Record<ProviderName, ErrorCode>;
const sessionNotFound = (provider: ProviderName) => fail(SESSION_NOT_FOUND[provider]);

const REFUND_REASONS = ['submission_already_paid', 'consultation_already_open', 'plan_already_active', 'repeat_not_available'] as const;
const refundReasonOf = (r: string | null): SessionView['refund_reason'] => REFUND_REASONS.find((x) => x === r) ?? null;
const statusOf = (s: string): SessionStatus => (s === 'paid' || s === 'declined' || s === 'expired' || s === 'refunded' ? s : 'open');

/** What the provider adapter is told of a session it created. */
export const storedSession = (row: SessionRow): StoredSession => ({
  id: row.id,
  userId: row.user_id,
  status: row.status,
  expiresAt: row.expires_at,
  amountCents: row.amount_cents,
  providerPaymentId: row.provider_payment_id,
  providerSubscriptionId: row.provider_subscription_id,
  cardBrand: row.payment_method_brand,
  cardLast4: row.payment_method_last4,
  cardFingerprint: row.payment_method_fingerprint,
  declineCode: row.decline_code,
});

async function viewOf(q: Queryable, row: SessionRow, status?: SessionStatus): Promise<SessionView> {
  const p = await paymentOfSession(q, row.user_id, row.id);
  return {
    id: row.id,
    provider: row.provider,
    status: status ?? statusOf(row.status),
    refund_reason: refundReasonOf(row.refund_reason),
    kind: row.kind === 'repeat_supply' ? 'repeat_supply' : 'consultation',
    prescription_id: row.prescription_id,
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

/** GET /v1/users/{provider}/session/{id}/: the session's state; finalises a paid session. */
export async function checkSession(deps: Deps, userId: string, providerName: ProviderName, sessionId: string): Promise<SessionView> {
  if (sessionId.length > 255) throw sessionNotFound(providerName);
  // The primary, not the replica: this check may finalise the session.
  const own = await findOwnSession(deps.db, userId, providerName, sessionId);
  if (!own) throw sessionNotFound(providerName);
  if (own.finalised_at) return viewOf(deps.db, own);
  const state = await providerFor(deps, providerName).retrieveSession(storedSession(own));
  if (!state) throw sessionNotFound(providerName);
  const row = await deps.db.tx((q) => finaliseInTx(deps, q, sessionId, state, userId));
  if (!row) throw sessionNotFound(providerName);
  return viewOf(deps.db, row, row.status === 'refunded' ? 'refunded' : row.finalised_at ? 'paid' : state.status === 'expired' ? 'expired' : statusOf(row.status));
}

/** A link to the provider's page where the patient manages the card of their plans (null: none). */
export async function billingPortal(deps: Deps, userId: string, returnUrl: string | undefined): Promise<{ url: string | null; provider: string | null }> {
  const sub = await latestLivePlan(deps.db, userId);
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
  await expireDueSessionsForScheduler(deps.db, deps.clock.now());
}

// ---- retention and the account's privacy (src/modules/privacy/, docs/privacy.md)

/** Retention sweep of checkout sessions that ended unpaid. */
export function deleteEndedUnpaidSessionsForScheduler(...args: Parameters<typeof sessions.deleteEndedUnpaidSessionsForScheduler>) {
  return sessions.deleteEndedUnpaidSessionsForScheduler(...args);
}

/** The account's checkout sessions (the data export). */
export function checkoutSessionsOfAccount(...args: Parameters<typeof sessions.sessionsOfAccount>) {
  return sessions.sessionsOfAccount(...args);
}

/** Erasure: the account's sessions that never finished, inside the erasure's transaction. */
export function deleteUnfinishedSessionsOfAccount(...args: Parameters<typeof sessions.deleteUnfinishedSessionsOfAccount>) {
  return sessions.deleteUnfinishedSessionsOfAccount(...args);
}
