// Plan management as the peers offer it (docs/plan-management.md): skip the next delivery,
// pause (for some cycles or until resumed), move the next delivery date, and ask the doctor for a
// dose change between renewals (decided on the review desk). The plan's paid supply
// (current_period_end) never moves here: the next cycle's start does (next_delivery_at), so the
// prescribing rules see every skipped or paused week as a break in supply and the restart dose
// follows the engine's rule (questionnaires/prescribing.ts).
import type { Queryable } from '../../db/index.ts';
import type { Deps } from '../../deps.ts';
import { ApiError, fail, notFound } from '../../http/errors.ts';
import { enqueueMail } from '../../mail/outbox.ts';
import { appLinks } from '../../mail/links.ts';
import { iso } from '../../lib/iso.ts';
import { findConsultationForUser, transitionConsultationIfAllowed, updateRenewalFields, verdictFor } from '../consultations/index.ts';
import { findTreatment, lastDayAtCurrentDose } from '../questionnaires/index.ts';
import * as repo from './repository.ts';
import type { PlanRow } from './repository.ts';
import * as doses from './dose-changes.repository.ts';
import type { DoseChangeRow } from './dose-changes.repository.ts';
import { DAY_MS, dayOf, DELIVERY_LEAD_DAYS, deliveryWindow, isPatientPaused, nextDeliveryOf } from './management-state.ts';
import { doseChangeDecidedMail } from './mail.ts';
import { RENEWAL_WINDOW_DAYS, subscriptionOut } from './service.ts';

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isUniqueViolation = (err: unknown) => isRecord(err) && err.code === '23505';

type Action = 'skip' | 'pause' | 'delivery_date' | 'dose_change';

/** The plan locked for a change, or the refusal (checked in this order; docs/plan-management.md). */
async function lockForChange(q: Queryable, userId: string, id: string, action: Action): Promise<PlanRow> {
  const s = await repo.findOwnPlan(q, userId, id, true);
  if (!s) throw notFound();
  if (s.status === 'canceled') throw fail('subscription_not_active', { message: 'This plan has ended.' });
  const renewal = await repo.renewalOfPeriod(q, userId, id, s.current_period_end);
  if (renewal?.status === 'rejected') throw fail('renewal_rejected');
  if (s.cancel_at_period_end) throw fail('subscription_ending');
  if (action === 'dose_change') return s;
  if (s.provider === 'stripe') throw fail('managed_by_provider');
  if (s.status === 'past_due') throw fail('subscription_not_active', { message: 'A payment of this plan failed: update the card in the billing portal first.' });
  if (s.status === 'paused') {
    if (isPatientPaused(s)) throw fail('subscription_paused');
    throw fail('subscription_not_active', { message: 'This plan is paused until you confirm its renewal.' });
  }
  if (renewal?.status === 'approved') throw fail('next_delivery_approved');
  return s;
}

/** An open renewal of the plan's period (its choice or its review pending) ends: the next one opens before the new date. */
async function withdrawOpenRenewal(q: Queryable, userId: string, s: PlanRow): Promise<void> {
  const renewal = await repo.renewalOfPeriod(q, userId, s.id, s.current_period_end);
  if (!renewal || !['pending_review', 'needs_information'].includes(renewal.status)) return;
  const done = await transitionConsultationIfAllowed(q, userId, renewal.id, 'cancelled', { decision_reason: 'Withdrawn: the patient moved the next delivery (skip, pause or new date).' });
  // Frees the period for the renewal that opens before the new date (one renewal per period end).
  // Its choice is no longer awaited (`expired`: the renewal options stop offering it).
  if (done) await updateRenewalFields(q, userId, renewal.id, { renewal_period_end: null, ...(renewal.patient_choice_status === 'pending' ? { patient_choice_status: 'expired' } : {}) });
}

/**
 * What the break means for the dose (the engine's rule, questionnaires/prescribing.ts): the dose the
 * supply may resume at on the next delivery date, and the last day it may resume at the current one.
 */
