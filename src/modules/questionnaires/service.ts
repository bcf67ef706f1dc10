// Drafts, submission and eligibility (spec 2.7, 4.3). Design decisions: docs/questionnaires.md.
import type { EmergencyNoticeOut } from '../../lib/emergency-schema.ts';
import { screenFreeText } from '../redflags/index.ts';
import type { Queryable } from '../../db/index.ts';
import type { Deps } from '../../deps.ts';
import { fail, fieldErrors, notFound, type FieldErrors } from '../../http/errors.ts';
import { nameUuid } from '../../lib/name-uuid.ts';
import { missingProfileFields, profileIncomplete } from '../profile/index.ts';
import { currentVersion, getCategory, getVersion, type Category, type Locale, type Question, type Treatment, type Version } from './catalogue.ts';
import { submissionDeliveryVerdicts } from './ec-delivery.ts';
import {
  answerMap, emergencyNotice, evaluate, evaluateAt, hasElapsingAnswers, keysOf, missingAnswers, onlinePrescribingRefusal, PROFILE_DECIDING_KEYS, redFlags,
  type AnswerItem, type EngineProfile, type QuestionSet,
} from './engine.ts';
import { alternativeText, ELIGIBLE, HELD_FOR_DRAFT_RED_FLAG, HELD_FOR_REVIEW, NOT_AVAILABLE_IN_COUNTRY, storedReasonText } from './messages.ts';
import {
  deleteDraft, draftRedFlags, emptyDraftBasis, findDraft, insertSubmission, latestSubmission, listSubmissions, latestSubmissionWithExclusions, lockDraft, photoIdsOfQuestion, profileFacts, recordDraftRedFlags,
  saveDraft, submissionById, type Draft, type Submission,
} from './repository.ts';
import type { AnswerItemInput } from './schemas.ts';

export function categoryOr404(slug: string): Category {
  const c = getCategory(slug);
  if (!c) throw notFound(`Unknown questionnaire category "${slug}".`);
  return c;
}

/** A treatment in the public shape, its name in the request's locale. */
export const treatmentOut = (t: Treatment, locale: Locale) => ({
  treatment_id: t.treatment_id,
  name: t.names[locale],
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
  const [y = 0, m = 0, d = 0] = v.split('-').map(Number);
  const date = new Date(Date.UTC(y, m - 1, d));
  return date.getUTCFullYear() === y && date.getUTCMonth() === m - 1 && date.getUTCDate() === d;
};

const PHOTO_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function checkAnswer(q: Question, a: AnswerItemInput, today: string | null): string | null {
  if (q.type === 'photo') {
    if (a.value !== undefined || !a.values) return 'A photo answer uses "values": {"<photo id>": "<view>", ...}.';
    const views = (q.views ?? []).map((v) => v.value);
    const entries = Object.entries(a.values);
    if (entries.length > (q.max_photos ?? 1)) return `At most ${q.max_photos ?? 1} photos.`;
    for (const [id, view] of entries) {
      if (!PHOTO_ID.test(id)) return `"${id}" is not a photo id.`;
      if (typeof view !== 'string' || !views.includes(view)) return `Photo ${id}: the view is one of: ${views.join(', ')}.`;
    }
    return null;
  }
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
      if (typeof v !== 'string' || !isRealDate(v)) return 'Date has wrong format. Use one of these formats instead: YYYY-MM-DD.';
      // Every date question asks about the past (a test, a check-up): a later date is a typing error.
      return today !== null && v > today ? 'The date cannot be in the future.' : null;
    case 'text':
      if (typeof v !== 'string') return 'Must be text.';
      return v.length > (q.max_length ?? 2000) ? `At most ${q.max_length ?? 2000} characters.` : null;
  }
  return null;
}

