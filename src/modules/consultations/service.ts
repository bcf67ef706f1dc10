// Consultation rules: creation (checkout, covered by a plan, renewals) and the doctor's decisions.
// Status moves go through the machine (status.ts, written by records.repository.ts); each decision
// is audit-logged and mailed in one transaction.
import type { Queryable } from '../../db/index.ts';
import { UntilWrite } from '../../db/until-write.ts';
import type { Deps } from '../../deps.ts';
import { fail, fieldErrors, notFound } from '../../http/errors.ts';
import { enqueueMail } from '../../mail/outbox.ts';
import { recordAudit } from '../audit/index.ts';
import { billingTreatment, refundConsultationCharges, type ConsultationRefund } from '../payments/index.ts';
import { createOrder, issuePrescription, statedRepeats } from '../fulfilment/index.ts';
import type { SigningSession } from '../signing/index.ts';
import { prescriptionInstructions, timeWindowRecheck } from '../questionnaires/index.ts';
import { consultationApprovedMail, consultationCallRequestedMail, consultationExpiredMail, consultationInformationMail, consultationRejectedMail, consultationRejectedRefundedMail } from './mail.ts';
import { consultationVerdict, verdictFor } from './prescribing.ts';
import {
  findConsultationForUser,
  insertConsultation,
  insertOverride,
  lockForDecisionForClinician,
  patientAddresses,
  transitionConsultationForClinician,
  unansweredInformationRequestsForScheduler,
  type ConsultationRow,
  type NewConsultation,
} from './records.repository.ts';
import * as listRepo from './repository.ts';
import { serialiseConsultations } from './repository.ts';
import type { Consultation } from './schemas.ts';
import { appLinks } from '../../mail/links.ts';
import { notify } from '../notifications/index.ts';

export async function getConsultationForUser(deps: Deps, userId: string, id: string): Promise<Consultation> {
  const row = await findConsultationForUser(deps.reader, userId, id);
  if (!row) throw notFound();
  const [out] = await serialiseConsultations(deps.reader, deps, [row]);
  if (!out) throw notFound();
  return out;
}

async function lockForDecision(q: Queryable, consultationId: string) {
  const c = await lockForDecisionForClinician(q, consultationId);
  if (!c) throw notFound();
  return c;
}

const patientLink = (deps: Deps, consultationId: string) => appLinks.consultation(deps.config, consultationId);

export interface ApproveInput {
  doctorId: string;
  consultationId: string;
  treatmentId?: string;
  dosage?: string;
  note?: string;
  instructions?: string;
  /** Required to approve a treatment or dose the engine did not allow: the doctor's written clinical reason. */
  overrideReason?: string;
  /** Required to approve a category whose GP letters are `required` without the patient's consent or GP (docs/interoperability.md). */
  gpSharingOverrideReason?: string;
  /** Dispensings after the first the doctor states (default 0), and the minimum days between two (docs/prescriptions.md, "Repeats"). */
  repeats?: number;
  repeatIntervalDays?: number;
  /** The doctor's session, which signs the prescription (docs/prescriptions.md). */
  session: SigningSession;
}

/** What an approval settled, for the caller's follow-up inside the same transaction. */
export interface Approved {
  consultation: ConsultationRow;
  prescriptionId: string;
  orderId: string;
  /** What the prescription says (the letter to the patient's own doctor repeats it). */
  treatmentName: string;
  instructions: string;
  at: Date;
}

/**
 * Approves: prescription + order, status approved, audit, mail. `then` runs inside the same
 * transaction (the review desk updates a renewed plan's treatment and dose there: subscriptions
 * depends on consultations, not the other way round).
 */
