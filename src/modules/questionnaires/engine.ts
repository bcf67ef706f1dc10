// The eligibility engine: a pure function of (catalogue version, profile, answers, now). No I/O, no
// clock of its own. Rule semantics and outcome order: docs/questionnaires.md.
import { bmi } from '../../lib/bmi.ts';
import { emergencyNotice as sharedNotice } from '../../lib/emergency.ts';
import { ageOn } from '../profile/index.ts';
import { getCategory, type Condition, type Locale, type Question, type Rule, type RuleSet, type Step } from './catalogue.ts';

/** A question set: a version, or a renewal screen (`{category, steps}`). */
export type QuestionSet = { category: string; steps: Step[] };
import { alternativeText, reasonText } from './messages.ts';

export interface AnswerItem {
  step_id: number;
  question_key: string;
  value?: string | number | boolean | null;
  values?: Record<string, unknown>;
}
export interface EngineProfile {
  date_of_birth: string | null;
  gender: string | null;
  country_of_residence: string | null;
  /**
   * Measurements known from outside the answered set, for `computed: bmi` when the set does not ask
   * them (a renewal screen asks the current weight, not the height): the height of the patient's
   * latest submission, a recent journal weight. An answer always wins.
   */
  height_cm?: number | null;
  weight_kg?: number | null;
}
export interface Reason {
  code: string;
  kind: Rule['kind'];
  source: string;
  treatments: string[];
  message: string;
}
export interface EmergencyNotice {
  number: string;
  numbers: string[];
  non_emergency: { number: string; label: string }[];
  codes: string[];
  message: string;
}
export interface Outcome {
  outcome: 'eligible' | 'ineligible' | 'emergency';
  next_step: 'checkout' | 'in_person_care' | 'emergency_services';
  /** Treatments the patient may choose (empty unless eligible). */
  treatments: string[];
  reasons: Reason[];
  cautions: Reason[];
  alternative: { code: string; message: string } | null;
  emergency: EmergencyNotice | null;
  /** Question keys (and `profile.<field>`) of the rules that made the outcome ineligible or excluded a treatment. */
  deciding_keys: string[];
  bmi: number | null;
  age: number | null;
}

/** Selected options of a multiple-choice answer (`values: {option: true}`), or the scalar for others. */
export function answerMap(version: QuestionSet, answers: AnswerItem[]): Map<string, unknown> {
  const types = new Map(version.steps.flatMap((s) => s.questions.map((q) => [q.question_key, q] as const)));
  const out = new Map<string, unknown>();
  for (const a of answers) {
    const q = types.get(a.question_key);
    if (!q) continue;
    if (q.type === 'multiple_choice') {
      const v = a.values && typeof a.values === 'object' ? Object.entries(a.values).filter(([, on]) => on === true).map(([k]) => k) : [];
      out.set(a.question_key, v);
    } else if (q.type === 'photo') {
      // The ids of the photos (each mapped to the view it shows).
      out.set(a.question_key, a.values && typeof a.values === 'object' ? Object.keys(a.values) : []);
    } else if (a.value !== undefined && a.value !== null) out.set(a.question_key, a.value);
  }
  return out;
}

interface Facts {
  answers: Map<string, unknown>;
  profile: EngineProfile;
  age: number | null;
  bmi: number | null;
  now?: Date;
}

function compare(v: unknown, c: { gt?: number; gte?: number; lt?: number; lte?: number }): boolean {
  if (typeof v !== 'number' || !Number.isFinite(v)) return false;
  if (c.gt !== undefined && !(v > c.gt)) return false;
  if (c.gte !== undefined && !(v >= c.gte)) return false;
  if (c.lt !== undefined && !(v < c.lt)) return false;
  if (c.lte !== undefined && !(v <= c.lte)) return false;
  return true;
}

/** Evaluates a condition; a condition on an unanswered question is false. */
export function holds(c: Condition, f: Facts): boolean {
  if ('all' in c) return c.all.every((x) => holds(x, f));
  if ('any' in c) return c.any.some((x) => holds(x, f));
  if ('not' in c) return !holds(c.not, f);
  if ('profile' in c) {
    const v = f.profile[c.profile];
    return v !== null && v !== undefined && c.in.includes(String(v));
  }
  if ('computed' in c) return compare(c.computed === 'bmi' ? f.bmi : f.age, c);
  if ('days_since' in c) return compare(daysSince(f.answers.get(c.days_since), f.now), c);
  if (!f.answers.has(c.answer)) return false;
  const v = f.answers.get(c.answer);
  if ('eq' in c && c.eq !== undefined && v !== c.eq) return false;
  if (c.in && !c.in.includes(v)) return false;
  // Multiple-choice answers are string arrays (answerMap); anything else does not match an option.
  const chosen: unknown[] | null = Array.isArray(v) ? (v as unknown[]) : null;
  const picked = (options: string[]) => (chosen ?? []).some((x) => typeof x === 'string' && options.includes(x));
  if (c.includes_any && !(chosen && picked(c.includes_any))) return false;
  if (c.includes_none_of && !(chosen && chosen.length > 0 && !picked(c.includes_none_of))) return false;
  if ((c.gt ?? c.gte ?? c.lt ?? c.lte) !== undefined && !compare(v, c)) return false;
  return true;
}

