// Subscriptions after the first approval: renewal options, the patient's renewal choice, the renewal
// cycle (window, deferred charge, pause), plan management and early orders. Design: docs/renewals.md.
import { verificationFor } from '../verification/index.ts';
import type { Queryable } from '../../db/index.ts';
import type { Deps } from '../../deps.ts';
import { ApiError, fail, notFound, type ErrorCode } from '../../http/errors.ts';
import { bmi, roundBmi } from '../../lib/bmi.ts';
import { chargeSubscriptionCycle } from './charges.ts';
import {
  createConsultation,
  defaultDosage,
  hasOpenReview,
  lastApprovedOf,
  lockRenewalForUser,
  moveRenewalPeriod,
  pendingRenewalOf,
  transitionConsultation,
  updateRenewalFields,
  verdictFor,
} from '../consultations/index.ts';
import { enqueueMail } from '../../mail/outbox.ts';
import { renewalOpenMail, renewalPausedMail } from './mail.ts';
import {
  currentVersion,
  emergencyNotice,
  evaluate,
  exclusionCodes,
  findTreatment,
  getCategory,
  localisedSteps,
  missingAnswers,
  prescribingFor,
  redFlags,
  renewalRuleSet,
  renewalScreen,
  type AnswerItem,
  type EngineProfile,
  type Locale,
  type Question,
  type Reason,
  type Step,
  type Version,
} from '../questionnaires/index.ts';
import { weightSummary } from '../journal/index.ts';
import { collectionPharmacyFor, type FulfilmentChoice } from '../pharmacies/index.ts';
import { appLinks } from '../../mail/links.ts';
import * as repo from './repository.ts';
import type { PlanRow } from './repository.ts';
import { iso } from '../../lib/iso.ts';
import { providerFor } from '../../payment-providers/index.ts';
import { isPlanStatus } from './status.ts';
import { isPatientPaused, managementOut } from './management-state.ts';
import { notify } from '../notifications/index.ts';

const DAY = 86_400_000;
/** The renewal screen opens this many days before the period ends. */
export const RENEWAL_WINDOW_DAYS = 7;
/** An early order (next supply now) is possible this many days before the period ends. */
export const EARLY_ORDER_WINDOW_DAYS = 10;
/** A one-off approval can be re-ordered (express) within this many days of the decision. */
export const EXPRESS_VALIDITY_DAYS = 180;

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The current period was produced by an early order (another one waits for the next period). */
const earlyOrderedThisPeriod = (s: Pick<PlanRow, 'early_ordered_period_end' | 'current_period_end'>) =>
  Boolean(s.early_ordered_period_end) && new Date(s.early_ordered_period_end ?? 0).getTime() === new Date(s.current_period_end).getTime();

export function subscriptionOut(s: PlanRow, now: Date) {
  const lockedUntil = s.current_period_end ? new Date(new Date(s.current_period_end).getTime() - EARLY_ORDER_WINDOW_DAYS * DAY) : null;
  const advanced = earlyOrderedThisPeriod(s);
  const locked = Boolean(lockedUntil && lockedUntil > now) || advanced;
  return {
    id: s.id,
    status: s.status,
    price_cents: s.price_cents,
    currency: s.currency,
    started_at: iso(s.started_at)!,
    current_period_start: iso(s.current_period_start)!,
    current_period_end: iso(s.current_period_end)!,
    cancel_at_period_end: s.cancel_at_period_end,
    canceled_at: iso(s.canceled_at),
    treatment_id: s.treatment_id,
    dosage: s.dosage,
    category: s.category,
    interval: s.interval,
    interval_count: s.interval_count,
    cycle_days: s.cycle_days,
    payment_method_brand: s.payment_method_brand,
    payment_method_last4: s.payment_method_last4,
    early_order_locked_until: iso(advanced ? s.current_period_end : lockedUntil),
    early_order_locked: locked,
    ...managementOut(s, now),
  };
}

// ---------------------------------------------------------------- renewal options (2.8)

/**
 * The ladder with the next dose the prescribing rule allows: one step up once it is due, the current
 * dose while it is not, or the dose to resume at after a break in supply (docs/renewals.md).
 */
async function ladderOf(q: Queryable, userId: string, slug: string, treatmentId: string, dosage: string, now: Date) {
  const t = findTreatment(slug, treatmentId);
  if (!t) return null;
  const dosages = t.dosage_ladder ?? t.strengths;
  const i = Math.max(0, dosages.indexOf(dosage));
  const current = dosages.includes(dosage) ? dosage : (dosages[0] ?? dosage);
  const atMax = t.dosage_ladder ? i === dosages.length - 1 : true;
  let next = atMax ? current : (dosages[i + 1] ?? current);
  if (t.dosage_ladder) {
    const v = await verdictFor(q, { userId, category: slug, treatmentId, dosage: current, engine: { outcome: 'eligible', treatments: [treatmentId], reasons: [] }, now });
    next = v.allowed_dosages.at(-1) ?? current;
  }
  return { dosages, current, next, held_at_max: atMax && Boolean(t.dosage_ladder) };
}

