// Journal rules: every operation needs an active treatment plan; rows are the caller's only.
// Design decisions: docs/journal.md.
import type { Deps } from '../../deps.ts';
import type { Queryable } from '../../db/index.ts';
import { fieldErrors, notFound } from '../../http/errors.ts';
import { emergencyNotice, mentionsEmergency } from '../../lib/emergency.ts';
import { activePlanRequired, hasActiveTreatmentPlan } from './active-plan.ts';
import * as repo from './repository.ts';
import { iso } from '../../lib/iso.ts';

const today = (deps: Deps) => deps.clock.now().toISOString().slice(0, 10);

export async function requireActivePlan(deps: Deps, userId: string): Promise<void> {
  if (!(await hasActiveTreatmentPlan(deps.db, userId, deps.clock.now()))) throw activePlanRequired();
}

export const weightOut = (r: any) => ({ id: r.id, created_at: iso(r.created_at)!, updated_at: iso(r.updated_at)!, weight_kg: Number(r.weight_kg), logged_on: r.logged_on, note: r.note });
export const injectionOut = (r: any) => ({
  id: r.id,
  created_at: iso(r.created_at)!,
  updated_at: iso(r.updated_at)!,
  medication: r.medication,
  dose: r.dose,
  injected_at: iso(r.injected_at)!,
  injection_site: r.injection_site,
  note: r.note,
});
export const planOut = (r: any) => ({
  id: r.id,
  created_at: iso(r.created_at)!,
  updated_at: iso(r.updated_at)!,
  medication: r.medication,
  anchor_weekday: r.anchor_weekday,
  preferred_time: r.preferred_time,
  starts_on: r.starts_on,
  active: r.active,
});
export const noteOut = (r: any) => ({ id: r.id, content: r.content, created_at: iso(r.created_at)!, updated_at: iso(r.updated_at)! });
export const sideEffectOut = (r: any) => ({
  id: r.id,
  symptom: r.symptom,
  severity: r.severity,
  started_on: r.started_on,
  note: r.note,
  flagged: r.flagged,
  created_at: iso(r.created_at)!,
});

const ORDER: Record<repo.Table, string> = {
  weight_entries: 'logged_on desc, id desc',
  injections: 'injected_at desc, id desc',
  journal_notes: 'created_at desc, id desc',
  side_effect_reports: 'created_at desc, id desc',
};

export async function list<T>(deps: Deps, table: repo.Table, userId: string, limit: number, offset: number, out: (r: any) => T) {
  await requireActivePlan(deps, userId);
  const [total, rows] = await Promise.all([repo.count(deps.db, table, userId), repo.page(deps.db, table, userId, ORDER[table], limit, offset)]);
  return { count: total, results: rows.map(out) };
}

export async function remove(deps: Deps, table: repo.Table, userId: string, id: string): Promise<void> {
  await requireActivePlan(deps, userId);
  if (!(await repo.deleteOwn(deps.db, table, userId, id))) throw notFound();
}

function notFuture(deps: Deps, field: string, date: string | null | undefined) {
  if (date && date > today(deps)) throw fieldErrors({ [field]: ['The date cannot be in the future.'] });
}

export async function createWeight(deps: Deps, userId: string, input: { weight_kg: number; logged_on?: string; note?: string }) {
  await requireActivePlan(deps, userId);
  notFuture(deps, 'logged_on', input.logged_on);
  const row = await repo.upsertWeight(deps.db, userId, input.weight_kg, input.logged_on ?? today(deps), input.note);
  return { created: Boolean(row.inserted), entry: weightOut(row) };
}

export async function patchWeight(deps: Deps, userId: string, id: string, input: { weight_kg?: number; logged_on?: string; note?: string }) {
  await requireActivePlan(deps, userId);
  notFuture(deps, 'logged_on', input.logged_on);
  try {
    const row = await repo.updateOwn(deps.db, 'weight_entries', userId, id, input);
    if (!row) throw notFound();
    return weightOut(row);
  } catch (err: any) {
    if (err?.code === '23505') throw fieldErrors({ logged_on: ['There is already a weight entry for this day.'] });
    throw err;
  }
}