export async function approveConsultation(
  deps: Deps,
  input: ApproveInput,
  then?: (q: Queryable, approved: Approved) => Promise<void>,
): Promise<{ consultationId: string; prescriptionId: string; orderId: string }> {
  return deps.db.tx(async (q) => {
    const c = await lockForDecision(q, input.consultationId);
    // A renewal is the patient's choice first: one they have not confirmed (never answered, or
    // refused at the safety screen) is not the desk's to approve (docs/renewals.md).
    if (c.origin === 'renewal' && c.patient_choice_status !== 'confirmed') {
      throw fail('patient_choice_not_confirmed', { extra: { patient_choice_status: c.patient_choice_status ?? null } });
    }
    const treatmentId = input.treatmentId ?? c.treatment_id;
    const treatment = treatmentId ? billingTreatment(c.category, treatmentId) : null;
    if (!treatment) throw fieldErrors({ treatment_id: ["Not a treatment of this consultation's category."] });
    const dosage = input.dosage ?? (treatment.id === c.treatment_id && c.dosage ? c.dosage : (treatment.dosages[0] ?? ''));
    if (treatment.dosages.length > 0 && !treatment.dosages.includes(dosage)) {
      throw fieldErrors({ dosage: [`Not a dosage of this treatment. Choose one of: ${treatment.dosages.join(', ')}.`] });
    }
    const now = deps.clock.now();
    // Time-bound answers (hours since unprotected sex) are re-checked now, not at submission.
    const late = await timeWindowRecheck(q, c.user_id, c.questionnaire_submission_id, treatment.id, now);
    if (late) throw fail('TREATMENT_WINDOW_PASSED', { extra: late });
    // The engine's verdict binds the approval: outside it, only with a written override (docs/consultations.md).
    const { engine, sideEffects } = await consultationVerdict(q, c);
    const ruled = await verdictFor(q, { userId: c.user_id, category: c.category, treatmentId: treatment.id, dosage, engine, now, sideEffects });
    // An absolute contraindication is never lifted, with or without a written reason.
    if (ruled.absolute_codes.length) {
      throw fail('absolute_contraindication', {
        message: `${treatment.id} ${dosage} cannot be prescribed to this patient: an absolute contraindication (${ruled.absolute_codes.join(', ')}) cannot be overridden. Choose another treatment, or reject the consultation.`,
        extra: { reason_codes: ruled.absolute_codes, treatment_id: treatment.id, dosage, allowed_treatments: ruled.allowed_treatments, allowed_dosages: ruled.allowed_dosages },
      });
    }
    // A red flag raised on this renewal's screen (an earlier confirm refused with the emergency
    // notice) stays with the renewal: approving it needs the doctor's written reason too, and the
    // override records it with every other rule it lifts.
    const flagged = renewalRedFlagCodes(c.renewal_details).filter((f) => !ruled.codes.includes(f));
    const verdict = flagged.length ? { ...ruled, ok: false, codes: [...ruled.codes, ...flagged], override_codes: [...ruled.override_codes, ...flagged] } : ruled;
    if (!verdict.ok && !input.overrideReason) {
      throw fail('override_required', {
        message: `The eligibility engine does not allow ${treatment.id} ${dosage} for this patient now (${verdict.codes.join(', ')}). Choose an allowed treatment and dose, or approve with an override and a written clinical reason.`,
        extra: {
          reason_codes: verdict.codes,
          treatment_id: treatment.id,
          dosage,
          allowed_treatments: verdict.allowed_treatments,
          allowed_dosages: verdict.allowed_dosages,
          explanation: verdict.explanation,
        },
      });
    }
    const approved = await transitionConsultationForClinician(q, c.id, 'approved', {
      doctor_id: input.doctorId,
      decided_at: now,
      decision_reason: input.note ?? '',
      treatment_id: treatment.id,
      dosage,
    });
    // A prescription stays valid for 6 months (repeat supply within it needs a new consultation
    // for one-off plans; plans renew through the subscriptions module).
    const validUntil = new Date(now.getTime() + 182 * 24 * 3600 * 1000);
    const stated = statedRepeats({ treatmentId: treatment.id, repeats: input.repeats, intervalDays: input.repeatIntervalDays, planSupplied: planSupplies(c), issuedAt: now, validUntil });
    // The instructions come from the catalogue's posology at this strength, with a line for each rule
    // of the verdict that names the treatment (an interaction's dose limit...); the doctor's own text follows.
    const generated = prescriptionInstructions(c.category, treatment.id, dosage, [...engine.reasons.map((r) => r.code), ...renewalCautionCodes(c.renewal_details)]);
    const instructions = [generated.text, input.instructions?.trim()].filter(Boolean).join('\n');
    const rx = await issuePrescription(deps, q, {
      userId: c.user_id,
      consultationId: c.id,
      doctorId: input.doctorId,
      category: c.category,
      treatmentId: treatment.id,
      treatmentName: treatment.name,
      dosage,
      instructions,
      supplyDays: c.supply_days,
      issuedAt: now,
      validUntil,
      repeats: stated.repeats,
      repeatIntervalDays: stated.repeatIntervalDays,
    }, input.session);
    const order = await createOrder(q, {
      userId: c.user_id,
      consultationId: c.id,
      prescriptionId: rx.id,
      items: [{ treatment_id: treatment.id, name: treatment.name, dosage, quantity: 1, supply_days: c.supply_days ?? null, instructions }],
      shippingAddress: defaultAddress((await patientAddresses(q, c.user_id))?.addresses),
      collectionPharmacyId: c.collection_pharmacy_id,
      at: now,
    });
    let overrideId: string | null = null;
    if (!verdict.ok) {
      overrideId = await insertOverride(q, {
        consultationId: c.id,
        doctorId: input.doctorId,
        treatmentId: treatment.id,
        dosage,
        reason: input.overrideReason!,
        // Every rule the approval lifts (an exclusion, a strength limit and the starting dose alike).
        codes: verdict.override_codes,
        allowed: { treatments: verdict.allowed_treatments, dosages: verdict.allowed_dosages },
      });
    }
    await recordAudit(q, {
      actorId: input.doctorId,
      action: 'consultation.approved',
      subjectType: 'consultation',
      subjectId: c.id,
      details: {
        from: c.status,
        prescription_id: rx.id,
        order_id: order.id,
        // The reason of every approval: within the engine's verdict, or an override (its written reason is in prescribing_overrides).
        basis: overrideId ? 'override' : 'engine_verdict',
        ...(overrideId ? { override_id: overrideId, override_codes: verdict.override_codes } : {}),
      },
    });
    await enqueueMail(q, c.email, consultationApprovedMail, c.locale, { first_name: c.first_name, link: patientLink(deps, c.id) });
    await notify(q, { kind: 'consultation_decision', userId: c.user_id, key: `${c.id}:approved`, link: `/consultations/${c.id}` });
    if (then) await then(q, { consultation: approved, prescriptionId: rx.id, orderId: order.id, treatmentName: treatment.name, instructions, at: now });
    return { consultationId: c.id, prescriptionId: rx.id, orderId: order.id };
  });
}

