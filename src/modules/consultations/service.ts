// Consultation rules: creation (checkout, covered by a plan, renewals) and the doctor's decisions.
// Status moves go through status.ts; each decision is audit-logged and mailed in one transaction.
import type { Queryable } from '../../db/index.ts';
import type { Deps } from '../../deps.ts';
import { ApiError, errorName, fieldErrors, notFound } from '../../http/errors.ts';
import { enqueueMail } from '../../mail/outbox.ts';
import { billingTreatment } from '../payments/index.ts';
import { timeWindowRecheck } from '../questionnaires/service.ts';
import { consultationApprovedMail, consultationInformationMail, consultationRejectedMail } from './mail.ts';
import { consultationVerdict, verdictFor } from './prescribing.ts';
import { serialiseConsultations } from './repository.ts';
import { insertOverride } from './records.repository.ts';
import type { Consultation } from './schemas.ts';
import { transition } from './status.ts';
import { appLinks } from '../../mail/links.ts';

export { transition, assertTransition, canTransition, CONSULTATION_STATUSES, TRANSITIONS } from './status.ts';
export type { ConsultationStatus } from './status.ts';

export interface NewConsultation {
  userId: string;
  category: string;
  plan: 'one_off' | 'subscription';
  origin: 'checkout' | 'subscription_covered' | 'renewal' | 'early_order' | 'express_reorder';
  supplyDays: number | null;
  treatmentId: string;
  dosage: string;
  submissionId?: string | null;
  subscriptionId?: string | null;
  checkoutSessionId?: string | null;
  /** Defaults to the submission's answers. */
  formSnapshot?: unknown[];
  status?: 'pending_review';
  patientChoiceStatus?: string | null;
  renewalDetails?: unknown;
}

/** Inserts a consultation (pending_review) inside the caller's transaction; returns the row. */
export async function createConsultation(q: Queryable, input: NewConsultation): Promise<Record<string, any>> {
  let snapshot = input.formSnapshot;
  if (!snapshot && input.submissionId) {
    const [s] = await q.query('select answers from questionnaire_submissions where id = $1 and user_id = $2', [input.submissionId, input.userId]);
    snapshot = Array.isArray(s?.answers) ? s.answers : [];
  }
  const [row] = await q.query(
    `insert into consultations (user_id, category, status, origin, plan, supply_days, treatment_id, dosage, form_snapshot,
       questionnaire_submission_id, subscription_id, checkout_session_id, patient_choice_status, renewal_details)
     values ($1, $2, 'pending_review', $3, $4, $5, $6, $7, $8::jsonb, $9, $10, $11, $12, $13::jsonb) returning *`,
    [
      input.userId,
      input.category,
      input.origin,
      input.plan,
      input.supplyDays,
      input.treatmentId,
      input.dosage,
      JSON.stringify(snapshot ?? []),
      input.submissionId ?? null,
      input.subscriptionId ?? null,
      input.checkoutSessionId ?? null,
      input.patientChoiceStatus ?? null,
      input.renewalDetails === undefined ? null : JSON.stringify(input.renewalDetails),
    ],
  );
  return row;
}

export async function getConsultationForUser(deps: Deps, userId: string, id: string): Promise<Consultation> {
  const [row] = await deps.db.query('select * from consultations where id = $1 and user_id = $2', [id, userId]);
  if (!row) throw notFound();
  return (await serialiseConsultations(deps.db, deps, [row]))[0];
}

export async function audit(q: Queryable, actorId: string | null, action: string, subjectType: string, subjectId: string, details: Record<string, unknown> = {}) {
  await q.query('insert into audit_log (actor_id, action, subject_type, subject_id, details) values ($1, $2, $3, $4, $5::jsonb)', [
    actorId,
    action,
    subjectType,
    subjectId,
    JSON.stringify(details),
  ]);
}

async function lockForDecision(q: Queryable, consultationId: string) {
  const [c] = await q.query('select c.*, u.email, u.locale, u.first_name from consultations c join users u on u.id = c.user_id where c.id = $1 for update of c', [
    consultationId,
  ]);
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
}

