// The engine's verdict applied to a sale or a prescription: reads what the pure rules need (the
// stored eligibility result, the supply history) and asks questionnaires/prescribing.ts. Used by
// checkout, the plan-covered consultation, the renewal confirm, the early order and the approval.
import type { Queryable } from '../../db/index.ts';
import {
  evaluate,
  findTreatment,
  getVersion,
  prescribingFor,
  prescribingVerdict,
  profileFacts,
  ruleFacts,
  type AnswerItem,
  type DoseOptions,
  type EngineProfile,
  type EngineVerdict,
  type PrescribingVerdict,
  type SupplyHistory,
} from '../questionnaires/index.ts';
import type { ConsultationsRow, QuestionnaireSubmissionsRow } from '../../db/schema.ts';
import { approvalsOf, livePlanOnTreatment, submissionOf } from './records.repository.ts';

const DAY_MS = 86_400_000;
const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isStringArray = (v: unknown): v is string[] => Array.isArray(v) && v.every((t) => typeof t === 'string');
/** Stored reasons (jsonb): kept as the engine wrote them; entries that are not objects are dropped. */
const storedReasons = (v: unknown): EngineVerdict['reasons'] => (Array.isArray(v) ? v.filter(isRecord) : []) as unknown as EngineVerdict['reasons'];

/**
 * The account's last supply of one treatment in a category (prescribing rules: titration and
 * breaks in supply), or null when no doctor ever approved it (a paid plan is not a supply until its
 * consultation is approved). `dosage`: the live plan's dose on that treatment, else the latest
 * approval's. `dose_since`: the earliest approval of the latest run of approvals at that dose (the
 * plan's start when every approval since the plan started is at that dose). `supplied_until`: the
 * live plan's paid period end, else the latest approval plus its supply days.
 */
export async function supplyHistory(q: Queryable, userId: string, category: string, treatmentId: string): Promise<SupplyHistory | null> {
  const approvals = (await approvalsOf(q, userId, category, treatmentId)).flatMap((a) => (a.decided_at ? [{ ...a, decided_at: a.decided_at }] : []));
  const latest = approvals[0];
  if (!latest) return null;
  const plan = await livePlanOnTreatment(q, userId, category, treatmentId);
  const dosage: string = plan?.dosage ?? latest.dosage;
  let since = new Date(latest.decided_at);
  for (const a of approvals) {
    if (a.dosage !== dosage) break;
    since = new Date(a.decided_at);
  }
  if (plan) {
    const started = new Date(plan.started_at);
    if (started < since && approvals.filter((a) => new Date(a.decided_at) >= started).every((a) => a.dosage === dosage)) since = started;
  }
  // A plan's supply is its paid period (an approved renewal is supplied from the next period on).
  const until = plan ? new Date(plan.current_period_end) : new Date(new Date(latest.decided_at).getTime() + (latest.supply_days ?? 28) * DAY_MS);
  return { treatment_id: treatmentId, dosage, dose_since: since, supplied_until: until };
}

/**
 * The engine's verdict of a submission: the stored result (treatments the patient may choose and
 * the reasons), or, for a result stored without them, the engine run again on the stored answers,
 * version and profile. Nothing is allowed when neither is possible.
 */
export function submissionVerdict(
  // A submission row: typed (QuestionnaireSubmissionsRow) or a caller's untyped row, read with guards.
  s: Pick<QuestionnaireSubmissionsRow, 'version_id' | 'answers' | 'outcome' | 'result' | 'created_at'> | Readonly<Record<string, unknown>>,
  profile: EngineProfile,
): EngineVerdict {
  const r = isRecord(s.result) ? s.result : {};
  const outcome = String(s.outcome);
  if (isStringArray(r.treatments)) {
    // Cautions too: a caution of an older version may be a strength limit today (enrichReasons).
    return { outcome, treatments: r.treatments, reasons: [...storedReasons(r.reasons), ...storedReasons(r.cautions)] };
  }
  const version = getVersion(String(s.version_id));
  if (!version) return { outcome, treatments: [], reasons: [{ code: 'ENGINE_RESULT_UNAVAILABLE', kind: 'ineligible', treatments: [] }] };
  // The profile stored with the result is the one the patient answered with.
  const stored = isRecord(r.profile) ? (r.profile as unknown as EngineProfile) : profile;
  const out = evaluate(version, stored, (Array.isArray(s.answers) ? s.answers : []) as AnswerItem[], new Date(s.created_at instanceof Date || typeof s.created_at === 'string' ? s.created_at : 0));
  return { outcome: out.outcome, treatments: out.treatments, reasons: out.reasons };
}