/** Whole days from a `YYYY-MM-DD` answer to the evaluation date (UTC), or null. */
export function daysSince(v: unknown, now: Date | undefined): number | null {
  if (typeof v !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(v) || !now) return null;
  const t = Date.parse(`${v}T00:00:00Z`);
  if (Number.isNaN(t)) return null;
  return Math.floor((Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()) - t) / 86_400_000);
}

/** Profile fields that decide which questions are shown and which rules apply: a change of any of them after an ineligible result is a deciding change (anti-gaming). */
export const PROFILE_DECIDING_KEYS = ['profile.gender', 'profile.date_of_birth', 'profile.country_of_residence'] as const;

/** The keys a set of rules read, plus the keys that decide whether their questions are shown at all. */
function decidingKeys(set: QuestionSet, rules: Rule[]): string[] {
  const questions = new Map(set.steps.flatMap((s) => s.questions.map((q) => [q.question_key, q] as const)));
  // A computed BMI reads height_cm and weight_kg, or a renewal screen's current_weight_kg: only the keys the set asks (or the profile's) decide.
  const read = rules.flatMap((r) => keysOf(r.when));
  const asked = read.filter((k) => questions.has(k) || k.startsWith('profile.'));
  const keys = new Set(asked.length ? asked : read);
  for (const k of [...keys]) {
    const q = questions.get(k);
    if (q?.visible_if) keysOf(q.visible_if).forEach((x) => keys.add(x));
  }
  return [...keys];
}

/** The answer keys (and `profile.<field>`) a condition reads. */
export function keysOf(c: Condition): string[] {
  if ('all' in c) return c.all.flatMap(keysOf);
  if ('any' in c) return c.any.flatMap(keysOf);
  if ('not' in c) return keysOf(c.not);
  if ('profile' in c) return [`profile.${c.profile}`];
  if ('days_since' in c) return [c.days_since];
  if ('computed' in c) return c.computed === 'bmi' ? ['height_cm', 'weight_kg', 'current_weight_kg'] : ['profile.date_of_birth'];
  return [c.answer];
}

function facts(version: QuestionSet, profile: EngineProfile, answers: AnswerItem[], now: Date): Facts {
  const f: Facts = { answers: new Map(), profile, age: profile.date_of_birth ? ageOn(profile.date_of_birth, now) : null, bmi: null, now };
  const all = answerMap(version, answers);
  // Answers to questions that are hidden for this patient do not count.
  for (const s of version.steps) for (const q of s.questions) if (all.has(q.question_key) && isVisible(q, { ...f, answers: all })) f.answers.set(q.question_key, all.get(q.question_key));
  // The renewal screen's `current_weight_kg` stands for the weight; the profile's measurements fill in what the set does not ask.
  f.bmi = bmi(f.answers.get('height_cm') ?? profile.height_cm, f.answers.get('weight_kg') ?? f.answers.get('current_weight_kg') ?? profile.weight_kg);
  return f;
}

const isVisible = (q: Question, f: Facts) => !q.visible_if || holds(q.visible_if, f);

/** Visible required questions without an answer (submission refuses them). */
export function missingAnswers(version: QuestionSet, profile: EngineProfile, answers: AnswerItem[], now: Date): string[] {
  const f = facts(version, profile, answers, now);
  const all = answerMap(version, answers);
  const missing: string[] = [];
  for (const s of version.steps)
    for (const q of s.questions) {
      if (!q.required || !isVisible(q, { ...f, answers: all })) continue;
      const v = all.get(q.question_key);
      if (v === undefined || (Array.isArray(v) && v.length === 0) || (typeof v === 'string' && v.trim() === '')) missing.push(q.question_key);
      // A photo question is answered with at least its number of photos (a save may hold fewer).
      else if (q.type === 'photo' && Array.isArray(v) && v.length < (q.min_photos ?? 1)) missing.push(q.question_key);
    }
  return missing;
}

/** The questionnaire's emergency notice: the one notice of src/lib/emergency.ts, about the answers. */
export function emergencyNotice(country: string | null, codes: string[], locale: Locale): EmergencyNotice {
  return sharedNotice(country, locale, 'answers', codes);
}

/** Red-flag rules that fire on the given (possibly incomplete) answers: used on draft save too. */
export function redFlags(version: RuleSet, profile: EngineProfile, answers: AnswerItem[], now: Date): string[] {
  const f = facts(version, profile, answers, now);
  return version.rules.filter((r) => r.kind === 'red_flag' && holds(r.when, f)).map((r) => r.code);
}