/** Validates an answer array against a version; errors keyed `data[<index>]...` naming the item. With `now`, a date after that day is refused. */
export function validateAnswers(version: QuestionSet, data: AnswerItemInput[], now?: Date): AnswerItem[] {
  const today = now ? now.toISOString().slice(0, 10) : null;
  const errors: FieldErrors = {};
  const where = new Map(version.steps.flatMap((s) => s.questions.map((q) => [q.question_key, { step: s.step_id, q }] as const)));
  const seen = new Set<string>();
  data.forEach((a, i) => {
    const found = where.get(a.question_key);
    if (!found) return void (errors[`data[${i}].question_key`] = [`Unknown question "${a.question_key}" in ${version.category}.`]);
    if (seen.has(a.question_key)) return void (errors[`data[${i}].question_key`] = [`"${a.question_key}" is answered more than once.`]);
    seen.add(a.question_key);
    if (found.step !== a.step_id) return void (errors[`data[${i}].step_id`] = [`"${a.question_key}" belongs to step ${found.step}.`]);
    const problem = checkAnswer(found.q, a, today);
    if (problem) errors[`data[${i}].${found.q.type === 'multiple_choice' || found.q.type === 'photo' ? 'values' : 'value'}`] = [`${a.question_key}: ${problem}`];
  });
  if (Object.keys(errors).length) throw fieldErrors(errors);
  return data.map((a) => (a.values !== undefined ? { step_id: a.step_id, question_key: a.question_key, values: a.values } : { step_id: a.step_id, question_key: a.question_key, value: a.value }));
}

const engineProfile = (p: { date_of_birth?: string | null; gender?: string | null; country_of_residence?: string | null }): EngineProfile => ({
  date_of_birth: p.date_of_birth ?? null,
  gender: p.gender ?? null,
  country_of_residence: p.country_of_residence ?? null,
});

function progressOut(category: Category, draft: Draft, emergency: EmergencyNoticeOut | null) {
  return {
    progress: { id: draft.id, category: category.id, version: draft.version_id, data: draft.data, updated_at: draft.updated_at.toISOString() },
    emergency,
  };
}

// The namespace of the ids of drafts not saved yet (any fixed UUID; changing it changes those ids).
const DRAFT_ID_NAMESPACE = '5f1d0c1e-7a3b-4e29-a0c4-b8d6e2f31a77';

/**
 * The id a draft has before its first save: a name-based UUID of the account, the category and the
 * submission that ended the previous draft. A read then needs no row to answer with a stable id, the
 * first save inserts the row under that id, and a new draft after a submission gets a new id.
 */
export const draftIdFor = (userId: string, category: string, lastSubmissionId: string | null): string =>
  nameUuid(DRAFT_ID_NAMESPACE, `${userId}/${category}/${lastSubmissionId ?? ''}`);

/** The draft a patient has before saving anything: empty, current version, no row (GETs do not write). */
async function emptyDraft(q: Queryable, userId: string, category: Category, now: Date): Promise<Draft> {
  const basis = await emptyDraftBasis(q, userId, category.slug);
  return { id: draftIdFor(userId, category.slug, basis?.lastSubmissionId ?? null), version_id: category.current_version_id, data: [], updated_at: basis?.since ?? now };
}

async function draftEmergency(q: Queryable, userId: string, versionId: string, data: AnswerItem[], now: Date, locale: Locale) {
  const version = getVersion(versionId);
  if (!version || data.length === 0) return null;
  const profile = await profileFacts(q, userId);
  const codes = redFlags(version, engineProfile(profile), data, now);
  return codes.length ? emergencyNotice(profile.country_of_residence, codes, locale) : null;
}

/**
 * Residents of a country where this service may not prescribe online (Spain K5, France K6) are
 * refused before any health answer is stored: at the first progress save and at submit (also
 * checkout, through the same function). 400 `SERVICE_NOT_AVAILABLE_IN_COUNTRY`.
 */
export function assertCountryServed(country: string | null, locale: Locale = 'en'): void {
  const refusal = onlinePrescribingRefusal(country);
  if (refusal) {
    throw fail('SERVICE_NOT_AVAILABLE_IN_COUNTRY', {
      message: NOT_AVAILABLE_IN_COUNTRY[locale],
      extra: { country: refusal.country, reasons: [{ code: refusal.code, source: refusal.source }] },
    });
  }
}

