// The review desk's reads and its approval. Decisions live in the consultations module (approve, reject,
// request-information), so that status rules stay in one place.
import type { Deps } from '../../deps.ts';
import { notFound } from '../../http/errors.ts';
import { billingCategory } from '../payments/index.ts';
import {
  approveConsultation,
  consultationVerdict,
  expireInformationRequests,
  rejectConsultation,
  type ConsultationRow,
  findConsultationForClinician,
  overrideOf,
  serialiseConsultations,
  verdictFor,
  type ApproveInput,
  planSupplies,
} from '../consultations/index.ts';
import { endPlanNow, updatePlanDetails } from '../subscriptions/index.ts';
import { maxRepeatsFor } from '../fulfilment/index.ts';
import { weightSummary } from '../journal/index.ts';
import { assertVerifiedForApproval, verificationForDesk } from '../verification/index.ts';
import { TIME_CRITICAL_CATEGORIES, submissionWithEarlier, type StoredAnswer } from '../questionnaires/index.ts';
import { clinicianPhotoUrl, deskPhotos } from '../photos/index.ts';
import { assertGpSharingForApproval, gpSharingForDesk, recordGpSharing } from '../interop/index.ts';
import { RenewalChoiceSchema, RenewalRedFlagSchema, RenewalVerdictSchema, readStored } from './schemas.ts';
import { countQueueForClinician, pageQueueForClinician, type QueueFilter } from './repository.ts';


export type { QueueFilter } from './repository.ts';

/** Consultations for review: time-critical categories first (emergency contraception), then oldest first. */
export async function reviewQueue(deps: Deps, f: QueueFilter) {
  const count = await countQueueForClinician(deps.reader, f);
  const rows = await pageQueueForClinician(deps.reader, f, TIME_CRITICAL_CATEGORIES);
  return { count, results: (await serialiseConsultations(deps.reader, deps, rows)).map((c) => deskImages(deps, c)) };
}

/** The desk opens a consultation's images at its own address (each view is written to the patient's access log). */
function deskImages<C extends { images: { id: string; url: string; created_at: string }[] }>(deps: Deps, c: C): C {
  return { ...c, images: c.images.map((i) => ({ ...i, url: clinicianPhotoUrl(deps.config.PUBLIC_BASE_URL, i.id) })) };
}

/** The repeats an approval of `treatmentId` may state here (none in a plan's consultation: its renewals supply it). */
const repeatsAllowed = (row: ConsultationRow, treatmentId: string) => maxRepeatsFor({ treatmentId, planSupplied: planSupplies(row) });

/**
 * A consultation with its submission, eligibility result and the category's treatment options; the
 * engine's verdict on its treatment and dose now (`prescribing_check`), the doctor's override if
 * one was recorded, and for a renewal the patient's choice, the engine's explanation and the weight.
 */
export async function consultationForReview(deps: Deps, id: string) {
  const row = await findConsultationForClinician(deps.db, id);
  if (!row) throw notFound();
  const [c] = await serialiseConsultations(deps.db, deps, [row]);
  if (!c) throw notFound();
  const cat = billingCategory(row.category);
  const { engine, sideEffects } = await consultationVerdict(deps.db, row);
  const check = row.treatment_id
    ? await verdictFor(deps.db, { userId: row.user_id, category: row.category, treatmentId: row.treatment_id, dosage: row.dosage ?? '', engine, now: deps.clock.now(), sideEffects })
    : null;
  const o = await overrideOf(deps.db, row.id);
  const details: Record<string, unknown> = typeof row.renewal_details === 'object' && row.renewal_details !== null ? { ...row.renewal_details } : {};
  const renewal = ['renewal', 'early_order'].includes(row.origin)
    ? {
        patient_choice_status: row.patient_choice_status ?? null,
        choice: readStored(RenewalChoiceSchema, details.choice),
        verdict: readStored(RenewalVerdictSchema, details.verdict),
        red_flags: (Array.isArray(details.red_flags) ? details.red_flags : []).flatMap((f) => readStored(RenewalRedFlagSchema, f) ?? []),
        ...(await weightSummary(deps.db, row.user_id)),
      }
    : null;
  return {
    ...deskImages(deps, c),
    ...(await deskPhotos(deps, row)),
    treatment_options: (cat?.treatments ?? []).map((t) => ({ id: t.id, name: t.name, dosages: t.dosages, max_repeats: repeatsAllowed(row, t.id) })),
    prescribing_check: check
      ? { evaluated_at: deps.clock.now().toISOString(), ok: check.ok, reason_codes: check.codes, override_codes: check.override_codes, absolute_codes: check.absolute_codes, allowed_treatments: check.allowed_treatments, allowed_dosages: check.allowed_dosages, explanation: check.explanation }
      : null,
    prescribing_override: o
      ? { doctor_id: o.doctor_id, treatment_id: o.treatment_id, dosage: o.dosage, reason: o.reason, reason_codes: Array.isArray(o.engine_codes) ? o.engine_codes.map(String) : [], created_at: new Date(o.created_at).toISOString() }
      : null,
    renewal,
    verification: await verificationForDesk(deps, row.user_id, row.category),
    gp_sharing: await gpSharingForDesk(deps, { userId: row.user_id, category: row.category, consultationId: row.id }),
    earlier_submissions: row.questionnaire_submission_id ? await earlierSubmissions(deps, row.user_id, row.questionnaire_submission_id) : [],
  };
}

/** How many earlier submissions the consultation page shows. */
export const EARLIER_SUBMISSIONS = 5;