export function evaluate(version: RuleSet, profile: EngineProfile, answers: AnswerItem[], now: Date, locale: Locale = 'en'): Outcome {
  const f = facts(version, profile, answers, now);
  const fired = version.rules.filter((r) => holds(r.when, f));
  const names = new Map((getCategory(version.category)?.treatments ?? []).map((t) => [t.treatment_id, t.names[locale]]));
  const reason = (r: Rule): Reason => {
    const named = (r.treatments ?? []).map((t) => (r.kind === 'limit_strengths' ? `${names.get(t) ?? t} ${(r.strengths ?? []).join(' / ')}` : (names.get(t) ?? t)));
    return { code: r.code, kind: r.kind, source: r.source, treatments: r.treatments ?? [], message: named.length ? `${reasonText(locale, r)} (${named.join(', ')})` : reasonText(locale, r) };
  };
  const base = { bmi: f.bmi === null ? null : Math.round(f.bmi * 100) / 100, age: f.age };
  const red = fired.filter((r) => r.kind === 'red_flag');
  if (red.length) {
    return {
      ...base, outcome: 'emergency', next_step: 'emergency_services', treatments: [], reasons: red.map(reason), cautions: [],
      alternative: { code: 'emergency_services', message: alternativeText(locale, 'emergency_services') },
      emergency: emergencyNotice(profile.country_of_residence, red.map((r) => r.code), locale), deciding_keys: decidingKeys(version, red),
    };
  }
  const category = getCategory(version.category);
  const all = (category?.treatments ?? []).map((t) => t.treatment_id);
  const excluding = fired.filter((r) => r.kind === 'exclude_treatment');
  const excluded = new Set(excluding.flatMap((r) => r.treatments ?? []));
  const allowed = all.filter((t) => !excluded.has(t));
  const hard = fired.filter((r) => r.kind === 'ineligible');
  // Strength limits of the treatments still allowed (interactions: sildenafil with ritonavir, levonorgestrel with enzyme inducers...).
  const limiting = fired.filter((r) => r.kind === 'limit_strengths' && (r.treatments ?? []).some((t) => allowed.includes(t)));
  const cautions = fired.filter((r) => r.kind === 'caution' && (!r.treatments?.length || r.treatments.some((t) => allowed.includes(t)))).map(reason);
  if (hard.length || allowed.length === 0) {
    const deciding = hard.length ? hard : excluding;
    const alt = deciding.find((r) => r.alternative)?.alternative ?? 'general_practitioner';
    return {
      ...base, outcome: 'ineligible', next_step: 'in_person_care', treatments: [], reasons: deciding.map(reason), cautions: [],
      alternative: { code: alt, message: alternativeText(locale, alt) }, emergency: null,
      deciding_keys: decidingKeys(version, deciding),
    };
  }
  return {
    ...base, outcome: 'eligible', next_step: 'checkout', treatments: allowed, reasons: [...excluding, ...limiting].map(reason), cautions, alternative: null, emergency: null,
    deciding_keys: decidingKeys(version, excluding),
  };
}

/**
 * The same evaluation later in time: answers to questions marked `elapses: "hours"` (hours since
 * unprotected sex) grow by the hours passed since they were given. Used at approval: emergency
 * contraception is re-checked against the 72 h (levonorgestrel) and 120 h (ulipristal) windows.
 */
export function evaluateAt(version: RuleSet, profile: EngineProfile, answers: AnswerItem[], answeredAt: Date, now: Date, locale: Locale = 'en'): Outcome {
  const elapsing = new Set(version.steps.flatMap((s) => s.questions.filter((q) => q.elapses === 'hours').map((q) => q.question_key)));
  const hours = Math.max(0, (now.getTime() - answeredAt.getTime()) / 3_600_000);
  const later = answers.map((a) => (elapsing.has(a.question_key) && typeof a.value === 'number' ? { ...a, value: a.value + hours } : a));
  return evaluate(version, profile, later, now, locale);
}

/** True when a rule set has answers that grow with time (so that a later re-check can differ). */
export const hasElapsingAnswers = (version: RuleSet) => version.steps.some((s) => s.questions.some((q) => q.elapses === 'hours'));

/**
 * Countries whose residents this service does not prescribe to online, with the legal source:
 * Spain bans the telematic sale of prescription medicines (K5, RD 870/2013); France allows online
 * sale of non-prescription medicines only (K6). The countries stay supported for emergency numbers.
 */
export const NO_ONLINE_PRESCRIBING: Readonly<Record<string, string>> = { ESP: 'K5', FRA: 'K6' };

/** The refusal for a country of residence where online prescribing is not allowed, else null. */
export function onlinePrescribingRefusal(country: string | null): { code: 'COUNTRY_NO_ONLINE_PRESCRIBING'; country: string; source: string } | null {
  const source = country ? NO_ONLINE_PRESCRIBING[country] : undefined;
  return source ? { code: 'COUNTRY_NO_ONLINE_PRESCRIBING', country: country!, source } : null;
}
