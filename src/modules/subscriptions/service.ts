// Subscriptions after the first approval: renewal options, the patient's renewal choice, the renewal
// cycle (window, deferred charge, pause), plan management and early orders. Design: docs/renewals.md.
import type { Queryable } from '../../db/index.ts';
import type { Deps } from '../../deps.ts';
import { ApiError, coded, errorCode, notFound } from '../../http/errors.ts';
import { chargeSubscriptionCycle } from './charges.ts';
import { createConsultation, transition } from '../consultations/service.ts';
import { enqueueMail } from '../../mail/outbox.ts';
import { renewalOpenMail, renewalPausedMail } from './mail.ts';
import { currentVersion, findTreatment, getCategory, localisedSteps, renewalScreen, type Locale, type Question, type Step, type Version } from '../questionnaires/catalogue.ts';
import { emergencyNotice, evaluate, missingAnswers, redFlags, type AnswerItem, type EngineProfile, type Reason } from '../questionnaires/engine.ts';
import { prescribingFor } from '../questionnaires/prescribing-catalogue.ts';
import { exclusionCodes, renewalRuleSet } from '../questionnaires/prescribing.ts';
import { defaultDosage, verdictFor } from '../consultations/prescribing.ts';
import { weightSummary } from '../journal/service.ts';
import { appLinks } from '../../mail/links.ts';

const DAY = 86_400_000;
/** The renewal screen opens this many days before the period ends. */
export const RENEWAL_WINDOW_DAYS = 7;
/** An early order (next supply now) is possible this many days before the period ends. */
export const EARLY_ORDER_WINDOW_DAYS = 10;
/** A one-off approval can be re-ordered (express) within this many days of the decision. */
export const EXPRESS_VALIDITY_DAYS = 180;
/** Weight-loss renewals need a weight logged within this many days (journal or the screen). */
export const WEIGHT_RECENCY_DAYS = 90;

const iso = (d: Date | string | null | undefined) => (d ? new Date(d).toISOString() : null);

/** The current period was produced by an early order (another one waits for the next period). */
const earlyOrderedThisPeriod = (s: any) =>
  Boolean(s.early_ordered_period_end) && new Date(s.early_ordered_period_end).getTime() === new Date(s.current_period_end).getTime();

export function subscriptionOut(s: any, now: Date) {
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
    category: s.category,
    interval: s.interval,
    interval_count: s.interval_count,
    cycle_days: s.cycle_days,
    payment_method_brand: s.payment_method_brand,
    payment_method_last4: s.payment_method_last4,
    early_order_locked_until: iso(advanced ? s.current_period_end : lockedUntil),
    early_order_locked: locked,
  };
}

// ---------------------------------------------------------------- lookups (account-scoped)

async function liveSubscription(q: Queryable, userId: string, category: string) {
  const [s] = await q.query(
    `select * from subscriptions where user_id = $1 and category = $2 and status in ('active', 'past_due', 'paused')
      order by created_at desc limit 1`,
    [userId, category],
  );
  return s;
}

async function pendingRenewal(q: Queryable, userId: string, subscriptionId: string) {
  const [c] = await q.query(
    `select * from consultations where user_id = $1 and subscription_id = $2 and origin = 'renewal' and patient_choice_status = 'pending'
      order by created_at desc limit 1`,
    [userId, subscriptionId],
  );
  return c;
}

async function lastApproved(q: Queryable, userId: string, category: string) {
  const [c] = await q.query(
    `select * from consultations where user_id = $1 and category = $2 and status = 'approved' order by decided_at desc limit 1`,
    [userId, category],
  );
  return c;
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
  const current = dosages.includes(dosage) ? dosage : dosages[0];
  const atMax = t.dosage_ladder ? i === dosages.length - 1 : true;
  let next = atMax ? current : dosages[i + 1];
  if (t.dosage_ladder) {
    const v = await verdictFor(q, { userId, category: slug, treatmentId, dosage: current, engine: { outcome: 'eligible', treatments: [treatmentId], reasons: [] }, now });
    next = v.allowed_dosages.at(-1) ?? current;
  }
  return { dosages, current, next, held_at_max: atMax && Boolean(t.dosage_ladder) };
}