function priceFor(slug: string, treatmentId: string | null, sub: PlanRow | null) {
  if (sub) {
    return { amount_cents: sub.price_cents, currency: sub.currency, interval: sub.interval, interval_count: sub.interval_count, cycle_days: sub.cycle_days, plan: 'subscription' as const, supply_days: sub.cycle_days };
  }
  const category = getCategory(slug);
  const t = treatmentId ? findTreatment(slug, treatmentId) : category?.treatments[0];
  if (!category || !t) return null;
  if (category.default_plan === 'subscription' && t.plan_price_cents != null) {
    const cycle = t.plan_cycle_days ?? t.supply_days;
    return { amount_cents: t.plan_price_cents, currency: t.currency, interval: 'day', interval_count: cycle, cycle_days: cycle, plan: 'subscription' as const, supply_days: cycle };
  }
  return { amount_cents: t.one_off_price_cents, currency: t.currency, interval: null, interval_count: null, cycle_days: null, plan: 'one_off' as const, supply_days: t.supply_days };
}

/** Stored answers (jsonb) as objects with a question key; anything else is dropped. */
function storedAnswers(answers: unknown): (Record<string, unknown> & { question_key: string })[] {
  return Array.isArray(answers) ? answers.filter((a): a is Record<string, unknown> & { question_key: string } => isRecord(a) && typeof a.question_key === 'string') : [];
}

/** The BMI of a submission's answers (lib/bmi.ts, the engine's formula), one decimal. */
function bmiFrom(answers: unknown): number | null {
  const list = storedAnswers(answers);
  const get = (k: string) => list.find((a) => a.question_key === k)?.value;
  const value = bmi(get('height_cm'), get('weight_kg'));
  return value === null ? null : roundBmi(value);
}

/** The height (cm) of the patient's latest submission in the category that answered it, else the first one's. */
async function latestHeight(q: Parameters<typeof repo.submissionAnswers>[0], userId: string, slug: string): Promise<number | null> {
  for (const which of ['latest', 'first'] as const) {
    const h = storedAnswers(await repo.submissionAnswers(q, userId, slug, which)).find((a) => a.question_key === 'height_cm')?.value;
    if (typeof h === 'number' && h > 0) return h;
  }
  return null;
}

/**
 * The journal's latest weight when it was logged in the plan's current cycle (on or after the period's
 * first day), else null: a weight-loss renewal is decided on a weight of this cycle, the screen's
 * answer or this one (the form shows it prefilled). Without a plan there is no cycle to read.
 */
async function cycleJournalWeight(q: Queryable, userId: string, sub: Pick<PlanRow, 'current_period_start'> | null): Promise<{ weight_kg: number; logged_on: string } | null> {
  if (!sub) return null;
  const latest = (await weightSummary(q, userId)).latest_weight;
  const cycleStart = new Date(sub.current_period_start).toISOString().slice(0, 10);
  return latest && latest.logged_on >= cycleStart ? latest : null;
}

/** Why an early order is not possible now (`blocked_code`): each is the early order's refusal code too. */
type EarlyOrderBlock = Extract<
  ErrorCode,
  'subscription_payment_required' | 'early_order_subscription_ending' | 'early_order_pending_review' | 'early_order_period_already_advanced' | 'early_order_period_unavailable' | 'no_prior_treatment'
>;