/** A plan's consultation (a plan pays it, or a renewal or early order of one): the plan's renewals drive its supply, so its prescription states no repeats. */
export function planSupplies(c: Pick<ConsultationRow, 'subscription_id' | 'origin'>): boolean {
  return c.subscription_id !== null || ['renewal', 'early_order', 'subscription_covered'].includes(c.origin);
}

/** The red-flag codes recorded on a renewal (`renewal_details.red_flags`), each once, prefixed `RED_FLAG_`. */
export function renewalRedFlagCodes(details: unknown): string[] {
  const flags = typeof details === 'object' && details !== null && 'red_flags' in details ? details.red_flags : null;
  if (!Array.isArray(flags)) return [];
  const codes = flags.flatMap((f: unknown) => (typeof f === 'object' && f !== null && 'codes' in f && Array.isArray(f.codes) ? f.codes.map(String) : []));
  return [...new Set(codes)].map((code) => `RED_FLAG_${code}`);
}

/** The cautions the engine recorded on a confirmed renewal (`renewal_details.verdict.cautions`): they may add an instruction. */
function renewalCautionCodes(details: unknown): string[] {
  const verdict = typeof details === 'object' && details !== null && 'verdict' in details ? details.verdict : null;
  const cautions = typeof verdict === 'object' && verdict !== null && 'cautions' in verdict ? verdict.cautions : null;
  return Array.isArray(cautions) ? cautions.flatMap((c: unknown) => (typeof c === 'object' && c !== null && 'code' in c && typeof c.code === 'string' ? [c.code] : [])) : [];
}