/** Approves: prescription + order, status approved, audit, mail. Returns the consultation row. */
export async function approveConsultation(deps: Deps, input: ApproveInput): Promise<{ consultationId: string; prescriptionId: string; orderId: string }> {
  return deps.db.tx(async (q) => {
    const c = await lockForDecision(q, input.consultationId);
    const treatmentId = input.treatmentId ?? c.treatment_id;
    const treatment = treatmentId ? await billingTreatment(c.category, treatmentId) : null;
    if (!treatment) throw fieldErrors({ treatment_id: ['Not a treatment of this consultation\'s category.'] });
    const dosage = input.dosage ?? (treatment.id === c.treatment_id && c.dosage ? c.dosage : treatment.dosages[0] ?? '');
    if (treatment.dosages.length > 0 && !treatment.dosages.includes(dosage)) {
      throw fieldErrors({ dosage: [`Not a dosage of this treatment. Choose one of: ${treatment.dosages.join(', ')}.`] });
    }
    const now = deps.clock.now();
    // Time-bound answers (hours since unprotected sex) are re-checked now, not at submission.
    const late = await timeWindowRecheck(q, c.user_id, c.questionnaire_submission_id, treatment.id, now);
    if (late) throw errorName(400, 'TREATMENT_WINDOW_PASSED', 'The time window of this treatment has passed since the questionnaire was submitted.', late);
    // The engine's verdict binds the approval: outside it, only with a written override (docs/consultations.md).
    const { engine, sideEffects } = await consultationVerdict(q, c);
    const verdict = await verdictFor(q, { userId: c.user_id, category: c.category, treatmentId: treatment.id, dosage, engine, now, sideEffects });
    if (!verdict.ok && !input.overrideReason) {
      throw new ApiError(400, {
        detail: `The eligibility engine does not allow ${treatment.id} ${dosage} for this patient now (${verdict.codes.join(', ')}). Choose an allowed treatment and dose, or approve with an override and a written clinical reason.`,
        code: 'override_required',
        reason_codes: verdict.codes,
        treatment_id: treatment.id,
        dosage,
        allowed_treatments: verdict.allowed_treatments,
        allowed_dosages: verdict.allowed_dosages,
        explanation: verdict.explanation,
      });
    }
    await transition(q, c.id, 'approved', { doctor_id: input.doctorId, decided_at: now, decision_reason: input.note ?? '', treatment_id: treatment.id, dosage });
    // A prescription stays valid for 6 months (repeat supply within it needs a new consultation
    // for one-off plans; plans renew through the subscriptions module).
    const validUntil = new Date(now.getTime() + 182 * 24 * 3600 * 1000);
    const [rx] = await q.query(
      `insert into prescriptions (user_id, consultation_id, doctor_id, category, treatment_id, treatment_name, dosage, instructions, supply_days, issued_at, valid_until)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) returning id`,
      [c.user_id, c.id, input.doctorId, c.category, treatment.id, treatment.name, dosage, input.instructions ?? '', c.supply_days, now, validUntil],
    );
    const [u] = await q.query('select addresses from users where id = $1', [c.user_id]);
    const address = Array.isArray(u?.addresses) && u.addresses.length ? (u.addresses.find((a: any) => a?.is_default) ?? u.addresses[0]) : null;
    const items = [{ treatment_id: treatment.id, name: treatment.name, dosage, quantity: 1, supply_days: c.supply_days ?? null }];
    const [order] = await q.query(
      `insert into orders (user_id, consultation_id, prescription_id, status, items, shipping_address, created_at, updated_at)
       values ($1, $2, $3, 'awaiting_fulfilment', $4::jsonb, $5::jsonb, $6, $6) returning id`,
      [c.user_id, c.id, rx.id, JSON.stringify(items), address ? JSON.stringify(address) : null, now],
    );
    // An approved renewal or early order sets the plan's treatment and dose for what follows.
    if (c.subscription_id && ['renewal', 'early_order'].includes(c.origin)) {
      await q.query('update subscriptions set treatment_id = $2, dosage = $3, updated_at = now() where id = $1', [c.subscription_id, treatment.id, dosage]);
    }
    let overrideId: string | null = null;
    if (!verdict.ok) {
      overrideId = await insertOverride(q, {
        consultationId: c.id,
        doctorId: input.doctorId,
        treatmentId: treatment.id,
        dosage,
        reason: input.overrideReason!,
        codes: verdict.codes,
        allowed: { treatments: verdict.allowed_treatments, dosages: verdict.allowed_dosages },
      });
    }
    await audit(q, input.doctorId, 'consultation.approved', 'consultation', c.id, {
      from: c.status, prescription_id: rx.id, order_id: order.id, ...(overrideId ? { override_id: overrideId, override_codes: verdict.codes } : {}),
    });
    await enqueueMail(q, c.email, consultationApprovedMail, c.locale, { first_name: c.first_name, link: patientLink(deps, c.id) });
    return { consultationId: c.id, prescriptionId: rx.id, orderId: order.id };
  });
}

export async function rejectConsultation(deps: Deps, input: { doctorId: string; consultationId: string; reason: string }): Promise<void> {
  await deps.db.tx(async (q) => {
    const c = await lockForDecision(q, input.consultationId);
    await transition(q, c.id, 'rejected', { doctor_id: input.doctorId, decided_at: deps.clock.now(), decision_reason: input.reason });
    await audit(q, input.doctorId, 'consultation.rejected', 'consultation', c.id, { from: c.status });
    await enqueueMail(q, c.email, consultationRejectedMail, c.locale, { first_name: c.first_name, link: patientLink(deps, c.id) });
  });
}

export async function requestInformation(deps: Deps, input: { doctorId: string; consultationId: string; reason: string }): Promise<void> {
  await deps.db.tx(async (q) => {
    const c = await lockForDecision(q, input.consultationId);
    await transition(q, c.id, 'needs_information', { doctor_id: input.doctorId, decided_at: deps.clock.now(), decision_reason: input.reason });
    await audit(q, input.doctorId, 'consultation.information_requested', 'consultation', c.id, { from: c.status });
    await enqueueMail(q, c.email, consultationInformationMail, c.locale, { first_name: c.first_name, link: patientLink(deps, c.id) });
  });
}

/** Back to the queue once the patient has answered (messages or a new submission). */
export async function resumeReview(q: Queryable, userId: string, consultationId: string): Promise<boolean> {
  const [c] = await q.query("select id from consultations where id = $1 and user_id = $2 and status = 'needs_information' for update", [consultationId, userId]);
  if (!c) return false;
  await transition(q, c.id, 'pending_review');
  return true;
}
