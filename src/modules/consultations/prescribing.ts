// The engine's verdict applied to a sale or a prescription: reads what the pure rules need (the
// stored eligibility result, the supply history) and asks questionnaires/prescribing.ts. Used by
// checkout, the plan-covered consultation, the renewal confirm, the early order and the approval.
import type { Queryable } from '../../db/index.ts';
import { findTreatment, getVersion } from '../questionnaires/catalogue.ts';
import { evaluate, type AnswerItem, type EngineProfile } from '../questionnaires/engine.ts';
import { prescribingFor } from '../questionnaires/prescribing-catalogue.ts';
import { prescribingVerdict, type DoseOptions, type EngineVerdict, type PrescribingVerdict } from '../questionnaires/prescribing.ts';
import { profileFacts } from '../questionnaires/repository.ts';
import { submissionOf, supplyHistory } from './repository.ts';

/**
 * The engine's verdict of a submission: the stored result (treatments the patient may choose and
 * the reasons), or, for a result stored without them, the engine run again on the stored answers,
 * version and profile. Nothing is allowed when neither is possible.
 */
export function submissionVerdict(s: Record<string, any>, profile: EngineProfile): EngineVerdict {
  const r = s.result ?? {};
  if (Array.isArray(r.treatments) && r.treatments.every((t: unknown) => typeof t === 'string')) {
    return { outcome: s.outcome, treatments: r.treatments, reasons: Array.isArray(r.reasons) ? r.reasons : [] };
  }
  const version = getVersion(s.version_id);
  if (!version) return { outcome: s.outcome, treatments: [], reasons: [{ code: 'ENGINE_RESULT_UNAVAILABLE', kind: 'ineligible', treatments: [] }] };
  const out = evaluate(version, r.profile ?? profile, (Array.isArray(s.answers) ? s.answers : []) as AnswerItem[], new Date(s.created_at));
  return { outcome: out.outcome, treatments: out.treatments, reasons: out.reasons };
}

/** Titration options of a treatment from the prescribing catalogue (the SmPC's missed-dose window). */
export const doseOptionsFor = (category: string, treatmentId: string, extra: DoseOptions = {}): DoseOptions => ({
  missedDoseDays: prescribingFor(category).titration[treatmentId]?.missed_dose_days ?? 0,
  firstSupplyStrengths: prescribingFor(category).titration[treatmentId]?.first_supply_strengths,
  ...extra,
});

/** May this account be sold / prescribed this treatment and dose now? Unknown treatments are refused. */
export async function verdictFor(
  q: Queryable,
  input: { userId: string; category: string; treatmentId: string; dosage: string; engine: EngineVerdict; now: Date; sideEffects?: boolean },
): Promise<PrescribingVerdict> {
  const treatment = findTreatment(input.category, input.treatmentId);
  if (!treatment) {
    return { ok: false, refused: 'treatment', codes: ['TREATMENT_NOT_IN_CATALOGUE'], allowed_treatments: input.engine.treatments, allowed_dosages: [], dose: null, explanation: [] };
  }
  const history = await supplyHistory(q, input.userId, input.category, input.treatmentId);
  return prescribingVerdict({
    engine: input.engine,
    treatment,
    dosage: input.dosage,
    history,
    now: input.now,
    options: doseOptionsFor(input.category, input.treatmentId, { sideEffects: input.sideEffects }),
  });
}

/** The default dose of an allowed treatment: the dose to continue with (first step for a first supply). */
export async function defaultDosage(q: Queryable, userId: string, category: string, treatmentId: string, now: Date): Promise<string | null> {
  const treatment = findTreatment(category, treatmentId);
  if (!treatment) return null;
  const verdict = prescribingVerdict({ engine: { outcome: 'eligible', treatments: [treatmentId], reasons: [] }, treatment, dosage: '', history: await supplyHistory(q, userId, category, treatmentId), now, options: doseOptionsFor(category, treatmentId) });
  return verdict.dose?.resume ?? null;
}

/**
 * What the engine allowed for a consultation: its submission's result; for a confirmed renewal,
 * the engine's result over the renewal answers; otherwise (an early order, a consultation without a
 * submission) only the consultation's own treatment, the plan's, already approved once.
 */
export async function consultationVerdict(q: Queryable, c: Record<string, any>): Promise<{ engine: EngineVerdict; sideEffects: boolean }> {
  const stored = c.renewal_details?.verdict;
  if (c.origin === 'renewal' && stored && Array.isArray(stored.treatments)) {
    return { engine: { outcome: stored.outcome, treatments: stored.treatments, reasons: stored.reasons ?? [] }, sideEffects: stored.side_effects === true };
  }
  if (c.questionnaire_submission_id) {
    const s = await submissionOf(q, c.user_id, c.questionnaire_submission_id);
    if (s) return { engine: submissionVerdict(s, await profileFacts(q, c.user_id)), sideEffects: false };
  }
  return { engine: { outcome: 'eligible', treatments: c.treatment_id ? [c.treatment_id] : [], reasons: [] }, sideEffects: false };
}
