// What may be sold and prescribed: a pure function of (the engine's result, the catalogue's
// treatment and ladder, the patient's supply history, now). No I/O, no clock of its own.
// Every path that sells or prescribes goes through `prescribingVerdict`: checkout (and the plan-
// covered consultation), the renewal confirm, the early order and the doctor's approval.
// Rules and thresholds with their sources: docs/renewals.md ("Titration and breaks in supply").
import type { Rule, Step, Treatment, Version } from './catalogue.ts';
import type { Reason } from './engine.ts';

export const DAY_MS = 86_400_000;

/**
 * Breaks in supply of a titrated (weekly) medicine, in whole days after the last supplied dose
 * ran out (the next dose was due that day):
 * - up to the SmPC's missed-dose window (semaglutide 5 days [S1], tirzepatide 4 days [S2b]): the
 *   dose is only late, nothing changes;
 * - beyond it and up to NO_STEP_UP_MAX_DAYS: at least one dose was skipped [S1, S2b]; no step up
 *   now (stay at the dose or lower). UNSOURCED beyond the missed-dose rule (conservative);
 * - beyond NO_STEP_UP_MAX_DAYS (more than 2 weekly doses missed) and up to STEP_DOWN_MAX_DAYS:
 *   resume one step lower. UNSOURCED (conservative; S1 drops back one step for poor tolerance,
 *   and the US Wegovy label [S3] allows re-initiating the escalation after more than 2 missed doses);
 * - beyond STEP_DOWN_MAX_DAYS (more than 4 weekly doses missed): restart at the first step of the
 *   ladder. UNSOURCED (conservative).
 */
export const NO_STEP_UP_MAX_DAYS = 14;
export const STEP_DOWN_MAX_DAYS = 28;

/**
 * A planned break in supply (a skipped delivery, a pause, a later delivery date: docs/plan-management.md):
 * the last day the supply may resume at the current dose. Later than that, more than two weekly doses
 * were missed and the restart is one step lower, after STEP_DOWN_MAX_DAYS at the first step
 * (`doseVerdict` decides; UNSOURCED, conservative, as above). The renewal that resumes the supply is
 * reviewed by a doctor, who prescribes the restart dose.
 */
export function lastDayAtCurrentDose(suppliedUntil: Date): Date {
  return new Date(suppliedUntil.getTime() + NO_STEP_UP_MAX_DAYS * DAY_MS);
}

export type LadderTreatment = Pick<Treatment, 'treatment_id' | 'dosage_ladder' | 'strengths' | 'min_weeks_per_step'>;

/** The patient's last supply of one treatment: its dose, since when at that dose, until when supplied. */
export interface SupplyHistory {
  treatment_id: string;
  dosage: string;
  dose_since: Date;
  supplied_until: Date;
}

export interface DoseVerdict {
  titrated: boolean;
  /** Doses allowed now, lowest first. */
  allowed: string[];
  /** The dose to continue with when none is chosen: the current dose, or lower after a break. */
  resume: string;
  /** Why the doses above `allowed` are not allowed (empty when every dose is allowed). */
  codes: string[];
  supply_gap_days: number | null;
  weeks_on_dose: number | null;
  explanation: string[];
}

export interface DoseOptions {
  /** Days a late weekly dose may still be taken (the titration facts of the catalogue); 0 when unknown. */
  missedDoseDays?: number;
  /** Significant side effects reported (renewal screen): no step up [S1]. */
  sideEffects?: boolean;
  /** A medicine without a ladder whose first supply starts low (the catalogue's titration facts). */
  firstSupplyStrengths?: string[];
}

// Dose lists are never empty: the catalogue refuses empty strengths and ladders at start-up, and
// first-supply strengths must be among the strengths (prescribing-catalogue.ts).
function doseAt(list: readonly string[], i: number): string {
  const dose = list[i];
  if (dose === undefined) throw new Error(`no dose at ${i} of [${list.join(', ')}]`);
  return dose;
}