type AnswerValue = string | number | boolean | string[] | null;

/** An answer as compared: its value, or a multiple choice's chosen options (sorted); null when unanswered. */
function answerValue(a: StoredAnswer | undefined): AnswerValue {
  if (!a) return null;
  if (a.values) {
    return Object.entries(a.values)
      .filter(([, chosen]) => chosen === true)
      .map(([k]) => k)
      .sort();
  }
  return a.value ?? null;
}

/** The answers of `before` that differ from `after`, in the order of `after` then keys only `before` has. */
export function changedAnswers(before: StoredAnswer[], after: StoredAnswer[], deciding: ReadonlySet<string>) {
  const was = new Map(before.map((a) => [a.question_key, a]));
  const now = new Map(after.map((a) => [a.question_key, a]));
  const keys = [...new Set([...now.keys(), ...was.keys()])];
  return keys.flatMap((key) => {
    const b = answerValue(was.get(key));
    const a = answerValue(now.get(key));
    return JSON.stringify(b) === JSON.stringify(a) ? [] : [{ question_key: key, before: b, after: a, deciding: deciding.has(key) }];
  });
}

/**
 * Why a consultation may have been held: the patient's earlier submissions of the category (the last
 * five before this consultation's submission, newest first), their outcome and the answers that
 * changed since ("not suitable" at 62 kg, resubmitted at once at 105 kg).
 */
async function earlierSubmissions(deps: Deps, userId: string, submissionId: string) {
  const found = await submissionWithEarlier(deps.db, userId, submissionId, EARLIER_SUBMISSIONS);
  if (!found) return [];
  const deciding = new Set(Array.isArray(found.current.result.changed_deciding_keys) ? found.current.result.changed_deciding_keys.map(String) : []);
  return found.earlier.map((s) => ({
    id: s.id,
    outcome: s.outcome,
    created_at: s.created_at.toISOString(),
    version_id: s.version_id,
    reason_codes: (s.result.reasons ?? []).flatMap((r) => (typeof r.code === 'string' ? [r.code] : [])),
    changed_answers: changedAnswers(s.answers, found.current.answers, deciding),
  }));
}

/**
 * The doctor's approval. The plan carries what was approved: whatever the origin (the first
 * checkout, a plan-covered consultation, a renewal, an early order), the approved treatment and
 * dose become the plan's in the same transaction, so the next renewal's ladder starts there.
 */
export async function approveForClinician(deps: Deps, input: ApproveInput) {
  // Verified identity (and weight, by category) before anything else: 409 verification_required.
  const pending = await findConsultationForClinician(deps.db, input.consultationId);
  if (pending) await assertVerifiedForApproval(deps, pending.user_id, pending.category);
  // A category whose letters to the patient's own doctor are required: the consent and the GP, or
  // the doctor's written reason, before anything is signed (409 gp_consent_required).
  // (Not for a renewal the patient has not confirmed: that refusal comes first, in the approval.)
  if (pending && ['pending_review', 'needs_information', 'awaiting_call'].includes(pending.status) && !(pending.origin === 'renewal' && pending.patient_choice_status !== 'confirmed')) {
    await assertGpSharingForApproval(deps, { userId: pending.user_id, category: pending.category, overrideReason: input.gpSharingOverrideReason });
  }
  return approveConsultation(deps, input, async (q, a) => {
    const c = a.consultation;
    if (c.subscription_id) {
      await updatePlanDetails(q, c.user_id, c.subscription_id, { treatment_id: c.treatment_id, dosage: c.dosage });
    }
    await recordGpSharing(deps, q, {
      userId: c.user_id,
      consultationId: c.id,
      prescriptionId: a.prescriptionId,
      category: c.category,
      doctorId: input.doctorId,
      treatmentId: c.treatment_id ?? '',
      treatmentName: a.treatmentName,
      dosage: c.dosage ?? '',
      instructions: a.instructions,
      at: a.at,
      overrideReason: input.gpSharingOverrideReason,
    });
  });
}

/**
 * A review that ended without an approval ends the plan it would have supplied: the plan a first
 * checkout opened, or the plan of an early order or an expired renewal. A rejected renewal keeps
 * the rule it had: the plan ends at its period end (nothing was charged for the next period). A
 * plan-covered consultation leaves its plan alone (the plan was approved before).
 */
function endsPlan(c: ConsultationRow, how: 'rejected' | 'expired'): boolean {
  if (!c.subscription_id) return false;
  if (c.origin === 'checkout' || c.origin === 'early_order') return true;
  return c.origin === 'renewal' && how === 'expired';
}

/** The doctor's rejection: refunds (consultations module) and the plan's end (here), in one transaction. */
export async function rejectForClinician(deps: Deps, input: { doctorId: string; consultationId: string; reason: string }) {
  await rejectConsultation(deps, input, async (q, { consultation: c }) => {
    if (endsPlan(c, 'rejected')) await endPlanNow(deps, q, c.user_id, c.subscription_id!);
  });
}

/** Scheduler: unanswered information requests expire, refunded, with their plan ended. */
export async function expireUnansweredRequests(deps: Deps): Promise<void> {
  await expireInformationRequests(deps, async (q, { consultation: c }) => {
    if (endsPlan(c, 'expired')) await endPlanNow(deps, q, c.user_id, c.subscription_id!);
  });
}

// The list orderings its routes validate `ordering` against (pagination contracts, not SQL).
export { QUEUE_ORDERING } from './repository.ts';