export async function renewalOptions(deps: Deps, userId: string, slug: string, locale: Locale) {
  const category = getCategory(slug);
  if (!category) throw fail('invalid_category', { message: `Unknown category "${slug}".` });
  const now = deps.clock.now();
  const q = deps.db;
  const sub = await repo.findLivePlan(q, userId, slug);
  const approved = await lastApprovedOf(q, userId, slug);
  const firstAnswers = await repo.submissionAnswers(q, userId, slug, 'first');
  const latestAnswers = await repo.submissionAnswers(q, userId, slug, 'latest');

  let mode: 'pending_choice' | 'early_order' | 'express_reorder' | 'blocked' = 'blocked';
  let blocked: EarlyOrderBlock | null = null;
  let pendingId: string | null = null;
  let express: { consultation_id: string; treatment_id: string; dosage: string; approved_at: string; valid_until: string } | null = null;
  const lockedUntil = sub ? new Date(new Date(sub.current_period_end).getTime() - EARLY_ORDER_WINDOW_DAYS * DAY) : null;

  if (sub) {
    const pending = await pendingRenewalOf(q, userId, sub.id);
    const open = await hasOpenReview(q, userId, slug);
    if (pending) [mode, pendingId] = ['pending_choice', pending.id];
    else if (sub.status === 'past_due') blocked = 'subscription_payment_required';
    else if (sub.cancel_at_period_end) blocked = 'early_order_subscription_ending';
    else if (open) blocked = 'early_order_pending_review';
    else if (earlyOrderedThisPeriod(sub)) blocked = 'early_order_period_already_advanced';
    else if (lockedUntil! > now) blocked = 'early_order_period_unavailable';
    else mode = 'early_order';
  } else if (approved && approved.decided_at && now.getTime() - new Date(approved.decided_at).getTime() <= EXPRESS_VALIDITY_DAYS * DAY) {
    mode = 'express_reorder';
    express = {
      consultation_id: approved.id,
      treatment_id: approved.treatment_id,
      dosage: approved.dosage,
      approved_at: iso(approved.decided_at)!,
      valid_until: iso(new Date(new Date(approved.decided_at).getTime() + EXPRESS_VALIDITY_DAYS * DAY))!,
    };
  } else {
    blocked = 'no_prior_treatment';
  }
  if (mode !== 'blocked') blocked = null;

  const current = sub
    ? { treatment_id: sub.treatment_id, dosage: sub.dosage, source: 'subscription' }
    : approved
      ? { treatment_id: approved.treatment_id, dosage: approved.dosage, source: 'consultation' }
      : null;
  const screen = renewalScreen(slug);
  // The safety screen: the version's, plus the prescribing catalogue's renewal steps (red flags, contraindications, PrEP tests).
  const safetySteps = [...(screen?.safety_steps ?? []), ...prescribingFor(slug).renewal.steps];
  const safety = localisedSteps(safetySteps, locale);
  const review = screen ? localisedSteps(screen.review_steps, locale) : [];
  const renewalKeys = new Set([...safetySteps, ...(screen?.review_steps ?? [])].flatMap((s: Step) => s.questions.map((qq) => qq.question_key)));
  const prefill = storedAnswers(latestAnswers)
    .filter((a) => renewalKeys.has(a.question_key))
    .map((a) => ({ question_key: a.question_key, ...(isRecord(a.values) ? { values: a.values } : { value: a.value }) }));
  // The current weight: prefilled from the journal only when it was logged in this cycle; else the patient enters it.
  const journalWeight = renewalKeys.has('current_weight_kg') ? await cycleJournalWeight(q, userId, sub) : null;
  if (journalWeight) prefill.push({ question_key: 'current_weight_kg', value: journalWeight.weight_kg });
  const baseline = bmiFrom(firstAnswers);
  const hasPrior = Boolean(sub || approved);
  return {
    category: slug,
    mode,
    blocked_code: blocked,
    subscription: sub ? subscriptionOut(sub, now) : null,
    pending_consultation_id: pendingId,
    current,
    ladder: current ? await ladderOf(q, userId, slug, current.treatment_id, current.dosage, now) : null,
    alternatives: category.treatments
      .filter((t) => t.treatment_id !== current?.treatment_id)
      .map((t) => ({ treatment_id: t.treatment_id, name: t.name, dosages: t.dosage_ladder ?? t.strengths })),
    required_steps: safety,
    review_steps: review,
    reusable_prefill: prefill,
    baseline_bmi: baseline,
    baseline_unknown: baseline === null,
    plan: sub ? ('subscription' as const) : ('one_off' as const),
    price: hasPrior ? priceFor(slug, current?.treatment_id ?? null, sub) : null,
    period: { current_period_end: iso(sub?.current_period_end), early_order_locked_until: sub ? subscriptionOut(sub, now).early_order_locked_until : null },
    express,
    verification: await verificationFor(deps, userId, slug),
  };
}

// ---------------------------------------------------------------- confirm the renewal choice (2.9)

export interface ConfirmInput {
  consultation_id: string;
  treatment_id?: string;
  dosage?: string;
  changed: boolean;
  answers: { question_key: string; values: Record<string, unknown> }[];
  change_note: string;
  /** Delivery (the default) or collection at a partner pharmacy, carried to the renewal's order. */
  fulfilment?: FulfilmentChoice;
}

/** The scalar an answer carries: `values.value`, else its first entry. */
function answerValue(values: Record<string, unknown>): unknown {
  if ('value' in values) return values.value;
  const first = Object.values(values)[0];
  return first;
}
const truthy = (v: unknown) => v === true || v === 1 || v === '1' || v === 'yes' || v === 'true';
const falsy = (v: unknown) => v === false || v === 0 || v === '0' || v === 'no' || v === 'false';