export function doseVerdict(t: LadderTreatment, history: SupplyHistory | null, now: Date, opts: DoseOptions = {}): DoseVerdict {
  const ladder = t.dosage_ladder;
  if (!ladder) {
    const first = !history || history.treatment_id !== t.treatment_id;
    if (first && opts.firstSupplyStrengths?.length) {
      const allowed = t.strengths.filter((s) => opts.firstSupplyStrengths!.includes(s));
      return {
        titrated: false, allowed, resume: doseAt(allowed, 0), codes: ['FIRST_SUPPLY_STARTING_DOSE'], supply_gap_days: null, weeks_on_dose: null,
        explanation: [`${t.treatment_id}: a first supply starts at ${allowed.join(' or ')}.`],
      };
    }
    const resume = history && t.strengths.includes(history.dosage) ? history.dosage : doseAt(t.strengths, 0);
    return { titrated: false, allowed: [...t.strengths], resume, codes: [], supply_gap_days: null, weeks_on_dose: null, explanation: [] };
  }
  const upTo = (max: number, codes: string[], explanation: string[], gap: number | null, weeks: number | null, current: number): DoseVerdict => ({
    titrated: true,
    allowed: ladder.slice(0, max + 1),
    resume: doseAt(ladder, Math.min(current, max)),
    codes,
    supply_gap_days: gap,
    weeks_on_dose: weeks,
    explanation,
  });
  if (!history || history.treatment_id !== t.treatment_id) {
    return upTo(0, ['TITRATION_STARTS_AT_FIRST_STEP'], [`${t.treatment_id}: a first supply starts at the first step of the ladder (${ladder[0]}).`], null, null, 0);
  }
  const current = Math.max(0, ladder.indexOf(history.dosage));
  const gap = Math.max(0, Math.floor((now.getTime() - history.supplied_until.getTime()) / DAY_MS));
  // Whole days first: a plan approved minutes after its payment still has its 28 days at the dose.
  const weeks = Math.max(0, Math.floor(Math.round((history.supplied_until.getTime() - history.dose_since.getTime()) / DAY_MS) / 7));
  const window = opts.missedDoseDays ?? 0;
  const at = `${ladder[current]} supplied for ${weeks} week(s), ${gap} day(s) without supply`;
  if (gap > STEP_DOWN_MAX_DAYS) {
    return upTo(0, ['SUPPLY_BREAK_RESTART_TITRATION'], [`${at}: more than ${STEP_DOWN_MAX_DAYS} days without supply, titration restarts at ${ladder[0]}.`], gap, weeks, 0);
  }
  if (gap > NO_STEP_UP_MAX_DAYS) {
    const max = Math.max(0, current - 1);
    return upTo(max, ['SUPPLY_BREAK_STEP_DOWN'], [`${at}: more than ${NO_STEP_UP_MAX_DAYS} days without supply, resume one step lower (${ladder[max]}).`], gap, weeks, current);
  }
  if (gap > window) {
    return upTo(current, ['SUPPLY_BREAK_NO_STEP_UP'], [`${at}: more than the ${window}-day missed-dose window, no step up now.`], gap, weeks, current);
  }
  if (current === ladder.length - 1) return upTo(current, [], [`${at}: at the top of the ladder.`], gap, weeks, current);
  if (weeks < (t.min_weeks_per_step ?? 4)) {
    return upTo(current, ['STEP_UP_TOO_EARLY'], [`${at}: a step up needs at least ${t.min_weeks_per_step ?? 4} weeks at the current dose.`], gap, weeks, current);
  }
  if (opts.sideEffects) {
    return upTo(current, ['STEP_UP_WITH_SIDE_EFFECTS'], [`${at}: significant side effects, no step up (stay or step down).`], gap, weeks, current);
  }
  return upTo(current + 1, [], [`${at}: one step up (${ladder[current + 1]}) is allowed.`], gap, weeks, current);
}

/** One of the engine's reasons as the prescribing rules read it (the catalogue adds the limit and whether it is absolute: consultations/prescribing.ts). */
export interface VerdictReason extends Pick<Reason, 'code' | 'kind' | 'treatments'> {
  /** `limit_strengths`: the only strengths of its treatments allowed. */
  strengths?: string[];
  /** `limit_strengths`: binds a first supply only. */
  first_supply_only?: boolean;
  /** No override lifts it (the prescribing catalogue's `absolute` list). */
  absolute?: boolean;
}

/** The engine's result as stored with a submission (or computed over renewal answers). */
export interface EngineVerdict {
  outcome: string;
  treatments: string[];
  reasons: VerdictReason[];
}

export interface PrescribingVerdict {
  ok: boolean;
  /** What is refused: the treatment, or the dose of an allowed treatment. */
  refused: 'treatment' | 'dosage' | null;
  /** Reason codes of the refusal (the engine's rule codes, or the titration codes). */
  codes: string[];
  /**
   * Every rule the chosen treatment and dose break, from every layer (exclusions, strength limits,
   * the starting dose and titration): what an override lifts, and records. Empty when ok.
   */
  override_codes: string[];
  /** The codes among `override_codes` that no override lifts (absolute contraindications). */
  absolute_codes: string[];
  allowed_treatments: string[];
  allowed_dosages: string[];
  dose: DoseVerdict | null;
  explanation: string[];
}

/** The engine's reason codes that exclude a treatment (or every treatment when the outcome is not eligible). */
export function exclusionCodes(engine: EngineVerdict, treatmentId: string): string[] {
  return exclusionReasons(engine, treatmentId).map((r) => r.code);
}

function exclusionReasons(engine: EngineVerdict, treatmentId: string): VerdictReason[] {
  if (engine.treatments.includes(treatmentId)) return [];
  const named = engine.reasons.filter((r) => (r.kind === 'ineligible' || r.kind === 'exclude_treatment') && (!r.treatments?.length || r.treatments.includes(treatmentId)));
  const unique = [...new Map(named.map((r) => [r.code, r])).values()];
  return unique.length ? unique : [{ code: 'TREATMENT_NOT_ALLOWED', kind: 'exclude_treatment', treatments: [treatmentId] }];
}