/** Titration options of a treatment from the prescribing catalogue (the SmPC's missed-dose window). */
export const doseOptionsFor = (category: string, treatmentId: string, extra: DoseOptions = {}): DoseOptions => ({
  missedDoseDays: prescribingFor(category).titration[treatmentId]?.missed_dose_days ?? 0,
  firstSupplyStrengths: prescribingFor(category).titration[treatmentId]?.first_supply_strengths,
  ...extra,
});

/**
 * The engine's reasons read with today's catalogue (`ruleFacts`): each rule's strength limit and
 * whether it is an absolute contraindication. A stored result keeps only codes and kinds; the rule
 * itself decides (a caution that a later version made a strength limit binds an older result too).
 */
export function enrichReasons(category: string, engine: EngineVerdict): EngineVerdict {
  const reasons = engine.reasons.map((r) => {
    const facts = ruleFacts(category, r.code);
    if (!facts) return r;
    const limit = facts.kind === 'limit_strengths';
    return {
      ...r,
      kind: limit ? facts.kind : r.kind,
      treatments: limit ? facts.treatments : r.treatments,
      ...(limit ? { strengths: facts.strengths, first_supply_only: facts.first_supply_only === true } : {}),
      absolute: facts.absolute,
    };
  });
  return { ...engine, reasons };
}

/** May this account be sold / prescribed this treatment and dose now? Unknown treatments are refused. */
export async function verdictFor(
  q: Queryable,
  input: { userId: string; category: string; treatmentId: string; dosage: string; engine: EngineVerdict; now: Date; sideEffects?: boolean },
): Promise<PrescribingVerdict> {
  const treatment = findTreatment(input.category, input.treatmentId);
  if (!treatment) {
    return { ok: false, refused: 'treatment', codes: ['TREATMENT_NOT_IN_CATALOGUE'], override_codes: ['TREATMENT_NOT_IN_CATALOGUE'], absolute_codes: [], allowed_treatments: input.engine.treatments, allowed_dosages: [], dose: null, explanation: [] };
  }
  const history = await supplyHistory(q, input.userId, input.category, input.treatmentId);
  return prescribingVerdict({
    engine: enrichReasons(input.category, input.engine),
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
export async function consultationVerdict(
  q: Queryable,
  c: Pick<ConsultationsRow, 'renewal_details' | 'origin' | 'questionnaire_submission_id' | 'user_id' | 'treatment_id'>,
): Promise<{ engine: EngineVerdict; sideEffects: boolean }> {
  const details = isRecord(c.renewal_details) ? c.renewal_details : {};
  const stored = isRecord(details.verdict) ? details.verdict : null;
  if (c.origin === 'renewal' && stored && isStringArray(stored.treatments)) {
    return { engine: { outcome: String(stored.outcome), treatments: stored.treatments, reasons: storedReasons(stored.reasons) }, sideEffects: stored.side_effects === true };
  }
  if (c.questionnaire_submission_id) {
    const s = await submissionOf(q, c.user_id, c.questionnaire_submission_id);
    if (s) return { engine: submissionVerdict(s, await profileFacts(q, c.user_id)), sideEffects: false };
  }
  return { engine: { outcome: 'eligible', treatments: c.treatment_id ? [c.treatment_id] : [], reasons: [] }, sideEffects: false };
}