export async function createInjection(deps: Deps, userId: string, input: Record<string, unknown>) {
  await requireActivePlan(deps, userId);
  return injectionOut(await repo.insert(deps.db, 'injections', userId, input));
}

export async function patchInjection(deps: Deps, userId: string, id: string, input: Record<string, unknown>) {
  await requireActivePlan(deps, userId);
  const row = await repo.updateOwn(deps.db, 'injections', userId, id, input);
  if (!row) throw notFound();
  return injectionOut(row);
}

/** The plan, created with defaults on first read (never null). 0 = Monday. */
export async function getPlan(deps: Deps, userId: string) {
  await requireActivePlan(deps, userId);
  const now = deps.clock.now();
  await repo.insertDefaultPlan(deps.db, userId, (now.getUTCDay() + 6) % 7, today(deps));
  return planOut(await repo.planFor(deps.db, userId));
}

export async function patchPlan(deps: Deps, userId: string, input: Record<string, unknown>) {
  const plan = await getPlan(deps, userId);
  return planOut(await repo.updateOwn(deps.db, 'injection_plans', userId, plan.id, input));
}

export async function createNote(deps: Deps, userId: string, content: string) {
  await requireActivePlan(deps, userId);
  return noteOut(await repo.insert(deps.db, 'journal_notes', userId, { content }));
}

export async function patchNote(deps: Deps, userId: string, id: string, content: string | undefined) {
  await requireActivePlan(deps, userId);
  const row = content === undefined ? await repo.findOwn(deps.db, 'journal_notes', userId, id) : await repo.updateOwn(deps.db, 'journal_notes', userId, id, { content });
  if (!row) throw notFound();
  return noteOut(row);
}

export async function reportSideEffect(deps: Deps, userId: string, input: { symptom: string; severity: string; started_on?: string | null; note?: string }) {
  await requireActivePlan(deps, userId);
  notFuture(deps, 'started_on', input.started_on);
  const urgent = input.severity === 'severe' || mentionsEmergency(`${input.symptom} ${input.note ?? ''}`);
  const row = await repo.insert(deps.db, 'side_effect_reports', userId, {
    symptom: input.symptom,
    severity: input.severity,
    started_on: input.started_on ?? null,
    note: input.note ?? '',
    flagged: urgent,
  });
  let emergency = null;
  if (urgent) {
    const [u] = await deps.db.query('select country_of_residence, locale from users where id = $1', [userId]);
    emergency = emergencyNotice(u.country_of_residence, u.locale, 'report');
  }
  return { ...sideEffectOut(row), emergency };
}

/** Days of journal entries the weight trend looks back over (from the latest entry). */
export const WEIGHT_TREND_DAYS = 90;

/**
 * For the review desk (renewals): the latest journal weight and the trend over the
 * WEIGHT_TREND_DAYS before it (the earliest entry in that window to the latest), or nulls.
 */
export async function weightSummary(q: Queryable, userId: string) {
  const rows = (await repo.recentWeights(q, userId, 400)).map((r: any) => ({ weight_kg: Number(r.weight_kg), logged_on: dateOnly(r.logged_on) }));
  if (!rows.length) return { latest_weight: null, weight_trend: null };
  const latest = rows[0];
  const from = Date.parse(`${latest.logged_on}T00:00:00Z`) - WEIGHT_TREND_DAYS * 86_400_000;
  const window = rows.filter((r) => Date.parse(`${r.logged_on}T00:00:00Z`) >= from);
  const first = window[window.length - 1];
  if (window.length < 2) return { latest_weight: latest, weight_trend: null };
  const days = Math.round((Date.parse(`${latest.logged_on}T00:00:00Z`) - Date.parse(`${first.logged_on}T00:00:00Z`)) / 86_400_000);
  const change = Math.round((latest.weight_kg - first.weight_kg) * 100) / 100;
  return {
    latest_weight: latest,
    weight_trend: {
      from: first,
      to: latest,
      entries: window.length,
      days,
      change_kg: change,
      change_percent: Math.round((change / first.weight_kg) * 10000) / 100,
      kg_per_week: days > 0 ? Math.round((change / days) * 7 * 100) / 100 : null,
    },
  };
}

const dateOnly = (d: unknown) => (d instanceof Date ? d.toISOString().slice(0, 10) : String(d).slice(0, 10));