/** The strength limits that bind a treatment now (a first-supply limit binds only without an earlier supply of it). */
export function strengthLimits(engine: EngineVerdict, treatmentId: string, history: SupplyHistory | null): VerdictReason[] {
  const first = !history || history.treatment_id !== treatmentId;
  return engine.reasons.filter((r) => r.kind === 'limit_strengths' && r.strengths?.length && (r.treatments ?? []).includes(treatmentId) && (first || !r.first_supply_only));
}

/**
 * One decision for a treatment and dose: allowed by the engine's result, within the strength limits
 * of its interactions, and on the allowed part of the ladder. Every layer is evaluated, so that an
 * override lists every rule it lifts (`override_codes`) and an absolute one is never lifted.
 */
export function prescribingVerdict(input: {
  engine: EngineVerdict;
  treatment: LadderTreatment;
  dosage: string;
  history: SupplyHistory | null;
  now: Date;
  options?: DoseOptions;
}): PrescribingVerdict {
  const { engine, treatment, dosage } = input;
  const excluded = exclusionReasons(engine, treatment.treatment_id);
  const dose = doseVerdict(treatment, input.history, input.now, input.options);
  const limits = strengthLimits(engine, treatment.treatment_id, input.history);
  const withinLimits = (s: string) => limits.every((l) => l.strengths!.includes(s));
  const allowedDosages = dose.allowed.filter(withinLimits);
  const breaking = limits.filter((l) => !l.strengths!.includes(dosage));
  const limitText = breaking.map((l) => `${treatment.treatment_id}: only ${l.strengths!.join(' or ')} (${l.code}).`);
  const doseCodes = dose.allowed.includes(dosage) ? [] : dose.codes.length ? dose.codes : ['DOSAGE_NOT_ALLOWED'];
  const all = [...excluded, ...breaking];
  const overrideCodes = [...new Set([...all.map((r) => r.code), ...doseCodes])];
  const absoluteCodes = [...new Set(all.filter((r) => r.absolute).map((r) => r.code))];
  if (excluded.length) {
    const codes = excluded.map((r) => r.code);
    return {
      ok: false, refused: 'treatment', codes, override_codes: overrideCodes, absolute_codes: absoluteCodes, allowed_treatments: engine.treatments, allowed_dosages: [], dose: null,
      explanation: [`${treatment.treatment_id} is not allowed by the eligibility result (${codes.join(', ')}).`],
    };
  }
  if (breaking.length || doseCodes.length) {
    const codes = [...new Set([...breaking.map((r) => r.code), ...doseCodes])];
    return { ok: false, refused: 'dosage', codes, override_codes: overrideCodes, absolute_codes: absoluteCodes, allowed_treatments: engine.treatments, allowed_dosages: allowedDosages, dose, explanation: [...limitText, ...dose.explanation] };
  }
  return { ok: true, refused: null, codes: [], override_codes: [], absolute_codes: [], allowed_treatments: engine.treatments, allowed_dosages: allowedDosages, dose, explanation: dose.explanation };
}

// ---------------------------------------------------------------- the renewal rule set

/**
 * What the engine evaluates at a renewal: the version's safety screen plus the prescribing
 * catalogue's renewal steps, with the version's renewal rules and the catalogue's; when the patient
 * declares a change, the full questionnaire and its rules too, except the BMI thresholds (they are
 * starting criteria [S1, S2 4.1]; weight lost on treatment must not end it; the doctor sees the trend).
 * A question key asked in both screens is one question (the safety screen's step).
 */
export function renewalRuleSet(version: Version, extra: { steps: Step[]; rules: Rule[] }, changed: boolean): { category: string; steps: Step[]; rules: Rule[] } {
  const safety = [...version.renewal.safety_steps, ...extra.steps];
  const asked = new Set(safety.flatMap((s) => s.questions.map((q) => q.question_key)));
  const review = changed
    ? // A photo question is not part of a renewal: the renewal screen takes no uploads (a doctor who
      // needs a new photo asks for it, and the patient adds it to the open consultation).
      version.steps.map((s) => ({ ...s, questions: s.questions.filter((q) => !asked.has(q.question_key) && q.type !== 'photo') })).filter((s) => s.questions.length > 0)
    : [];
  const usesBmi = (r: Rule) => JSON.stringify(r.when).includes('"computed":"bmi"');
  const renewalRules = ((version.renewal as { rules?: Rule[] }).rules ?? []);
  const all = [...renewalRules, ...extra.rules, ...(changed ? version.rules.filter((r) => !usesBmi(r)) : [])];
  // The same rule listed twice counts once (a code may have several conditions, e.g. a red flag asked twice).
  const seen = new Set<string>();
  const rules = all.filter((r) => {
    const key = `${r.code} ${JSON.stringify(r.when)}`;
    return seen.has(key) ? false : (seen.add(key), true);
  });
  return { category: version.category, steps: [...safety, ...review], rules };
}