async function restartOf(q: Queryable, s: PlanRow) {
  const t = findTreatment(s.category, s.treatment_id);
  if (!t?.dosage_ladder) return null;
  const at = nextDeliveryOf(s);
  const lastDay = lastDayAtCurrentDose(new Date(s.current_period_end));
  let resume: string | null = null;
  let codes: string[] = [];
  let gap: number | null = null;
  let explanation: string[] = [];
  if (at) {
    const v = await verdictFor(q, { userId: s.user_id, category: s.category, treatmentId: s.treatment_id, dosage: s.dosage, engine: { outcome: 'eligible', treatments: [s.treatment_id], reasons: [] }, now: at });
    resume = v.dose?.resume ?? s.dosage;
    codes = (v.dose?.codes ?? []).filter((c) => c.startsWith('SUPPLY_BREAK_'));
    gap = v.dose?.supply_gap_days ?? null;
    explanation = codes.length ? (v.dose?.explanation ?? []) : [];
  }
  const ladder = t.dosage_ladder;
  return {
    at: iso(at),
    current_dosage: s.dosage,
    resume_dosage: resume,
    dose_lowered: resume !== null && ladder.indexOf(resume) < ladder.indexOf(s.dosage),
    supply_gap_days: gap,
    last_day_at_current_dose: dayOf(lastDay),
    codes,
    explanation,
  };
}

async function changed(deps: Deps, userId: string, id: string) {
  const s = await repo.findOwnPlan(deps.db, userId, id);
  if (!s) throw notFound();
  return { subscription: subscriptionOut(s, deps.clock.now()), restart: await restartOf(deps.db, s) };
}

/** Skip the next delivery: that cycle is neither charged nor shipped; the following one is. Once per period. */
export async function skipNextDelivery(deps: Deps, userId: string, id: string) {
  await deps.db.tx(async (q) => {
    const s = await lockForChange(q, userId, id, 'skip');
    if (s.skipped_period_end && new Date(s.skipped_period_end).getTime() === new Date(s.current_period_end).getTime()) throw fail('already_skipped');
    await withdrawOpenRenewal(q, userId, s);
    const due = new Date(s.next_delivery_at ?? s.current_period_end);
    await repo.updatePlanDetails(q, userId, id, { next_delivery_at: new Date(due.getTime() + s.cycle_days * DAY_MS), skipped_period_end: s.current_period_end });
  });
  return changed(deps, userId, id);
}

/** Pause for 1..MAX_PAUSE_CYCLES cycles (then it resumes by itself) or until resumed: nothing is charged or shipped. */
export async function pausePlan(deps: Deps, userId: string, id: string, cycles: number | null) {
  const now = deps.clock.now();
  await deps.db.tx(async (q) => {
    const s = await lockForChange(q, userId, id, 'pause');
    await withdrawOpenRenewal(q, userId, s);
    const due = new Date(s.next_delivery_at ?? s.current_period_end);
    const resumeAt = cycles ? new Date(due.getTime() + cycles * s.cycle_days * DAY_MS) : null;
    const row = await repo.transitionPlan(q, userId, id, 'active', 'paused', { paused_at: now, paused_by_patient: true, next_delivery_at: resumeAt });
    if (!row) throw fail('subscription_not_active', { message: 'This plan changed meanwhile. Reload it.' });
  });
  return changed(deps, userId, id);
}

/**
 * End a patient's pause now: the next delivery is when the current supply runs out, or in
 * DELIVERY_LEAD_DAYS when it already has (the renewal opens at once; the doctor decides the restart dose).
 */
export async function unpausePlan(deps: Deps, userId: string, id: string) {
  const now = deps.clock.now();
  await deps.db.tx(async (q) => {
    const s = await repo.findOwnPlan(q, userId, id, true);
    if (!s) throw notFound();
    if (!isPatientPaused(s)) throw fail('subscription_not_paused');
    const soonest = new Date(now.getTime() + DELIVERY_LEAD_DAYS * DAY_MS);
    const next = new Date(Math.max(new Date(s.current_period_end).getTime(), soonest.getTime()));
    const row = await repo.transitionPlan(q, userId, id, 'paused', 'active', { paused_at: null, paused_by_patient: false, next_delivery_at: next.getTime() === new Date(s.current_period_end).getTime() ? null : next });
    if (!row) throw fail('subscription_not_paused');
    // A skip made before the pause is over with it: deliveries resume from the new date.
    if (row.skipped_period_end) await repo.updatePlanDetails(q, userId, id, { skipped_period_end: null });
  });
  return changed(deps, userId, id);
}

