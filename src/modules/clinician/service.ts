// The review desk's reads. Decisions live in consultations/service.ts (approve, reject,
// request-information), so that status rules stay in one place.
import type { Deps } from '../../deps.ts';
import { notFound } from '../../http/errors.ts';
import { billingCategory } from '../payments/index.ts';
import { consultationVerdict, verdictFor } from '../consultations/prescribing.ts';
import { serialiseConsultations } from '../consultations/repository.ts';
import { overrideOf } from '../consultations/records.repository.ts';
import { weightSummary } from '../journal/service.ts';
import { TIME_CRITICAL_CATEGORIES } from '../questionnaires/catalogue.ts';

export interface QueueFilter {
  status?: string;
  category?: string;
  limit: number;
  offset: number;
}

/** Consultations for review: time-critical categories first (emergency contraception), then oldest first. */
export async function reviewQueue(deps: Deps, f: QueueFilter) {
  // A renewal still waiting for the patient's choice is not ready for a doctor.
  const where: string[] = ["coalesce(patient_choice_status, '') <> 'pending'"];
  const params: unknown[] = [];
  if (f.status) where.push(`status = $${params.push(f.status)}`);
  if (f.category) where.push(`category = $${params.push(f.category)}`);
  const w = where.length ? `where ${where.join(' and ')}` : '';
  const [{ n }] = await deps.db.query(`select count(*)::int as n from consultations ${w}`, params);
  const urgent = `$${params.push(TIME_CRITICAL_CATEGORIES)}::text[]`;
  const rows = await deps.db.query(`select * from consultations ${w} order by (category = any(${urgent})) desc, created_at asc, id asc limit $${params.length + 1} offset $${params.length + 2}`, [
    ...params,
    f.limit,
    f.offset,
  ]);
  return { count: n as number, results: await serialiseConsultations(deps.db, deps, rows) };
}

/**
 * A consultation with its submission, eligibility result and the category's treatment options; the
 * engine's verdict on its treatment and dose now (`prescribing_check`), the doctor's override if
 * one was recorded, and for a renewal the patient's choice, the engine's explanation and the weight.
 */
export async function consultationForReview(deps: Deps, id: string) {
  const [row] = await deps.db.query('select * from consultations where id = $1', [id]);
  if (!row) throw notFound();
  const [c] = await serialiseConsultations(deps.db, deps, [row]);
  const cat = await billingCategory(row.category);
  const { engine, sideEffects } = await consultationVerdict(deps.db, row);
  const check = row.treatment_id
    ? await verdictFor(deps.db, { userId: row.user_id, category: row.category, treatmentId: row.treatment_id, dosage: row.dosage ?? '', engine, now: deps.clock.now(), sideEffects })
    : null;
  const o = await overrideOf(deps.db, row.id);
  const details = row.renewal_details ?? {};
  const renewal = ['renewal', 'early_order'].includes(row.origin)
    ? {
        patient_choice_status: row.patient_choice_status ?? null,
        choice: details.choice ?? null,
        verdict: details.verdict ?? null,
        red_flags: Array.isArray(details.red_flags) ? details.red_flags : [],
        ...(await weightSummary(deps.db, row.user_id)),
      }
    : null;
  return {
    ...c,
    treatment_options: (cat?.treatments ?? []).map((t) => ({ id: t.id, name: t.name, dosages: t.dosages })),
    prescribing_check: check
      ? { evaluated_at: deps.clock.now().toISOString(), ok: check.ok, reason_codes: check.codes, allowed_treatments: check.allowed_treatments, allowed_dosages: check.allowed_dosages, explanation: check.explanation }
      : null,
    prescribing_override: o
      ? { doctor_id: o.doctor_id, treatment_id: o.treatment_id, dosage: o.dosage, reason: o.reason, reason_codes: o.engine_codes ?? [], created_at: new Date(o.created_at).toISOString() }
      : null,
    renewal,
  };
}