/** The saved draft, or the empty one the first save will create: read-only (served by deps.reader). */
export async function getProgress(deps: Deps, userId: string, slug: string, locale: Locale) {
  const category = categoryOr404(slug);
  const now = deps.clock.now();
  const draft = (await findDraft(deps.reader, userId, slug)) ?? (await emptyDraft(deps.reader, userId, category, now));
  return progressOut(category, draft, await draftEmergency(deps.reader, userId, draft.version_id, draft.data, now, locale));
}

/** Replaces the draft's answers (whole array) and moves it to the current version. */
export async function patchProgress(deps: Deps, userId: string, slug: string, data: AnswerItemInput[], locale: Locale) {
  const category = categoryOr404(slug);
  const version = currentVersion(slug)!;
  const profileRow = await profileFacts(deps.db, userId);
  assertCountryServed(profileRow.country_of_residence, locale);
  const now = deps.clock.now();
  const answers = validateAnswers(version, data, now);
  await checkPhotoAnswers(deps, userId, slug, version, answers);
  const profile = engineProfile(profileRow);
  const codes = answers.length ? redFlags(version, profile, answers, now) : [];
  const row = await deps.db.tx(async (q) => {
    // The first save creates the row under the id the empty draft was shown with.
    const id = (await findDraft(q, userId, slug))?.id ?? (await emptyDraft(q, userId, category, now)).id;
    const saved = await saveDraft(q, userId, slug, version.id, answers, now, id);
    // A red flag raised on a draft is remembered even if the answer is unticked later (anti-gaming).
    const raised = version.rules.filter((r) => codes.includes(r.code)).map((r) => ({ code: r.code, keys: [...new Set(keysOf(r.when))] }));
    if (raised.length) await recordDraftRedFlags(q, userId, slug, raised, now);
    // The patient's own words (text answers) are read by the one detector (docs/red-flags.md); a red
    // flag goes on the desk once per text (a draft is saved many times).
    const screening = await screenFreeText(q, { userId, source: 'questionnaire', sourceId: null, texts: textAnswers(version, answers), about: 'message' });
    return { saved, screening };
  });
  const engine = codes.length ? emergencyNotice(profile.country_of_residence, codes, locale) : null;
  const words = row.screening.emergency;
  // One notice: the engine's (its red-flag codes), with the detector's categories added.
  const emergency = engine ? { ...engine, codes: [...engine.codes, ...(words?.codes ?? [])] } : words;
  return progressOut(category, row.saved, emergency);
}

/**
 * A photo answer names photos this account uploaded for this question of this questionnaire
 * (`POST .../{slug}/photos/`): any other id (another account's, another question's, made up) is
 * refused like an unknown option, and the same 400 whoever owns it.
 */
async function checkPhotoAnswers(deps: Deps, userId: string, slug: string, version: Version, answers: AnswerItem[]): Promise<void> {
  const photoKeys = new Set(version.steps.flatMap((s) => s.questions.filter((q) => q.type === 'photo').map((q) => q.question_key)));
  const errors: FieldErrors = {};
  for (const [i, a] of answers.entries()) {
    if (!photoKeys.has(a.question_key) || !a.values) continue;
    const ids = Object.keys(a.values);
    if (ids.length === 0) continue;
    const known = await photoIdsOfQuestion(deps.db, userId, slug, a.question_key, ids);
    const unknown = ids.find((id) => !known.has(id));
    if (unknown) errors[`data[${i}].values`] = [`${a.question_key}: no photo "${unknown}" was uploaded for this question.`];
  }
  if (Object.keys(errors).length) throw fieldErrors(errors);
}

/** The answers to text questions: the patient's own words. */
function textAnswers(version: NonNullable<ReturnType<typeof currentVersion>>, answers: AnswerItem[]): string[] {
  const textKeys = new Set(version.steps.flatMap((st) => st.questions.filter((qq) => qq.type === 'text').map((qq) => qq.question_key)));
  return answers.filter((a) => textKeys.has(a.question_key) && typeof a.value === 'string').map((a) => String(a.value));
}

/**
 * Anti-gaming rule: did an answer or a profile field that decided an earlier outcome change? The
 * profile fields that show or hide questions and decide rules (gender, date of birth, country)
 * always count as deciding keys.
 */