/** Move the next delivery to a date inside the plan's window (field error `date` outside it). */
export async function setDeliveryDate(deps: Deps, userId: string, id: string, date: string) {
  const now = deps.clock.now();
  await deps.db.tx(async (q) => {
    const s = await lockForChange(q, userId, id, 'delivery_date');
    const w = deliveryWindow(s, now);
    if (date < w.earliest || date > w.latest) {
      throw new ApiError(400, { date: [`Choose a date from ${w.earliest} to ${w.latest}.`] });
    }
    // The cycle starts at the period end's time of day on the chosen date.
    const end = new Date(s.current_period_end);
    const at = new Date(`${date}T${end.toISOString().slice(11)}`);
    // An open renewal stays when its window is already open for the new date; otherwise it reopens then.
    if (at.getTime() - RENEWAL_WINDOW_DAYS * DAY_MS > now.getTime()) await withdrawOpenRenewal(q, userId, s);
    await repo.updatePlanDetails(q, userId, id, { next_delivery_at: at.getTime() === end.getTime() ? null : at });
  });
  return changed(deps, userId, id);
}

// ---------------------------------------------------------------- dose change between renewals

export function doseChangeOut(r: DoseChangeRow) {
  return {
    id: r.id,
    subscription_id: r.subscription_id,
    treatment_id: r.treatment_id,
    from_dosage: r.from_dosage,
    requested_dosage: r.requested_dosage,
    note: r.note,
    status: r.status,
    decided_dosage: r.decided_dosage,
    decision_note: r.decision_note,
    decided_at: iso(r.decided_at),
    created_at: iso(r.created_at)!,
  };
}

/** The engine's verdict on a dose for the plan's next cycle (the date it would be supplied). */
async function doseVerdictFor(q: Queryable, s: PlanRow, dosage: string, now: Date) {
  const at = nextDeliveryOf(s) ?? now;
  return verdictFor(q, { userId: s.user_id, category: s.category, treatmentId: s.treatment_id, dosage, engine: { outcome: 'eligible', treatments: [s.treatment_id], reasons: [] }, now: at > now ? at : now });
}

function assertDoseOnLadder(s: PlanRow, dosage: string, field: string) {
  const t = findTreatment(s.category, s.treatment_id);
  const list = t ? (t.dosage_ladder ?? t.strengths) : [];
  if (!list.includes(dosage)) throw new ApiError(400, { [field]: [`Choose one of: ${list.join(', ')}.`] });
}

export async function requestDoseChange(deps: Deps, userId: string, id: string, input: { dosage: string; note: string }) {
  const now = deps.clock.now();
  try {
    const row = await deps.db.tx(async (q) => {
      const s = await lockForChange(q, userId, id, 'dose_change');
      assertDoseOnLadder(s, input.dosage, 'dosage');
      if (input.dosage === s.dosage) throw new ApiError(400, { dosage: ['This is the plan’s current dose.'] });
      if (await repo.openRenewalOf(q, userId, id)) throw fail('renewal_open');
      if ((await doses.doseChangesOfPlan(q, userId, id, 1))[0]?.status === 'pending') throw fail('dose_change_pending');
      const v = await doseVerdictFor(q, s, input.dosage, now);
      if (!v.ok) {
        throw fail('dose_step_not_allowed', {
          message: v.explanation.join(' ') || 'This dose is not allowed for the next supply.',
          extra: { reason_codes: v.codes, treatment_id: s.treatment_id, dosage: input.dosage, allowed_dosages: v.allowed_dosages },
        });
      }
      return doses.insertDoseChange(q, { userId, subscriptionId: id, treatmentId: s.treatment_id, fromDosage: s.dosage, requestedDosage: input.dosage, note: input.note });
    });
    return doseChangeOut(row);
  } catch (err) {
    // A concurrent request won the one open request per plan.
    if (isUniqueViolation(err)) throw fail('dose_change_pending');
    throw err;
  }
}