const isRealDate = (v: string) => {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(v)) return false;
  const d = new Date(`${v}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === v;
};

/** One renewal answer (`values` object) as the engine's answer item, or the reason it is invalid; null when left empty. */
function renewalItem(q: Question, values: Record<string, unknown>, today: string): { value?: AnswerItem['value']; values?: Record<string, boolean> } | string | null {
  if (q.type === 'multiple_choice') {
    const options = new Set(q.options!.map((o) => o.value));
    const out: Record<string, boolean> = {};
    for (const [k, v] of Object.entries(values)) {
      if (!options.has(k)) return `Unknown option "${k}". Choose from: ${[...options].join(', ')}.`;
      if (truthy(v) && typeof v !== 'string') out[k] = true;
      else if (falsy(v) && typeof v !== 'string') out[k] = false;
      else return `Option "${k}" must be 1 or 0 (true or false).`;
    }
    const on = Object.keys(out).filter((k) => out[k]);
    if (on.includes('none') && on.length > 1) return '"none" cannot be combined with other options.';
    return Object.keys(out).length ? { values: out } : null;
  }
  let raw = answerValue(values);
  if (raw === undefined || raw === null || raw === '') return null;
  switch (q.type) {
    case 'boolean':
      if (typeof raw !== 'string' && truthy(raw)) return { value: true };
      if (typeof raw !== 'string' && falsy(raw)) return { value: false };
      return 'Must be 1 or 0 (true or false).';
    case 'number':
      if (typeof raw !== 'number' || !Number.isFinite(raw)) return 'Must be a number.';
      if (q.min !== undefined && raw < q.min) return `Must be at least ${q.min}${q.unit ? ' ' + q.unit : ''}.`;
      if (q.max !== undefined && raw > q.max) return `Must be at most ${q.max}${q.unit ? ' ' + q.unit : ''}.`;
      return { value: raw };
    case 'single_choice': {
      // `{value: "<option>"}`, or the option as the key: `{"<option>": 1}`.
      if (!('value' in values)) {
        const on = Object.entries(values).filter(([, v]) => truthy(v));
        const [only] = on;
        raw = on.length === 1 && only ? only[0] : raw;
      }
      if (typeof raw === 'string' && q.options!.some((o) => o.value === raw)) return { value: raw };
      return `Choose one of: ${q.options!.map((o) => o.value).join(', ')}.`;
    }
    case 'date':
      if (typeof raw !== 'string' || !isRealDate(raw)) return 'Date has wrong format. Use one of these formats instead: YYYY-MM-DD.';
      if (raw > today) return 'The date cannot be in the future.';
      return { value: raw };
    case 'text':
      if (typeof raw !== 'string') return 'Must be text.';
      return raw.length > (q.max_length ?? 2000) ? `At most ${q.max_length ?? 2000} characters.` : { value: raw };
  }
  return 'Unsupported answer.';
}

/**
 * Type-validates renewal answers against the renewal screen (safety steps, plus the review when
 * `changed`): `400 {code: "invalid_renewal_answers", errors: {<question_key>: [message]}}` for an
 * unknown question, a repeated one or a value of the wrong type; else the engine's answer items
 * with the real step ids.
 */
export function renewalAnswers(set: { steps: Step[] }, answers: ConfirmInput['answers'], now: Date): AnswerItem[] {
  const where = new Map(set.steps.flatMap((st) => st.questions.map((qq) => [qq.question_key, { step: st.step_id, q: qq }] as const)));
  const errors: Record<string, string[]> = {};
  const items: AnswerItem[] = [];
  const seen = new Set<string>();
  const today = now.toISOString().slice(0, 10);
  for (const a of answers) {
    const found = where.get(a.question_key);
    if (!found) {
      errors[a.question_key] = ['Not a question of this renewal screen.'];
      continue;
    }
    if (seen.has(a.question_key)) {
      errors[a.question_key] = ['Answered more than once.'];
      continue;
    }
    seen.add(a.question_key);
    const item = renewalItem(found.q, a.values, today);
    if (typeof item === 'string') errors[a.question_key] = [item];
    else if (item) items.push({ step_id: found.step, question_key: a.question_key, ...item });
  }
  if (Object.keys(errors).length) throw fail('invalid_renewal_answers', { extra: { errors } });
  return items;
}

export async function confirmRenewal(deps: Deps, userId: string, input: ConfirmInput, locale: Locale = 'en') {
  const now = deps.clock.now();
  const outcome = await deps.db.tx(async (q) => {
    // The row lock serialises concurrent confirms: the second one sees the decided status.
    const c = await lockRenewalForUser(q, userId, input.consultation_id);
    if (!c) return { error: new ApiError(404, {}) };
    if (c.patient_choice_status !== 'pending') return { error: fail('patient_choice_not_pending', { extra: { patient_choice_status: c.patient_choice_status } }) };
    // An unknown, inactive or non-collecting pharmacy is a 400 field error before anything is recorded.
    const collectionPharmacyId = await collectionPharmacyFor(q, userId, input.fulfilment);
    const sub = c.subscription_id ? await repo.findOwnPlan(q, userId, c.subscription_id, true) : null;
    const fromTreatment = sub?.treatment_id ?? c.treatment_id;
    const fromDosage = sub?.dosage ?? c.dosage;
    // A treatment switch the patient asked for (docs/compliance.md) is this renewal's default treatment.
    const switchTo = isRecord(c.renewal_details) && isRecord(c.renewal_details.switch_request) && typeof c.renewal_details.switch_request.to === 'string' ? c.renewal_details.switch_request.to : null;
    const treatmentId = input.treatment_id ?? switchTo ?? fromTreatment;
    const treatment = findTreatment(c.category, treatmentId);
    const dosages = treatment ? (treatment.dosage_ladder ?? treatment.strengths) : [];
    if (!treatment || (input.dosage !== undefined && !dosages.includes(input.dosage))) {
      return { error: fail('invalid_treatment_variant', { extra: { treatment_id: treatmentId, dosage: input.dosage ?? null } }) };
    }

    // The engine over the renewal answers: the safety screen (plus the broader review when something changed).
    const version = currentVersion(c.category);
    if (!version) return { error: fail('invalid_category', { message: `Unknown category "${c.category}".` }) };
    const set = renewalRuleSet(version, prescribingFor(c.category).renewal, input.changed) as unknown as Version;
    const items = renewalAnswers(set, input.answers, now);
    const profile: EngineProfile = { date_of_birth: c.patient_date_of_birth ?? null, gender: c.gender ?? null, country_of_residence: c.patient_country ?? null };
    const details: Record<string, unknown> = isRecord(c.renewal_details) ? { ...c.renewal_details } : {};

    // Red flags end the flow even when other answers are missing: the emergency notice, nothing confirmed.
    const flags = redFlags(set, profile, items, now);
    if (flags.length) {
      const earlier: unknown[] = Array.isArray(details.red_flags) ? details.red_flags : [];
      details.red_flags = [...earlier, { codes: flags, at: now.toISOString() }];
      await updateRenewalFields(q, userId, c.id, { renewal_details: details });
      const notice = emergencyNotice(profile.country_of_residence, flags, locale);
      return { error: fail('renewal_emergency', { message: notice.message, extra: { reason_codes: flags, emergency: notice } }) };
    }

    const missing = missingAnswers(set, profile, items, now);
    // A renewal that asks the current weight needs one from this cycle: the screen's answer, or the
    // journal's when it was logged since the current period began (no older weight counts).
    const asksWeight = set.steps.some((st) => st.questions.some((qq) => qq.question_key === 'current_weight_kg'));
    const journalWeight = asksWeight && missing.includes('current_weight_kg') ? await cycleJournalWeight(q, userId, sub) : null;
    if (journalWeight) missing.splice(missing.indexOf('current_weight_kg'), 1);
    if (missing.length) return { error: fail('renewal_answers_required', { extra: { missing_keys: missing } }) };
    if (asksWeight) {
      const answered = items.find((a) => a.question_key === 'current_weight_kg')?.value;
      details.current_weight = typeof answered === 'number' ? { weight_kg: answered, source: 'renewal_screen', on: now.toISOString().slice(0, 10) } : journalWeight ? { weight_kg: journalWeight.weight_kg, source: 'journal', on: journalWeight.logged_on } : null;
    }

    // The BMI floor at a weight-loss renewal (BMI_BELOW_18_5_AT_RENEWAL): the screen's current weight
    // (else this cycle's journal weight) over the height of the latest submission that gave one.
    if (c.category === 'weight_loss') {
      profile.height_cm = await latestHeight(q, userId, c.category);
      profile.weight_kg = journalWeight ? journalWeight.weight_kg : null;
    }
    const result = evaluate(set, profile, items, now, locale);
    const reasonsOut = (list: Reason[]) => list.map((r) => ({ code: r.code, source: r.source, message: r.message }));
    if (result.outcome !== 'eligible') {
      return {
        // `detail` last: this body has always ended with it.
        error: fail('renewal_answer_ineligible', {
          extra: {
            question_key: result.deciding_keys.find((k) => !k.startsWith('profile.')) ?? result.deciding_keys[0] ?? null,
            reason_codes: result.reasons.map((r) => r.code),
            reasons: reasonsOut(result.reasons),
            detail: `${result.reasons[0]?.message ?? ''} ${result.alternative?.message ?? ''}`.trim(),
          },
        }),
      };
    }
    const engine = { outcome: result.outcome, treatments: result.treatments, reasons: result.reasons };
    const excluded = exclusionCodes(engine, treatmentId);
    if (excluded.length) {
      const fired = result.reasons.filter((r) => excluded.includes(r.code));
      return {
        error: fail('renewal_answer_ineligible', {
          extra: {
            question_key: null,
            treatment_id: treatmentId,
            reason_codes: excluded,
            reasons: reasonsOut(fired),
            allowed_treatments: result.treatments,
            detail: `${fired[0]?.message ?? 'This treatment cannot be continued.'} Choose another treatment or talk to a doctor.`,
          },
        }),
      };
    }

    // Dose rules (titration and breaks in supply): questionnaires/prescribing.ts, one rule for every path.
    const sideEffects = truthy(items.find((a) => a.question_key === 'significant_side_effects')?.value);
    // Without a dose: the doctor's decided dose (a dose-change request approved between renewals) when
    // the rule allows it now, else the dose to continue with (lower after a break in supply).
    const decided = typeof details.decided_dosage === 'string' && treatmentId === fromTreatment && dosages.includes(details.decided_dosage) ? details.decided_dosage : null;
    const decidedAllowed = decided !== null && input.dosage === undefined && (await verdictFor(q, { userId, category: c.category, treatmentId, dosage: decided, engine, now, sideEffects })).ok;
    const dosage = input.dosage ?? (decidedAllowed ? decided : null) ?? (await defaultDosage(q, userId, c.category, treatmentId, now)) ?? dosages[0] ?? '';
    const verdict = await verdictFor(q, { userId, category: c.category, treatmentId, dosage, engine, now, sideEffects });
    if (!verdict.ok) {
      return {
        error: fail('dose_step_not_allowed', {
          message: verdict.explanation.join(' ') || 'This dose is not allowed now.',
          extra: { reason_codes: verdict.codes, treatment_id: treatmentId, dosage, allowed_dosages: verdict.allowed_dosages },
        }),
      };
    }
    let doseChange: { from: string; to: string; direction: 'up' | 'down' } | null = null;
    if (treatmentId === fromTreatment && dosage !== fromDosage) {
      const ladder = treatment.dosage_ladder ?? treatment.strengths;
      doseChange = { from: fromDosage, to: dosage, direction: ladder.indexOf(dosage) > ladder.indexOf(fromDosage) ? 'up' : 'down' };
    }
    const treatmentChange = treatmentId !== fromTreatment ? { from: fromTreatment, to: treatmentId } : null;
    details.choice = { treatment_id: treatmentId, dosage, changed: input.changed, change_note: input.change_note, answers: input.answers, dose_change: doseChange, treatment_change: treatmentChange, confirmed_at: now.toISOString() };
    // What the engine said, for the doctor (and re-used at approval).
    details.verdict = {
      evaluated_at: now.toISOString(),
      outcome: result.outcome,
      treatments: result.treatments,
      reasons: result.reasons.map((r) => ({ code: r.code, source: r.source, message: r.message, kind: r.kind, treatments: r.treatments })),
      cautions: reasonsOut(result.cautions),
      side_effects: sideEffects,
      allowed_dosages: verdict.allowed_dosages,
      dose_codes: verdict.dose?.codes ?? [],
      supply_gap_days: verdict.dose?.supply_gap_days ?? null,
      weeks_on_dose: verdict.dose?.weeks_on_dose ?? null,
      explanation: verdict.explanation,
    };
    // Every confirmed renewal goes to the doctor's review desk (no auto-approval).
    await updateRenewalFields(q, userId, c.id, { patient_choice_status: 'confirmed', treatment_id: treatmentId, dosage, renewal_details: details, form_snapshot: items, collection_pharmacy_id: collectionPharmacyId });
    // A plan paused for a missed renewal resumes: the charge follows the doctor's approval.
    if (sub?.status === 'paused' && !isPatientPaused(sub)) await repo.transitionPlan(q, userId, sub.id, 'paused', 'active', { paused_at: null });
    return {
      result: {
        consultation_id: c.id,
        patient_choice_status: 'confirmed',
        treatment_id: treatmentId,
        dosage,
        dose_change: doseChange,
        treatment_change: treatmentChange,
        renewal_screen_completed: true,
      },
    };
  });
  if (outcome.error !== undefined) throw outcome.error;
  return outcome.result;
}

// ---------------------------------------------------------------- the renewal cycle (scheduler)

/** Opens the renewal screen RENEWAL_WINDOW_DAYS before a period ends: one renewal per period. */
export async function openRenewals(deps: Deps): Promise<number> {
  const now = deps.clock.now();
  // A patient's pause whose resume date is within the window becomes active again (its renewal opens below).
  await repo.resumePatientPausesForScheduler(deps.db, now, RENEWAL_WINDOW_DAYS);
  const due = await repo.plansDueForRenewalForScheduler(deps.db, now, RENEWAL_WINDOW_DAYS);
  let opened = 0;
  for (const s of due) {
    try {
      await deps.db.tx(async (q) => {
        // A dose change the doctor approved between renewals is this renewal's dose (docs/plan-management.md).
        const decided = s.next_cycle_dosage;
        const c = await createConsultation(q, {
          userId: s.user_id,
          category: s.category,
          plan: 'subscription',
          origin: 'renewal',
          supplyDays: s.cycle_days,
          treatmentId: s.treatment_id,
          dosage: decided ?? s.dosage,
          subscriptionId: s.id,
          formSnapshot: [],
          patientChoiceStatus: 'pending',
          renewalDetails: { period_end: new Date(s.current_period_end).toISOString(), ...(decided ? { decided_dosage: decided } : {}) },
          renewalPeriodEnd: s.current_period_end,
        });
        void c;
        if (decided) await repo.updatePlanDetails(q, s.user_id, s.id, { next_cycle_dosage: null });
        const u = await repo.ownerContact(q, s.user_id);
        if (u) await enqueueMail(q, u.email, renewalOpenMail, u.locale, { link: appLinks.renewal(deps.config) });
        await notify(q, { kind: 'renewal_window_opened', userId: s.user_id, key: `${s.id}:${new Date(s.current_period_end).toISOString()}` });
      });
      opened++;
    } catch (err) {
      if (!isUniqueViolation(err)) throw err; // another process opened it first
    }
  }
  return opened;
}

/**
 * A period that ends with the renewal choice still pending: the charge is deferred (billing skips
 * plans whose renewal is not approved) and the plan is paused until the patient confirms.
 */
export async function pauseMissedRenewals(deps: Deps): Promise<void> {
  const now = deps.clock.now();
  // A renewal the doctor rejected ends the plan when its period ends.
  await repo.cancelRejectedRenewalsForScheduler(deps.db, now);
  await deps.db.tx(async (q) => {
    for (const u of await repo.pauseMissedRenewalsForScheduler(q, now)) {
      await enqueueMail(q, u.email, renewalPausedMail, u.locale, { link: appLinks.renewal(deps.config) });
      await notify(q, { kind: 'renewal_window_closed', userId: u.user_id, key: `${u.subscription_id}:${now.toISOString().slice(0, 10)}` });
    }
  });
}

// ---------------------------------------------------------------- plan management

const isUniqueViolation = (err: unknown) => isRecord(err) && err.code === '23505';

async function ownSubscription(q: Queryable, userId: string, id: string, lock = false): Promise<PlanRow> {
  const s = await repo.findOwnPlan(q, userId, id, lock);
  if (!s) throw notFound();
  return s;
}

export async function listSubscriptions(deps: Deps, userId: string, limit: number, offset: number, order?: repo.PlanOrder) {
  const n = await repo.countPlans(deps.reader, userId);
  const rows = await repo.pagePlans(deps.reader, userId, limit, offset, order);
  const now = deps.clock.now();
  return { count: n, results: rows.map((s) => subscriptionOut(s, now)) };
}

export async function getSubscription(deps: Deps, userId: string, id: string) {
  return subscriptionOut(await ownSubscription(deps.reader, userId, id), deps.clock.now());
}

export async function setCancelAtPeriodEnd(deps: Deps, userId: string, id: string, cancel: boolean) {
  const s = await deps.db.tx(async (q) => {
    const row = await repo.setCancelAtPeriodEnd(q, userId, id, cancel);
    if (!row) throw notFound();
    if (row === 'ended') throw fail('subscription_not_active', { message: 'This plan has ended.' });
    return row;
  });
  return subscriptionOut(s, deps.clock.now());
}

export const MAX_POSTPONE_DAYS = 14;

/**
 * Moves the next renewal date (and charge) later by 1 to 14 days, once per period, while the plan
 * is active; an open renewal moves with it.
 */
export async function postpone(deps: Deps, userId: string, id: string, days: number) {
  const s = await deps.db.tx(async (q) => {
    const sub = await ownSubscription(q, userId, id, true);
    if (sub.status !== 'active') throw fail('subscription_not_active', { message: 'Only an active plan can be postponed.' });
    if (sub.postponed_period_end && new Date(sub.postponed_period_end).getTime() === new Date(sub.current_period_end).getTime()) {
      throw fail('already_postponed');
    }
    // The next delivery was already moved (skip or a new date: docs/plan-management.md); move it there.
    if (sub.next_delivery_at) throw fail('already_postponed', { message: 'The next delivery was already moved: change its date instead.' });
    const end = new Date(new Date(sub.current_period_end).getTime() + days * DAY);
    await moveRenewalPeriod(q, userId, id, sub.current_period_end, end);
    const row = await repo.updatePlanDetails(q, userId, id, { current_period_end: end, postponed_period_end: end });
    if (!row) throw notFound();
    return row;
  });
  return subscriptionOut(s, deps.clock.now());
}

/** Early order: the next supply now (charged, then reviewed and ordered), once per period, inside the window. */
export async function earlyOrder(deps: Deps, userId: string, id: string) {
  const sub = await ownSubscription(deps.db, userId, id);
  // A patient's pause ends with unpause, not with an early order (docs/plan-management.md).
  if (isPatientPaused(sub)) throw fail('subscription_paused');
  const options = await renewalOptions(deps, userId, sub.category, 'en');
  if (options.mode !== 'early_order' || options.subscription?.id !== id) {
    throw fail(options.blocked_code ?? 'early_order_unavailable', { message: 'An early order is not possible for this plan now.' });
  }
  const periodEnd = new Date(sub.current_period_end);
  // The same prescribing rule as every other path: the plan's treatment at a dose allowed now.
  const verdict = await verdictFor(deps.db, {
    userId, category: sub.category, treatmentId: sub.treatment_id, dosage: sub.dosage, engine: { outcome: 'eligible', treatments: [sub.treatment_id], reasons: [] }, now: deps.clock.now(),
  });
  if (!verdict.ok) throw fail('dose_step_not_allowed', { message: verdict.explanation.join(' ') || 'This dose is not allowed now.', extra: { reason_codes: verdict.codes, allowed_dosages: verdict.allowed_dosages } });
  const consultation = await deps.db.tx(async (q) => {
    const locked = await repo.findOwnPlan(q, userId, id, true);
    if (!locked || earlyOrderedThisPeriod(locked) || new Date(locked.current_period_end).getTime() !== periodEnd.getTime()) return null;
    const c = await createConsultation(q, {
      userId,
      category: sub.category,
      plan: 'subscription',
      origin: 'early_order',
      supplyDays: sub.cycle_days,
      treatmentId: sub.treatment_id,
      dosage: sub.dosage,
      subscriptionId: id,
      formSnapshot: [],
      renewalDetails: { period_end: periodEnd.toISOString() },
      renewalPeriodEnd: periodEnd,
    });
    return c;
  });
  if (!consultation) throw fail('early_order_period_already_advanced', { message: 'This period was already advanced.' });
  const charge = await chargeSubscriptionCycle(deps, id, 'early_order', { consultationId: consultation.id, force: true });
  if (charge.outcome !== 'charged') {
    await deps.db.tx((q) => transitionConsultation(q, userId, consultation.id, 'cancelled'));
    throw fail('payment_failed');
  }
  // Mark the period the early order produced: a second early order waits for the next period.
  await repo.markEarlyOrdered(deps.db, userId, id);
  return { consultation_id: consultation.id, subscription: await getSubscription(deps, userId, id) };
}

/**
 * Ends a plan now: the review that would supply it ended without an approval (a rejected first
 * consultation or early order, an expired information request), or the patient cancelled for good
 * cause (an extraordinary cancellation, compliance module): `canceled`, never charged again. A plan the provider bills itself (Stripe) is cancelled there too; a provider error is
 * logged (the plan is canceled here, and its webhook cannot revive it) rather than undoing the
 * doctor's decision. Returns false when the plan had already ended.
 */
export async function endPlanNow(deps: Deps, q: Queryable, userId: string, planId: string): Promise<boolean> {
  const plan = await repo.findOwnPlan(q, userId, planId, true);
  if (!plan || !isPlanStatus(plan.status) || plan.status === 'canceled') return false;
  const ended = await repo.transitionPlan(q, userId, planId, plan.status, 'canceled', { canceled_at: deps.clock.now(), next_charge_attempt_at: null });
  if (!ended) return false;
  const provider = providerFor(deps, plan.provider);
  if (plan.provider_subscription_id && provider.cancelSubscription) {
    await provider.cancelSubscription(plan.provider_subscription_id).catch((err: unknown) => {
      deps.log.error({ planId, err: err instanceof Error ? err.message : String(err) }, 'a plan ended here could not be cancelled at the provider');
    });
  }
  return true;
}

/** The plan a paid checkout session starts, inside finalisation's transaction (`trx`). */
export function createForCheckout(trx: Queryable, input: repo.NewPlan): Promise<PlanRow> {
  return repo.insertPlan(trx, input);
}

// The list orderings its routes validate `ordering` against (pagination contracts, not SQL).
export { PLAN_ORDERING } from './repository.ts';
