// Drafts, submission and eligibility (spec 2.7, 4.3). Design decisions: docs/questionnaires.md.
import type { Queryable } from '../../db/index.ts';
import type { Deps } from '../../deps.ts';
import { errorName, fieldErrors, notFound, type FieldErrors } from '../../http/errors.ts';
import { missingProfileFields, profileIncomplete } from '../profile/service.ts';
import { currentVersion, getCategory, getVersion, type Category, type Locale, type Question, type Treatment, type Version } from './catalogue.ts';
import { answerMap, emergencyNotice, evaluate, missingAnswers, redFlags, type AnswerItem, type EngineProfile, type QuestionSet } from './engine.ts';
import { ELIGIBLE, HELD_FOR_REVIEW } from './messages.ts';
import { deleteDraft, ensureDraft, insertSubmission, latestSubmission, lockDraft, profileFacts, saveDraft } from './repository.ts';
import type { AnswerItemInput } from './schemas.ts';

export function categoryOr404(slug: string): Category {
  const c = getCategory(slug);
  if (!c) throw notFound(`Unknown questionnaire category "${slug}".`);
  return c;
}

export const treatmentOut = (t: Treatment) => ({
  treatment_id: t.treatment_id,
  name: t.name,
  strengths: t.strengths,
  dosage_ladder: t.dosage_ladder,
  min_weeks_per_step: t.min_weeks_per_step,
  supply_days: t.supply_days,
  plan_cycle_days: t.plan_cycle_days,
  one_off_price_cents: t.one_off_price_cents,
  plan_price_cents: t.plan_price_cents,
  currency: t.currency,
});

const isRealDate = (v: string) => {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(v)) return false;
  const [y, m, d] = v.split('-').map(Number);
  const date = new Date(Date.UTC(y, m - 1, d));
  return date.getUTCFullYear() === y && date.getUTCMonth() === m - 1 && date.getUTCDate() === d;
};

function checkAnswer(q: Question, a: AnswerItemInput): string | null {
  if (q.type === 'multiple_choice') {
    if (a.value !== undefined || !a.values) return 'A multiple-choice answer uses "values": {option: true, ...}.';
    const options = new Set(q.options!.map((o) => o.value));
    for (const [k, v] of Object.entries(a.values)) {
      if (!options.has(k)) return `Unknown option "${k}". Choose from: ${[...options].join(', ')}.`;
      if (typeof v !== 'boolean') return `Option "${k}" must be true or false.`;
    }
    const on = Object.entries(a.values).filter(([, v]) => v === true).map(([k]) => k);
    if (on.includes('none') && on.length > 1) return '"none" cannot be combined with other options.';
    return null;
  }
  if (a.values !== undefined || a.value === undefined) return 'This question takes a single "value".';
  const v = a.value;
  switch (q.type) {
    case 'boolean':
      return typeof v === 'boolean' ? null : 'Must be true or false.';
    case 'single_choice':
      return typeof v === 'string' && q.options!.some((o) => o.value === v) ? null : `Choose one of: ${q.options!.map((o) => o.value).join(', ')}.`;
    case 'number':
      if (typeof v !== 'number' || !Number.isFinite(v)) return 'Must be a number.';
      if (q.min !== undefined && v < q.min) return `Must be at least ${q.min}${q.unit ? ' ' + q.unit : ''}.`;
      if (q.max !== undefined && v > q.max) return `Must be at most ${q.max}${q.unit ? ' ' + q.unit : ''}.`;
      return null;
    case 'date':
      return typeof v === 'string' && isRealDate(v) ? null : 'Date has wrong format. Use one of these formats instead: YYYY-MM-DD.';
    case 'text':
      if (typeof v !== 'string') return 'Must be text.';
      return v.length > (q.max_length ?? 2000) ? `At most ${q.max_length ?? 2000} characters.` : null;
  }
  return null;
}

/** Validates an answer array against a version; errors keyed `data[<index>]...` naming the item. */
export function validateAnswers(version: QuestionSet, data: AnswerItemInput[]): AnswerItem[] {
  const errors: FieldErrors = {};
  const where = new Map(version.steps.flatMap((s) => s.questions.map((q) => [q.question_key, { step: s.step_id, q }] as const)));
  const seen = new Set<string>();
  data.forEach((a, i) => {
    const found = where.get(a.question_key);
    if (!found) return void (errors[`data[${i}].question_key`] = [`Unknown question "${a.question_key}" in ${version.category}.`]);
    if (seen.has(a.question_key)) return void (errors[`data[${i}].question_key`] = [`"${a.question_key}" is answered more than once.`]);
    seen.add(a.question_key);
    if (found.step !== a.step_id) return void (errors[`data[${i}].step_id`] = [`"${a.question_key}" belongs to step ${found.step}.`]);
    const problem = checkAnswer(found.q, a);
    if (problem) errors[`data[${i}].${found.q.type === 'multiple_choice' ? 'values' : 'value'}`] = [`${a.question_key}: ${problem}`];
  });
  if (Object.keys(errors).length) throw fieldErrors(errors);
  return data.map((a) => (a.values !== undefined ? { step_id: a.step_id, question_key: a.question_key, values: a.values } : { step_id: a.step_id, question_key: a.question_key, value: a.value }));
}

const engineProfile = (p: { date_of_birth: string | null; gender: string | null; country_of_residence: string | null }): EngineProfile => ({
  date_of_birth: p.date_of_birth,
  gender: p.gender,
  country_of_residence: p.country_of_residence,
});

