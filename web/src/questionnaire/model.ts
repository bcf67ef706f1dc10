// The questionnaire as the public schema describes it: visibility conditions, answers <-> the API's
// answer items, and per-step checks (the server checks again; this only helps the patient).
import type { paths } from '../api/schema';

export type QuestionnaireSchema = paths['/v1/users/questionnaires/{slug}/schema/']['get']['responses'][200]['content']['application/json'];
export type Step = QuestionnaireSchema['steps'][number];
export type Question = Step['questions'][number];
export type AnswerItem = { step_id: number; question_key: string; value?: string | number | boolean; values?: Record<string, unknown> };
/** A photo question's answer is a map photo id -> view (the clinical photos feature). */
export type AnswerValue = string | number | boolean | string[] | Record<string, string>;
export type Answers = Record<string, AnswerValue>;
export interface ProfileFacts {
  gender?: string | null;
  country_of_residence?: string | null;
  date_of_birth?: string | null;
}

type Cmp = { gt?: number; gte?: number; lt?: number; lte?: number };
function compare(v: unknown, c: Cmp): boolean {
  if (typeof v !== 'number' || !Number.isFinite(v)) return false;
  if (c.gt !== undefined && !(v > c.gt)) return false;
  if (c.gte !== undefined && !(v >= c.gte)) return false;
  if (c.lt !== undefined && !(v < c.lt)) return false;
  if (c.lte !== undefined && !(v <= c.lte)) return false;
  return true;
}

function ageOn(dob: string, now: Date): number {
  const [y, m, d] = dob.split('-').map(Number);
  let age = now.getUTCFullYear() - y;
  if (now.getUTCMonth() + 1 < m || (now.getUTCMonth() + 1 === m && now.getUTCDate() < d)) age--;
  return age;
}

/** Evaluates a `visible_if` condition (same grammar as the service's engine); unanswered is false. */
/** A `visible_if` condition as the schema sends it; every field is checked before it is used. */
type Condition = Cmp & {
  all?: unknown;
  any?: unknown;
  not?: unknown;
  profile?: unknown;
  in?: unknown;
  computed?: unknown;
  answer?: unknown;
  eq?: unknown;
  includes_any?: unknown;
  includes_none_of?: unknown;
};

export function holds(cond: unknown, answers: Answers, profile: ProfileFacts, now = new Date()): boolean {
  if (!cond || typeof cond !== 'object') return true;
  const c = cond as Condition;
  if (Array.isArray(c.all)) return c.all.every((x: unknown) => holds(x, answers, profile, now));
  if (Array.isArray(c.any)) return c.any.some((x: unknown) => holds(x, answers, profile, now));
  if (c.not) return !holds(c.not, answers, profile, now);
  if (typeof c.profile === 'string') {
    const v = (profile as Record<string, unknown>)[c.profile];
    return v !== null && v !== undefined && Array.isArray(c.in) && c.in.includes(String(v));
  }
  if (c.computed === 'bmi') {
    const h = answers.height_cm;
    const w = answers.weight_kg;
    return typeof h === 'number' && typeof w === 'number' && h > 0 && compare((w * 10000) / (h * h), c);
  }
  if (c.computed === 'age') return profile.date_of_birth ? compare(ageOn(profile.date_of_birth, now), c) : false;
  if (typeof c.answer !== 'string' || !(c.answer in answers)) return false;
  const v = answers[c.answer];
  if ('eq' in c && c.eq !== undefined && v !== c.eq) return false;
  if (Array.isArray(c.in) && !c.in.includes(v)) return false;
  const anyOf = c.includes_any;
  if (Array.isArray(anyOf) && !(Array.isArray(v) && v.some((x) => anyOf.includes(x)))) return false;
  const noneOf = c.includes_none_of;
  if (Array.isArray(noneOf) && !(Array.isArray(v) && v.length > 0 && !v.some((x) => noneOf.includes(x)))) return false;
  if ((c.gt ?? c.gte ?? c.lt ?? c.lte) !== undefined && !compare(v, c)) return false;
  return true;
}

export const isVisible = (q: Question, answers: Answers, profile: ProfileFacts) => !q.visible_if || holds(q.visible_if, answers, profile);

/** Steps with at least one visible question. */
export const visibleSteps = (steps: Step[], answers: Answers, profile: ProfileFacts) => steps.filter((s) => s.questions.some((q) => isVisible(q, answers, profile)));

/** API answer items -> answers by question key. */
export function fromItems(steps: Step[], items: AnswerItem[]): Answers {
  const types = new Map(steps.flatMap((s) => s.questions.map((q) => [q.question_key, q.type] as const)));
  const out: Answers = {};
  for (const a of items) {
    const type = types.get(a.question_key);
    if (!type) continue;
    if (type === 'multiple_choice') out[a.question_key] = Object.entries(a.values ?? {}).filter(([, on]) => on === true).map(([k]) => k);
    else if (type === 'photo') out[a.question_key] = Object.fromEntries(Object.entries(a.values ?? {}).filter((e): e is [string, string] => typeof e[1] === 'string'));
    else if (a.value !== undefined && a.value !== null) out[a.question_key] = a.value;
  }
  return out;
}

/** Answers -> the full cumulative answer array the draft endpoint expects (hidden answers dropped). */
export function toItems(steps: Step[], answers: Answers, profile: ProfileFacts): AnswerItem[] {
  const items: AnswerItem[] = [];
  for (const s of steps)
    for (const q of s.questions) {
      const v = answers[q.question_key];
      if (v === undefined || !isVisible(q, answers, profile)) continue;
      if (q.type === 'multiple_choice') {
        if (Array.isArray(v)) items.push({ step_id: s.step_id, question_key: q.question_key, values: Object.fromEntries(v.map((k) => [k, true])) });
      } else if (q.type === 'photo') {
        if (isPhotoAnswer(v) && Object.keys(v).length) items.push({ step_id: s.step_id, question_key: q.question_key, values: v });
      } else if (!Array.isArray(v) && !isPhotoAnswer(v) && v !== '') items.push({ step_id: s.step_id, question_key: q.question_key, value: v });
    }
  return items;
}

export const isPhotoAnswer = (v: AnswerValue | undefined): v is Record<string, string> => typeof v === 'object' && v !== null && !Array.isArray(v);

export type StepErrors = Record<string, 'required' | 'range'>;

/** Missing required answers and numbers out of bounds in the visible questions of a step. */
export function checkStep(step: Step, answers: Answers, profile: ProfileFacts): StepErrors {
  const errors: StepErrors = {};
  for (const q of step.questions) {
    if (!isVisible(q, answers, profile)) continue;
    const v = answers[q.question_key];
    // A photo question is answered once it holds its minimum number of photos.
    const empty = v === undefined || v === '' || (Array.isArray(v) && v.length === 0) || (q.type === 'photo' && (!isPhotoAnswer(v) || Object.keys(v).length < (q.min_photos ?? 1)));
    if (empty) {
      if (q.required) errors[q.question_key] = 'required';
      continue;
    }
    if (q.type === 'number' && (typeof v !== 'number' || (q.min !== undefined && v < q.min) || (q.max !== undefined && v > q.max))) errors[q.question_key] = 'range';
  }
  return errors;
}
