// The review desk's reads and its approval. Decisions live in the consultations module (approve, reject,
// request-information), so that status rules stay in one place.
import type { Deps } from '../../deps.ts';
import { notFound } from '../../http/errors.ts';
import { billingCategory } from '../payments/index.ts';
import {
  approveConsultation,
  consultationVerdict,
  findConsultationForClinician,
  overrideOf,
  serialiseConsultations,
  verdictFor,
  type ApproveInput,
} from '../consultations/index.ts';
import { updatePlanDetails } from '../subscriptions/index.ts';
import { weightSummary } from '../journal/index.ts';
import { TIME_CRITICAL_CATEGORIES } from '../questionnaires/index.ts';
import { countQueueForClinician, pageQueueForClinician, type QueueFilter } from './repository.ts';

const asRecord = (v: unknown): Record<string, unknown> | null => (typeof v === 'object' && v !== null && !Array.isArray(v) ? { ...v } : null);

export type { QueueFilter } from './repository.ts';

/** Consultations for review: time-critical categories first (emergency contraception), then oldest first. */
export async function reviewQueue(deps: Deps, f: QueueFilter) {
  const count = await countQueueForClinician(deps.reader, f);
  const rows = await pageQueueForClinician(deps.reader, f, TIME_CRITICAL_CATEGORIES);
  return { count, results: await serialiseConsultations(deps.reader, deps, rows) };
}

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
        choice: asRecord(details.choice),
        verdict: asRecord(details.verdict),
        red_flags: Array.isArray(details.red_flags) ? details.red_flags : [],
        ...(await weightSummary(deps.db, row.user_id)),
      }
    : null;
  return {
    ...c,
    treatment_options: (cat?.treatments ?? []).map((t) => ({ id: t.id, name: t.name, dosages: t.dosages })),
    prescribing_check: check
      ? { evaluated_at: deps.clock.now().toISOString(), ok: check.ok, reason_codes: check.codes, override_codes: check.override_codes, absolute_codes: check.absolute_codes, allowed_treatments: check.allowed_treatments, allowed_dosages: check.allowed_dosages, explanation: check.explanation }
      : null,
    prescribing_override: o
      ? { doctor_id: o.doctor_id, treatment_id: o.treatment_id, dosage: o.dosage, reason: o.reason, reason_codes: Array.isArray(o.engine_codes) ? o.engine_codes.map(String) : [], created_at: new Date(o.created_at).toISOString() }
      : null,
    renewal,
  };
}

/**
 * The doctor's approval; an approved renewal or early order also sets the plan's treatment and
 * dose for what follows, in the same transaction.
 */
export async function approveForClinician(deps: Deps, input: ApproveInput) {
  return approveConsultation(deps, input, async (q, { consultation: c }) => {
    if (c.subscription_id && ['renewal', 'early_order'].includes(c.origin)) {
      await updatePlanDetails(q, c.user_id, c.subscription_id, { treatment_id: c.treatment_id, dosage: c.dosage });
    }
  });
}