function priceFor(slug: string, treatmentId: string | null, sub: any) {
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

function bmiFrom(answers: any[]): number | null {
  const get = (k: string) => Number(answers.find((a) => a?.question_key === k)?.value ?? NaN);
  const h = get('height_cm');
  const w = get('weight_kg');
  return h > 0 && w > 0 ? Math.round((w / (h / 100) ** 2) * 10) / 10 : null;
}

export async function renewalOptions(deps: Deps, userId: string, slug: string, locale: Locale) {
  const category = getCategory(slug);
  if (!category) throw coded(400, 'invalid_category', { detail: `Unknown category "${slug}".` });
  const now = deps.clock.now();
  const q = deps.db;
  const sub = await liveSubscription(q, userId, slug);
  const approved = await lastApproved(q, userId, slug);
  const [firstSubmission] = await q.query('select answers from questionnaire_submissions where user_id = $1 and category = $2 order by created_at asc limit 1', [userId, slug]);
  const [latestSubmission] = await q.query('select answers from questionnaire_submissions where user_id = $1 and category = $2 order by created_at desc limit 1', [userId, slug]);

  let mode: 'pending_choice' | 'early_order' | 'express_reorder' | 'blocked' = 'blocked';
  let blocked: string | null = null;
  let pendingId: string | null = null;
  let express = null;
  const lockedUntil = sub ? new Date(new Date(sub.current_period_end).getTime() - EARLY_ORDER_WINDOW_DAYS * DAY) : null;

  if (sub) {
    const pending = await pendingRenewal(q, userId, sub.id);
    const [open] = await q.query(
      `select 1 from consultations where user_id = $1 and category = $2 and status in ('pending_review', 'needs_information') and coalesce(patient_choice_status, '') <> 'pending' limit 1`,
      [userId, slug],
    );
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
  const prefill = ((latestSubmission?.answers as any[]) ?? []).filter((a) => renewalKeys.has(a?.question_key)).map((a) => ({ question_key: a.question_key, ...(a.values !== undefined ? { values: a.values } : { value: a.value }) }));
  const baseline = bmiFrom((firstSubmission?.answers as any[]) ?? []);
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
        raw = on.length === 1 ? on[0][0] : raw;
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
  if (Object.keys(errors).length) throw coded(400, 'invalid_renewal_answers', { errors });
  return items;
}

export async function confirmRenewal(deps: Deps, userId: string, input: ConfirmInput, locale: Locale = 'en') {
  const now = deps.clock.now();
  const outcome = await deps.db.tx(async (q) => {
    // The row lock serialises concurrent confirms: the second one sees the decided status.
    const [c] = await q.query(
      `select c.*, u.gender, u.date_of_birth as patient_date_of_birth, u.country_of_residence as patient_country from consultations c join users u on u.id = c.user_id
        where c.id = $1 and c.user_id = $2 and c.origin = 'renewal' for update of c`,
      [input.consultation_id, userId],
    );
    if (!c) return { error: new ApiError(404, {}) };
    if (c.patient_choice_status !== 'pending') return { error: coded(409, 'patient_choice_not_pending', { patient_choice_status: c.patient_choice_status }) };
    const [sub] = await q.query('select * from subscriptions where id = $1 and user_id = $2 for update', [c.subscription_id, userId]);
    const fromTreatment = sub?.treatment_id ?? c.treatment_id;
    const fromDosage = sub?.dosage ?? c.dosage;
    const treatmentId = input.treatment_id ?? fromTreatment;
    const treatment = findTreatment(c.category, treatmentId);
    const dosages = treatment ? (treatment.dosage_ladder ?? treatment.strengths) : [];
    if (!treatment || (input.dosage !== undefined && !dosages.includes(input.dosage))) {
      return { error: coded(400, 'invalid_treatment_variant', { detail: 'This treatment or dosage is not in the catalogue for the category.', treatment_id: treatmentId, dosage: input.dosage ?? null }) };
    }

    // The engine over the renewal answers: the safety screen (plus the broader review when something changed).
    const version = currentVersion(c.category)!;
    const set = renewalRuleSet(version, prescribingFor(c.category).renewal, input.changed) as unknown as Version;
    const items = renewalAnswers(set, input.answers, now);
    const profile: EngineProfile = { date_of_birth: c.patient_date_of_birth ?? null, gender: c.gender ?? null, country_of_residence: c.patient_country ?? null };
    const details = { ...(c.renewal_details ?? {}) };

    // Red flags end the flow even when other answers are missing: the emergency notice, nothing confirmed.
    const flags = redFlags(set, profile, items, now);
    if (flags.length) {
      details.red_flags = [...(Array.isArray(details.red_flags) ? details.red_flags : []), { codes: flags, at: now.toISOString() }];
      await q.query('update consultations set renewal_details = $2::jsonb, updated_at = now() where id = $1', [c.id, JSON.stringify(details)]);
      const notice = emergencyNotice(profile.country_of_residence, flags, locale);
      return { error: coded(400, 'renewal_emergency', { detail: notice.message, reason_codes: flags, emergency: notice }) };
    }

    const missing = missingAnswers(set, profile, items, now);
    // Weight-loss renewals may use a journal weight of the last WEIGHT_RECENCY_DAYS instead of the screen's.
    const journal = c.category === 'weight_loss' ? await weightSummary(q, userId) : null;
    const recentJournal = journal?.latest_weight && journal.latest_weight.logged_on >= new Date(now.getTime() - WEIGHT_RECENCY_DAYS * DAY).toISOString().slice(0, 10);
    if (recentJournal && missing.includes('current_weight_kg')) missing.splice(missing.indexOf('current_weight_kg'), 1);
    if (missing.length) return { error: coded(400, 'renewal_answers_required', { missing_keys: missing }) };

    const result = evaluate(set, profile, items, now, locale);
    const reasonsOut = (list: Reason[]) => list.map((r) => ({ code: r.code, source: r.source, message: r.message }));
    if (result.outcome !== 'eligible') {
      return {
        error: coded(400, 'renewal_answer_ineligible', {
          question_key: result.deciding_keys.find((k) => !k.startsWith('profile.')) ?? result.deciding_keys[0] ?? null,
          reason_codes: result.reasons.map((r) => r.code),
          reasons: reasonsOut(result.reasons),
          detail: `${result.reasons[0]?.message ?? ''} ${result.alternative?.message ?? ''}`.trim(),
        }),
      };
    }
    const engine = { outcome: result.outcome, treatments: result.treatments, reasons: result.reasons };
    const excluded = exclusionCodes(engine, treatmentId);
    if (excluded.length) {
      const fired = result.reasons.filter((r) => excluded.includes(r.code));
      return {
        error: coded(400, 'renewal_answer_ineligible', {
          question_key: null,
          treatment_id: treatmentId,
          reason_codes: excluded,
          reasons: reasonsOut(fired),
          allowed_treatments: result.treatments,
          detail: `${fired[0]?.message ?? 'This treatment cannot be continued.'} Choose another treatment or talk to a doctor.`,
        }),
      };
    }

    // Dose rules (titration and breaks in supply): questionnaires/prescribing.ts, one rule for every path.
    const sideEffects = truthy(items.find((a) => a.question_key === 'significant_side_effects')?.value);
    const dosage = input.dosage ?? (await defaultDosage(q, userId, c.category, treatmentId, now)) ?? dosages[0];
    const verdict = await verdictFor(q, { userId, category: c.category, treatmentId, dosage, engine, now, sideEffects });
    if (!verdict.ok) {
      return {
        error: coded(400, 'dose_step_not_allowed', {
          detail: verdict.explanation.join(' ') || 'This dose is not allowed now.',
          reason_codes: verdict.codes,
          treatment_id: treatmentId,
          dosage,
          allowed_dosages: verdict.allowed_dosages,
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
      reasons: reasonsOut(result.reasons).map((r, i) => ({ ...r, kind: result.reasons[i].kind, treatments: result.reasons[i].treatments })),
      cautions: reasonsOut(result.cautions),
      side_effects: sideEffects,
      allowed_dosages: verdict.allowed_dosages,
      dose_codes: verdict.dose?.codes ?? [],
      supply_gap_days: verdict.dose?.supply_gap_days ?? null,
      weeks_on_dose: verdict.dose?.weeks_on_dose ?? null,
      explanation: verdict.explanation,
    };
    // Every confirmed renewal goes to the doctor's review desk (no auto-approval).
    await q.query(
      `update consultations set patient_choice_status = 'confirmed', treatment_id = $2, dosage = $3, renewal_details = $4::jsonb,
              form_snapshot = $5::jsonb, updated_at = now() where id = $1`,
      [c.id, treatmentId, dosage, JSON.stringify(details), JSON.stringify(items)],
    );
    // A plan paused for a missed renewal resumes: the charge follows the doctor's approval.
    if (sub?.status === 'paused') await q.query("update subscriptions set status = 'active', paused_at = null, updated_at = now() where id = $1", [sub.id]);
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
  if ('error' in outcome) throw outcome.error;
  return outcome.result;
}

// ---------------------------------------------------------------- the renewal cycle (scheduler)

/** Opens the renewal screen RENEWAL_WINDOW_DAYS before a period ends: one renewal per period. */
export async function openRenewals(deps: Deps): Promise<number> {
  const now = deps.clock.now();
  const due = await deps.db.query(
    `select s.* from subscriptions s
      where s.status = 'active' and not s.cancel_at_period_end and s.current_period_end - make_interval(days => $2) <= $1
        and not exists (select 1 from consultations c where c.subscription_id = s.id and c.origin = 'renewal' and c.renewal_period_end = s.current_period_end)`,
    [now, RENEWAL_WINDOW_DAYS],
  );
  let opened = 0;
  for (const s of due) {
    try {
      await deps.db.tx(async (q) => {
        const c = await createConsultation(q, {
          userId: s.user_id,
          category: s.category,
          plan: 'subscription',
          origin: 'renewal',
          supplyDays: s.cycle_days,
          treatmentId: s.treatment_id,
          dosage: s.dosage,
          subscriptionId: s.id,
          formSnapshot: [],
          patientChoiceStatus: 'pending',
          renewalDetails: { period_end: new Date(s.current_period_end).toISOString() },
        });
        await q.query('update consultations set renewal_period_end = $2 where id = $1', [c.id, s.current_period_end]);
        const [u] = await q.query('select email, locale from users where id = $1', [s.user_id]);
        await enqueueMail(q, u.email, renewalOpenMail, u.locale, { link: appLinks.renewal(deps.config) });
      });
      opened++;
    } catch (err: any) {
      if (err?.code !== '23505') throw err; // another process opened it first
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
  await deps.db.query(
    `update subscriptions s set status = 'canceled', canceled_at = $1, updated_at = now()
      where s.status in ('active', 'paused') and s.current_period_end <= $1
        and exists (select 1 from consultations c where c.subscription_id = s.id and c.origin = 'renewal'
                    and c.renewal_period_end = s.current_period_end and c.status = 'rejected')`,
    [now],
  );
  await deps.db.tx(async (q) => {
    const paused = await q.query(
      `update subscriptions s set status = 'paused', paused_at = $1, updated_at = now()
        where s.status = 'active' and s.current_period_end <= $1
          and exists (select 1 from consultations c where c.subscription_id = s.id and c.origin = 'renewal' and c.patient_choice_status = 'pending')
        returning s.user_id`,
      [now],
    );
    for (const { user_id } of paused) {
      const [u] = await q.query('select email, locale from users where id = $1', [user_id]);
      await enqueueMail(q, u.email, renewalPausedMail, u.locale, { link: appLinks.renewal(deps.config) });
    }
  });
}

// ---------------------------------------------------------------- plan management

async function ownSubscription(q: Queryable, userId: string, id: string, lock = false) {
  const [s] = await q.query(`select * from subscriptions where id = $1 and user_id = $2${lock ? ' for update' : ''}`, [id, userId]);
  if (!s) throw notFound();
  return s;
}

export async function listSubscriptions(deps: Deps, userId: string, limit: number, offset: number) {
  const [{ n }] = await deps.db.query('select count(*)::int as n from subscriptions where user_id = $1', [userId]);
  const rows = await deps.db.query('select * from subscriptions where user_id = $1 order by created_at desc, id desc limit $2 offset $3', [userId, limit, offset]);
  const now = deps.clock.now();
  return { count: n, results: rows.map((s) => subscriptionOut(s, now)) };
}

export async function getSubscription(deps: Deps, userId: string, id: string) {
  return subscriptionOut(await ownSubscription(deps.db, userId, id), deps.clock.now());
}

export async function setCancelAtPeriodEnd(deps: Deps, userId: string, id: string, cancel: boolean) {
  const s = await deps.db.tx(async (q) => {
    const sub = await ownSubscription(q, userId, id, true);
    if (!['active', 'past_due', 'paused'].includes(sub.status)) throw errorCode(409, 'subscription_not_active', 'This plan has ended.');
    const [row] = await q.query('update subscriptions set cancel_at_period_end = $2, updated_at = now() where id = $1 returning *', [id, cancel]);
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
    if (sub.status !== 'active') throw errorCode(409, 'subscription_not_active', 'Only an active plan can be postponed.');
    if (sub.postponed_period_end && new Date(sub.postponed_period_end).getTime() === new Date(sub.current_period_end).getTime()) {
      throw errorCode(409, 'already_postponed', 'This period was already postponed once.');
    }
    const end = new Date(new Date(sub.current_period_end).getTime() + days * DAY);
    await q.query(
      "update consultations set renewal_period_end = $3, updated_at = now() where subscription_id = $1 and origin = 'renewal' and renewal_period_end = $2",
      [id, sub.current_period_end, end],
    );
    const [row] = await q.query('update subscriptions set current_period_end = $2, postponed_period_end = $2, updated_at = now() where id = $1 returning *', [id, end]);
    return row;
  });
  return subscriptionOut(s, deps.clock.now());
}

/** Early order: the next supply now (charged, then reviewed and ordered), once per period, inside the window. */
export async function earlyOrder(deps: Deps, userId: string, id: string) {
  const sub = await ownSubscription(deps.db, userId, id);
  const options = await renewalOptions(deps, userId, sub.category, 'en');
  if (options.mode !== 'early_order' || options.subscription?.id !== id) {
    throw coded(409, options.blocked_code ?? 'early_order_unavailable', { detail: 'An early order is not possible for this plan now.' });
  }
  const periodEnd = new Date(sub.current_period_end);
  // The same prescribing rule as every other path: the plan's treatment at a dose allowed now.
  const verdict = await verdictFor(deps.db, {
    userId, category: sub.category, treatmentId: sub.treatment_id, dosage: sub.dosage, engine: { outcome: 'eligible', treatments: [sub.treatment_id], reasons: [] }, now: deps.clock.now(),
  });
  if (!verdict.ok) throw coded(400, 'dose_step_not_allowed', { detail: verdict.explanation.join(' ') || 'This dose is not allowed now.', reason_codes: verdict.codes, allowed_dosages: verdict.allowed_dosages });
  const consultation = await deps.db.tx(async (q) => {
    const [locked] = await q.query('select * from subscriptions where id = $1 for update', [id]);
    if (earlyOrderedThisPeriod(locked) || new Date(locked.current_period_end).getTime() !== periodEnd.getTime()) return null;
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
    });
    await q.query('update consultations set renewal_period_end = $2 where id = $1', [c.id, periodEnd]);
    return c;
  });
  if (!consultation) throw coded(409, 'early_order_period_already_advanced', { detail: 'This period was already advanced.' });
  const charge = await chargeSubscriptionCycle(deps, id, 'early_order', { consultationId: consultation.id, force: true });
  if (charge.outcome !== 'charged') {
    await deps.db.tx((q) => transition(q, consultation.id, 'cancelled', {}));
    throw errorCode(402, 'payment_failed', 'The payment for the early order failed. Update the card in the billing portal and try again.');
  }
  // Mark the period the early order produced: a second early order waits for the next period.
  await deps.db.query('update subscriptions set early_ordered_period_end = current_period_end, updated_at = now() where id = $1', [id]);
  return { consultation_id: consultation.id, subscription: await getSubscription(deps, userId, id) };
}