const PROFILE_FIELDS = ['date_of_birth', 'gender', 'country_of_residence'] as const satisfies readonly (keyof EngineProfile)[];

function changedDecidingAnswers(prev: Submission, version: Version, answers: AnswerItem[], profile: EngineProfile): string[] {
  // Always the profile fields, when the earlier result kept a profile snapshot to compare with.
  const keys: string[] = [...new Set([...(prev.result.deciding_keys ?? []), ...(prev.result.profile ? PROFILE_DECIDING_KEYS : [])])];
  const prevVersion = getVersion(prev.version_id) ?? version;
  const before = answerMap(prevVersion, prev.answers);
  const now = answerMap(version, answers);
  const prevProfile = engineProfile(prev.result.profile ?? {});
  return keys.filter((k) => {
    const field = PROFILE_FIELDS.find((f) => k === `profile.${f}`);
    if (field) return prevProfile[field] !== profile[field];
    return JSON.stringify(before.get(k) ?? null) !== JSON.stringify(now.get(k) ?? null);
  });
}

export async function submit(deps: Deps, userId: string, slug: string, locale: Locale) {
  const category = categoryOr404(slug);
  const now = deps.clock.now();
  return deps.db.tx(async (q) => {
    const missingProfile = await missingProfileFields(q, userId);
    if (missingProfile.length) throw profileIncomplete(missingProfile);
    const profile = engineProfile(await profileFacts(q, userId));
    assertCountryServed(profile.country_of_residence, locale);
    const draft = await lockDraft(q, userId, slug);
    const version = draft ? getVersion(draft.version_id) : undefined;
    if (!draft || !version) {
      throw fail('QUESTIONNAIRE_INCOMPLETE', { message: 'Answer the questionnaire before submitting it.', extra: { missing_answers: currentVersion(slug)!.steps.flatMap((s) => s.questions.filter((x) => x.required).map((x) => x.question_key)) } });
    }
    const answers: AnswerItem[] = draft.data;
    // Red flags end the flow even when other answers are still missing.
    const flags = redFlags(version, profile, answers, now);
    const missing = flags.length ? [] : missingAnswers(version, profile, answers, now);
    if (missing.length) throw fail('QUESTIONNAIRE_INCOMPLETE', { message: 'Some required questions are not answered.', extra: { missing_answers: missing } });

    const result = evaluate(version, profile, answers, now, locale);
    let outcome: 'eligible' | 'ineligible' | 'emergency' | 'held_for_review' = result.outcome;
    let message = result.outcome === 'eligible' ? '' : result.outcome === 'emergency' ? result.emergency!.message : `${result.reasons[0]?.message ?? ''} ${result.alternative?.message ?? ''}`.trim();
    let changed: string[] = [];
    let heldRedFlags: string[] = [];
    if (result.outcome === 'eligible') {
      // 1. An earlier ineligible or emergency outcome whose deciding answers (or profile) changed.
      const prev = await latestSubmission(q, userId, slug, ['ineligible', 'emergency']);
      const found = new Set(prev ? changedDecidingAnswers(prev, version, answers, profile) : []);
      // 2. A treatment an earlier submission excluded is allowed now because its deciding answers changed.
      const prevExcl = await latestSubmissionWithExclusions(q, userId, slug);
      if (prevExcl) {
        const excluded = new Set<string>((prevExcl.result.reasons ?? []).filter((r) => r.kind === 'exclude_treatment').flatMap((r) => r.treatments ?? []));
        if (result.treatments.some((t) => excluded.has(t))) changedDecidingAnswers(prevExcl, version, answers, profile).forEach((k) => found.add(k));
      }
      const answerChanges = found.size;
      // 3. A red flag raised on a draft of this category and withdrawn before submitting.
      const raised = await draftRedFlags(q, userId, slug);
      heldRedFlags = raised.map((f) => f.code);
      raised.forEach((f) => f.question_keys.forEach((k) => found.add(k)));
      changed = [...found];
      if (changed.length) {
        outcome = 'held_for_review';
        message = (answerChanges === 0 ? HELD_FOR_DRAFT_RED_FLAG : HELD_FOR_REVIEW)[locale];
      }
    }
    if (outcome === 'eligible') message = ELIGIBLE[locale];
    const treatments = category.treatments.filter((t) => result.treatments.includes(t.treatment_id));
    const stored = {
      ...result,
      outcome,
      message,
      changed_deciding_keys: changed,
      draft_red_flags: heldRedFlags,
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
      treatments: treatments.map((t) => treatmentOut(t, locale)),
      reasons: result.reasons,
      cautions: result.cautions,
      alternative: result.alternative,
      emergency: result.emergency,
      // Emergency contraception: can delivery arrive well inside the window? Said before payment.
      delivery: outcome === 'eligible' || outcome === 'held_for_review' ? submissionDeliveryVerdicts({ answers, answeredAt: now, treatments: result.treatments, country: profile.country_of_residence, start: now }) : [],
      created_at: row.created_at.toISOString(),
    };
  });
}