export async function listDoseChanges(deps: Deps, userId: string, id: string) {
  const s = await repo.findOwnPlan(deps.reader, userId, id);
  if (!s) throw notFound();
  return (await doses.doseChangesOfPlan(deps.reader, userId, id)).map(doseChangeOut);
}

/** A request as the desk shows it: the plan, and the engine's doses for the next cycle. */
async function deskOut(q: Queryable, r: DoseChangeRow, now: Date) {
  const s = await repo.findOwnPlan(q, r.user_id, r.subscription_id);
  const v = s ? await doseVerdictFor(q, s, r.requested_dosage, now) : null;
  return {
    ...doseChangeOut(r),
    user_id: r.user_id,
    category: s?.category ?? '',
    plan_status: s?.status ?? 'canceled',
    next_delivery_at: s ? iso(nextDeliveryOf(s)) : null,
    prescribing_check: v ? { ok: v.ok, reason_codes: v.codes, allowed_dosages: v.allowed_dosages, explanation: v.explanation } : null,
  };
}

export async function doseChangeQueue(deps: Deps, limit: number, offset: number) {
  const now = deps.clock.now();
  const { count, rows } = await doses.pendingDoseChangesForClinician(deps.reader, limit, offset);
  const results = [];
  for (const r of rows) results.push(await deskOut(deps.reader, r, now));
  return { count, results };
}

/**
 * The doctor's decision. Approved: the dose (the requested one unless the doctor chose another on the
 * ladder, re-checked by the engine for the next cycle) becomes the next cycle's: the open renewal's
 * dose, else the plan's `next_cycle_dosage` for the renewal that opens next. The patient is mailed.
 */
export async function decideDoseChange(deps: Deps, doctorId: string, id: string, input: { decision: 'approve' | 'decline'; dosage?: string; note: string }) {
  const now = deps.clock.now();
  const decided = await deps.db.tx(async (q) => {
    const r = await doses.findDoseChangeForClinician(q, id, true);
    if (!r) throw notFound();
    if (r.status !== 'pending') throw fail('dose_change_not_pending');
    const s = await repo.findOwnPlan(q, r.user_id, r.subscription_id, true);
    if (!s) throw notFound();
    let dosage: string | null = null;
    if (input.decision === 'approve') {
      if (s.status === 'canceled') throw fail('subscription_not_active', { message: 'This plan has ended.' });
      if (s.treatment_id !== r.treatment_id) throw fail('subscription_not_active', { message: 'The plan’s treatment changed since the request.' });
      dosage = input.dosage ?? r.requested_dosage;
      assertDoseOnLadder(s, dosage, 'dosage');
      const v = await doseVerdictFor(q, s, dosage, now);
      if (!v.ok) {
        throw fail('dose_step_not_allowed', {
          message: v.explanation.join(' ') || 'This dose is not allowed for the next supply.',
          extra: { reason_codes: v.codes, treatment_id: s.treatment_id, dosage, allowed_dosages: v.allowed_dosages },
        });
      }
      const open = await repo.openRenewalOf(q, r.user_id, s.id);
      const c = open ? await findConsultationForUser(q, r.user_id, open.id) : null;
      if (c) {
        const details = isRecord(c.renewal_details) ? { ...c.renewal_details } : {};
        await updateRenewalFields(q, r.user_id, c.id, { dosage, renewal_details: { ...details, decided_dosage: dosage } });
      } else {
        await repo.updatePlanDetails(q, r.user_id, s.id, { next_cycle_dosage: dosage === s.dosage ? null : dosage });
      }
    }
    const row = await doses.decideDoseChangeForClinician(q, id, { status: input.decision === 'approve' ? 'approved' : 'declined', decidedDosage: dosage, note: input.note, doctorId, now });
    if (!row) throw fail('dose_change_not_pending');
    const u = await repo.ownerContact(q, r.user_id);
    if (u) await enqueueMail(q, u.email, doseChangeDecidedMail, u.locale, { link: appLinks.plan(deps.config) });
    return row;
  });
  return deskOut(deps.db, decided, now);
}