/** The account's default address (the first when none is marked default), as stored. */
function defaultAddress(addresses: unknown): Record<string, unknown> | null {
  if (!Array.isArray(addresses) || addresses.length === 0) return null;
  const list = addresses.filter((a): a is Record<string, unknown> => typeof a === 'object' && a !== null);
  return list.find((a) => Boolean(a.is_default)) ?? list[0] ?? null;
}

/** What a rejection or an expiry settled, for the caller's follow-up inside the same transaction. */
export interface Ended {
  consultation: ConsultationRow;
  refunds: ConsultationRefund[];
}

/**
 * Rejects. The decision carries its consequences in the same transaction (docs/consultations.md,
 * "What a decision does"): every charge of the consultation still holding money is refunded in full
 * through the provider (a first checkout, an early order; a renewal is charged only after approval),
 * no order is created, the patient is mailed in their locale, and `then` lets the caller end the
 * plan the checkout opened (subscriptions depends on consultations, not the other way round). A
 * provider that refuses the refund answers 502 and nothing is decided.
 */
export async function rejectConsultation(
  deps: Deps,
  input: { doctorId: string; consultationId: string; reason: string },
  then?: (q: Queryable, ended: Ended) => Promise<void>,
): Promise<void> {
  await deps.db.tx(async (q) => {
    const c = await lockForDecision(q, input.consultationId);
    const rejected = await transitionConsultationForClinician(q, c.id, 'rejected', { doctor_id: input.doctorId, decided_at: deps.clock.now(), decision_reason: input.reason });
    const refunds = await refundConsultationCharges(deps, q, c.user_id, c.id, 'consultation_rejected');
    await recordAudit(q, {
      actorId: input.doctorId,
      action: 'consultation.rejected',
      subjectType: 'consultation',
      subjectId: c.id,
      details: { from: c.status, refunds: refunds.map((r) => ({ payment_id: r.paymentId, amount_cents: r.amountCents, provider_refund_id: r.providerRefundId })) },
    });
    await enqueueMail(q, c.email, refunds.length ? consultationRejectedRefundedMail : consultationRejectedMail, c.locale, { first_name: c.first_name, link: patientLink(deps, c.id) });
    await notify(q, { kind: 'consultation_decision', userId: c.user_id, key: `${c.id}:rejected`, link: `/consultations/${c.id}` });
    if (then) await then(q, { consultation: rejected, refunds });
  });
}

/** A doctor's question unanswered this many days ends the review (docs/consultations.md). */
export const INFORMATION_REQUEST_DAYS = 14;

/**
 * Scheduler: a consultation left in needs_information for INFORMATION_REQUEST_DAYS expires. Its
 * charges are refunded in full and it ends `refunded` (`cancelled` when nothing was paid, e.g. a
 * plan-covered one or a renewal), the patient is mailed, and `then` ends what the caller owns (the
 * plan a checkout opened). One transaction per consultation, re-checked under its row lock, so a
 * reply that lands first wins and a second process changes nothing.
 */