/** For checkout: the latest submission of the category when it may go on to a doctor (eligible or held for review), else null. */
export async function latestEligibleSubmission(q: Queryable, userId: string, category: string): Promise<Submission | null> {
  const s = await latestSubmission(q, userId, category);
  return s && (s.outcome === 'eligible' || s.outcome === 'held_for_review') ? s : null;
}

/**
 * Re-check at approval of answers that grow with time (emergency contraception: hours since
 * unprotected sex). Null when the treatment is still within its window, or when the submission has
 * no such answer or did not allow the treatment in the first place (that is the approval's own
 * verdict check). Otherwise the rule codes that now exclude it and the hours passed.
 */
export async function timeWindowRecheck(q: Queryable, userId: string, submissionId: string | null, treatmentId: string, now: Date) {
  if (!submissionId) return null;
  const s = await submissionById(q, userId, submissionId);
  const version = s ? getVersion(s.version_id) : undefined;
  if (!s || !version || !hasElapsingAnswers(version)) return null;
  const profile = engineProfile(s.result.profile ?? (await profileFacts(q, userId)));
  const answeredAt = s.created_at;
  const then = evaluateAt(version, profile, s.answers, answeredAt, answeredAt);
  const later = evaluateAt(version, profile, s.answers, answeredAt, now);
  if (!then.treatments.includes(treatmentId) || later.treatments.includes(treatmentId)) return null;
  const before = new Set(then.reasons.map((r) => r.code));
  return {
    treatment_id: treatmentId,
    hours_since_submission: Math.round(((now.getTime() - answeredAt.getTime()) / 3_600_000) * 10) / 10,
    reason_codes: later.reasons.filter((r) => !before.has(r.code)).map((r) => r.code),
    allowed_treatments: later.treatments,
  };
}

const OUTCOMES = ['eligible', 'ineligible', 'emergency', 'held_for_review'] as const;
const treatmentIds = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
const isOutcome = (o: string): o is (typeof OUTCOMES)[number] => (OUTCOMES as readonly string[]).includes(o);

/**
 * The patient's questionnaire outcomes, newest first (read by deps.reader): what the history shows,
 * including the "not suitable" ones that never became a consultation. Reasons and the alternative
 * are re-worded in `locale` from their stable codes.
 */
export async function submissionHistory(deps: Deps, userId: string, locale: Locale, limit: number, offset: number) {
  const page = await listSubmissions(deps.reader, userId, limit, offset);
  return {
    count: page.count,
    results: page.results.map((s) => {
      const alt = s.result.alternative as { code?: unknown } | null | undefined;
      const altCode = alt && typeof alt.code === 'string' ? alt.code : null;
      return {
        id: s.id,
        category: s.category,
        outcome: isOutcome(s.outcome) ? s.outcome : 'ineligible',
        reasons: (s.result.reasons ?? []).flatMap((r) => (r.code ? [{ code: r.code, message: storedReasonText(locale, r.code, r.kind) }] : [])),
        alternative: altCode ? { code: altCode, message: alternativeText(locale, altCode) } : null,
        treatments: s.outcome === 'eligible' || s.outcome === 'held_for_review' ? treatmentIds(s.result.treatments) : [],
        created_at: s.created_at.toISOString(),
      };
    }),
  };
}