function progressOut(category: Category, row: any, emergency: ReturnType<typeof emergencyNotice> | null) {
  return {
    progress: { id: row.id, category: category.id, version: row.version_id, data: row.data ?? [], updated_at: new Date(row.updated_at).toISOString() },
    emergency,
  };
}

async function draftEmergency(q: Queryable, userId: string, versionId: string, data: AnswerItem[], now: Date, locale: Locale) {
  const version = getVersion(versionId);
  if (!version || data.length === 0) return null;
  const profile = await profileFacts(q, userId);
  const codes = redFlags(version, engineProfile(profile), data, now);
  return codes.length ? emergencyNotice(profile.country_of_residence, codes, locale) : null;
}

export async function getProgress(deps: Deps, userId: string, slug: string, locale: Locale) {
  const category = categoryOr404(slug);
  const row = await ensureDraft(deps.db, userId, slug, category.current_version_id);
  return progressOut(category, row, await draftEmergency(deps.db, userId, row.version_id, row.data ?? [], deps.clock.now(), locale));
}

/** Replaces the draft's answers (whole array) and moves it to the current version. */
export async function patchProgress(deps: Deps, userId: string, slug: string, data: AnswerItemInput[], locale: Locale) {
  const category = categoryOr404(slug);
  const version = currentVersion(slug)!;
  const answers = validateAnswers(version, data);
  const now = deps.clock.now();
  const row = await saveDraft(deps.db, userId, slug, version.id, answers, now);
  return progressOut(category, row, await draftEmergency(deps.db, userId, version.id, answers, now, locale));
}

/** Anti-gaming rule: did an answer (or profile field) that decided the last ineligible or emergency outcome change? */
function changedDecidingAnswers(prev: any, version: Version, answers: AnswerItem[], profile: EngineProfile): string[] {
  const keys: string[] = prev?.result?.deciding_keys ?? [];
  if (!keys.length) return [];
  const prevVersion = getVersion(prev.version_id) ?? version;
  const before = answerMap(prevVersion, prev.answers ?? []);
  const now = answerMap(version, answers);
  const prevProfile = prev.result?.profile ?? {};
  return keys.filter((k) => {
    if (k.startsWith('profile.')) {
      const f = k.slice(8) as keyof EngineProfile;
      return (prevProfile[f] ?? null) !== (profile[f] ?? null);
    }
    return JSON.stringify(before.get(k) ?? null) !== JSON.stringify(now.get(k) ?? null);
  });
}

export async function submit(deps: Deps, userId: string, slug: string, locale: Locale) {
  const category = categoryOr404(slug);
  const now = deps.clock.now();
  return deps.db.tx(async (q) => {
    const missingProfile = await missingProfileFields(q, userId);
    if (missingProfile.length) throw profileIncomplete(missingProfile);
    const draft = await lockDraft(q, userId, slug);
    const version = draft ? getVersion(draft.version_id) : undefined;
    if (!draft || !version) {
      throw errorName(400, 'QUESTIONNAIRE_INCOMPLETE', 'Answer the questionnaire before submitting it.', { missing_answers: currentVersion(slug)!.steps.flatMap((s) => s.questions.filter((x) => x.required).map((x) => x.question_key)) });
    }
    const profile = engineProfile(await profileFacts(q, userId));
    const answers: AnswerItem[] = draft.data ?? [];
    // Red flags end the flow even when other answers are still missing.
    const flags = redFlags(version, profile, answers, now);
    const missing = flags.length ? [] : missingAnswers(version, profile, answers, now);
    if (missing.length) throw errorName(400, 'QUESTIONNAIRE_INCOMPLETE', 'Some required questions are not answered.', { missing_answers: missing });

    const result = evaluate(version, profile, answers, now, locale);
    let outcome: 'eligible' | 'ineligible' | 'emergency' | 'held_for_review' = result.outcome;
    let message = result.outcome === 'eligible' ? '' : result.outcome === 'emergency' ? result.emergency!.message : `${result.reasons[0]?.message ?? ''} ${result.alternative?.message ?? ''}`.trim();
    let changed: string[] = [];
    if (result.outcome === 'eligible') {
      const prev = await latestSubmission(q, userId, slug, ['ineligible', 'emergency']);
      changed = prev ? changedDecidingAnswers(prev, version, answers, profile) : [];
      if (changed.length) {
        outcome = 'held_for_review';
        message = HELD_FOR_REVIEW[locale];
      }
    }
    if (outcome === 'eligible') message = ELIGIBLE[locale];
    const treatments = category.treatments.filter((t) => result.treatments.includes(t.treatment_id));
    const stored = {
      ...result,
      outcome,
      message,
      changed_deciding_keys: changed,
      profile,
      locale,
      treatment_id: treatments[0]?.treatment_id ?? null,
    };
    const row = await insertSubmission(q, userId, slug, version.id, answers, outcome, stored, now);
    await deleteDraft(q, userId, draft.id);
    return {
      id: row.id,
      category: slug,
      category_id: category.id,
      version: version.id,
      outcome,
      next_step: outcome === 'held_for_review' ? 'checkout' : result.next_step,
      message,
      treatments: treatments.map(treatmentOut),
      reasons: result.reasons,
      cautions: result.cautions,
      alternative: result.alternative,
      emergency: result.emergency,
      created_at: new Date(row.created_at).toISOString(),
    };
  });
}

/** For checkout: the latest submission of the category when it may go on to a doctor (eligible or held for review), else null. */
export async function latestEligibleSubmission(q: Queryable, userId: string, category: string) {
  const s = await latestSubmission(q, userId, category);
  return s && (s.outcome === 'eligible' || s.outcome === 'held_for_review') ? s : null;
}