export async function expireInformationRequests(deps: Deps, then?: (q: Queryable, ended: Ended) => Promise<void>): Promise<number> {
  const now = deps.clock.now();
  const askedBefore = new Date(now.getTime() - INFORMATION_REQUEST_DAYS * 86_400_000);
  let ended = 0;
  for (const id of await unansweredInformationRequestsForScheduler(deps.db, askedBefore, 200)) {
    try {
      await deps.db.tx(async (q) => {
        const c = await lockForDecisionForClinician(q, id);
        if (!c || c.status !== 'needs_information' || !c.decided_at || new Date(c.decided_at) > askedBefore) return;
        const refunds = await refundConsultationCharges(deps, q, c.user_id, c.id, 'information_request_expired');
        const to = refunds.length ? 'refunded' : 'cancelled';
        const row = await transitionConsultationForClinician(q, c.id, to);
        await recordAudit(q, { actorId: null, action: 'consultation.expired', subjectType: 'consultation', subjectId: c.id, details: { from: c.status, to, refunds: refunds.map((r) => ({ payment_id: r.paymentId, amount_cents: r.amountCents })) } });
        await enqueueMail(q, c.email, consultationExpiredMail, c.locale, { first_name: c.first_name, link: patientLink(deps, c.id) });
        if (then) await then(q, { consultation: row, refunds });
        ended++;
      });
    } catch (err) {
      // One consultation's provider error must not stop the others; the next run retries it.
      deps.log.warn({ consultationId: id, err: err instanceof Error ? err.message : String(err) }, 'an unanswered information request could not be expired');
    }
  }
  return ended;
}

export async function requestInformation(deps: Deps, input: { doctorId: string; consultationId: string; reason: string }): Promise<void> {
  await deps.db.tx(async (q) => {
    const c = await lockForDecision(q, input.consultationId);
    await transitionConsultationForClinician(q, c.id, 'needs_information', { doctor_id: input.doctorId, decided_at: deps.clock.now(), decision_reason: input.reason });
    await recordAudit(q, { actorId: input.doctorId, action: 'consultation.information_requested', subjectType: 'consultation', subjectId: c.id, details: { from: c.status } });
    await enqueueMail(q, c.email, consultationInformationMail, c.locale, { first_name: c.first_name, link: patientLink(deps, c.id) });
    await notify(q, { kind: 'information_requested', userId: c.user_id, key: `${c.id}:${deps.clock.now().toISOString()}`, link: `/consultations/${c.id}` });
  });
}

/**
 * The doctor asks for a call (the appointments module's request-call): status awaiting_call with the
 * reason as decision_reason (the patient sees it), the doctor as the consultation's doctor (the
 * patient books from that doctor's hours). Mails and notifies the patient; audit-logged.
 */
export async function requestCall(deps: Deps, input: { doctorId: string; consultationId: string; reason: string }): Promise<void> {
  await deps.db.tx(async (q) => {
    const c = await lockForDecision(q, input.consultationId);
    await transitionConsultationForClinician(q, c.id, 'awaiting_call', { doctor_id: input.doctorId, decided_at: deps.clock.now(), decision_reason: input.reason });
    await recordAudit(q, { actorId: input.doctorId, action: 'consultation.call_requested', subjectType: 'consultation', subjectId: c.id, details: { from: c.status } });
    await enqueueMail(q, c.email, consultationCallRequestedMail, c.locale, { first_name: c.first_name, link: patientLink(deps, c.id) });
    await notify(q, { kind: 'call_requested', userId: c.user_id, key: `${c.id}:${deps.clock.now().toISOString()}`, link: `/consultations/${c.id}` });
  });
}

/**
 * Opens a review inside the caller's transaction (`trx`): checkout finalisation's paid review, a
 * renewal, a repeat request. The only way another module creates a consultation.
 */
export function createConsultation(trx: Queryable, input: NewConsultation): Promise<ConsultationRow> {
  return insertConsultation(trx, input);
}

// ---- the patient's list (its routes call these; the statement is in repository.ts)
export { CONSULTATION_ORDERING } from './repository.ts';

// The versions read, per account, until the embedded database's next write: a cached page is then
// answered with no statement at all (src/db/until-write.ts; on PostgreSQL every request asks).
const versions = new UntilWrite<string>(4096);

/** The list's data version (its ETag), from the account's counters. */
export function dataVersionOf(q: Queryable, userId: string): Promise<string | undefined> {
  return versions.get(q, userId, () => listRepo.dataVersionOf(q, userId));
}

/** A page of the patient's consultations, its count and data version, in one statement. */
export function listForUser(...args: Parameters<typeof listRepo.listForUser>) {
  return listRepo.listForUser(...args);
}
