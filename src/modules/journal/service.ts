// Journal rules: every operation needs an active treatment plan; rows are the caller's only.
// Design decisions: docs/journal.md.
import type { Deps } from '../../deps.ts';
import type { Queryable } from '../../db/index.ts';
import type { InjectionPlansRow, InjectionsRow, WeightEntriesRow } from '../../db/schema.ts';
import { fail, fieldErrors, notFound } from '../../http/errors.ts';
import { orderBy } from '../../http/pagination.ts';
import { mentionsDehydration } from '../../lib/emergency.ts';
import { prescribedCategories, screenFreeText } from '../redflags/index.ts';
import { nameUuid } from '../../lib/name-uuid.ts';
import { activePlanRequired } from './active-plan.ts';
import { SEVERITIES, SITES } from './schemas.ts';
import * as repo from './repository.ts';
import type { JournalNote, SideEffectReport } from './repository.ts';
import { iso as isoOrNull } from '../../lib/iso.ts';
// Journal timestamps are never null: the shared formatter, non-null.
const iso = (d: Date | string) => isoOrNull(d)!;

const today = (deps: Deps) => deps.clock.now().toISOString().slice(0, 10);
const isUniqueViolation = (err: unknown) => typeof err === 'object' && err !== null && 'code' in err && err.code === '23505';

/** Whether the account has an active treatment plan now (the notifications module stops reminders without one). */
export const hasActiveTreatment = (q: Queryable, userId: string, now: Date): Promise<boolean> => repo.hasActiveTreatmentPlan(q, userId, now);

export async function requireActivePlan(deps: Deps, userId: string, q: Queryable = deps.db): Promise<void> {
  if (!(await repo.hasActiveTreatmentPlan(q, userId, deps.clock.now()))) throw activePlanRequired();
}

export const weightOut = (r: WeightEntriesRow) => ({
  id: r.id,
  created_at: iso(r.created_at),
  updated_at: iso(r.updated_at),
  weight_kg: Number(r.weight_kg),
  logged_on: r.logged_on,
  note: r.note,
  verified_by: r.verified_by,
  verified_at: r.verified_at ? iso(r.verified_at) : null,
});
type Site = (typeof SITES)[number];
type Severity = (typeof SEVERITIES)[number];
// The columns hold only these values (CHECK constraints); the guards give them their type.
const isSite = (v: string | null): v is Site => v !== null && (SITES as readonly string[]).includes(v);
const isSeverity = (v: string): v is Severity => (SEVERITIES as readonly string[]).includes(v);

export const injectionOut = (r: InjectionsRow) => ({
  id: r.id,
  created_at: iso(r.created_at),
  updated_at: iso(r.updated_at),
  medication: r.medication,
  dose: r.dose,
  injected_at: iso(r.injected_at),
  injection_site: isSite(r.injection_site) ? r.injection_site : null,
  note: r.note,
});
export const planOut = (r: Pick<InjectionPlansRow, 'id' | 'created_at' | 'updated_at' | 'medication' | 'anchor_weekday' | 'preferred_time' | 'starts_on' | 'active'>) => ({
  id: r.id,
  created_at: iso(r.created_at),
  updated_at: iso(r.updated_at),
  medication: r.medication,
  anchor_weekday: r.anchor_weekday,
  preferred_time: r.preferred_time,
  starts_on: r.starts_on,
  active: r.active,
});
export const noteOut = (r: JournalNote) => ({ id: r.id, content: r.content, created_at: iso(r.created_at), updated_at: iso(r.updated_at) });
export const sideEffectOut = (r: SideEffectReport) => ({
  id: r.id,
  symptom: r.symptom,
  severity: isSeverity(r.severity) ? r.severity : 'moderate',
  started_on: r.started_on,
  note: r.note,
  flagged: r.flagged,
  created_at: iso(r.created_at),
});

/**
 * Side-effect reports are for every treatment the patient was prescribed, one-off medicines included
 * (docs/journal.md): 403 prescription_required only for a patient who was never prescribed one.
 */
export async function requirePrescription(deps: Deps, userId: string, q: Queryable = deps.db): Promise<string[]> {
  const categories = await prescribedCategories(q, userId);
  if (!categories.length) throw fail('prescription_required');
  return categories;
}

/** The patient's past weights, newest first, with or without an active plan (the MCP connector: a patient whose plan ended still reads their history). */
export async function pastWeights(deps: Deps, userId: string, limit: number, offset: number) {
  const order = orderBy({}, repo.ORDERINGS.weight_entries);
  const [total, rows] = await Promise.all([repo.count(deps.reader, 'weight_entries', userId), repo.page(deps.reader, 'weight_entries', userId, order, limit, offset)]);
  return { count: total, results: rows.map(weightOut) };
}

/** A page of a journal list in the asked order (default: the list's own, newest first). */
export async function list<T extends repo.Table, O>(
  deps: Deps,
  table: T,
  userId: string,
  limit: number,
  offset: number,
  out: (r: repo.Rows[T]) => O,
  order: repo.JournalOrder = orderBy({}, repo.ORDERINGS[table]),
) {
  if (table === 'side_effect_reports') await requirePrescription(deps, userId, deps.reader);
  else await requireActivePlan(deps, userId, deps.reader);
  const [total, rows] = await Promise.all([repo.count(deps.reader, table, userId), repo.page(deps.reader, table, userId, order, limit, offset)]);
  return { count: total, results: rows.map(out) };
}

export async function remove(deps: Deps, table: repo.Table, userId: string, id: string): Promise<void> {
  await requireActivePlan(deps, userId);
  if (!(await repo.deleteOwn(deps.db, table, userId, id))) throw notFound();
}

function notFuture(deps: Deps, field: string, date: string | null | undefined) {
  if (date && date > today(deps)) throw fieldErrors({ [field]: ['The date cannot be in the future.'] });
}

// Every note the patient writes is read by the one detector (docs/red-flags.md), in the transaction
// that stores it: an emergency answers with the notice and files a desk flag; history a desk flag.
type Source = 'weight_entry' | 'injection' | 'journal_note';
const screen = (q: Queryable, userId: string, source: Source, id: string, text: string | null | undefined) =>
  screenFreeText(q, { userId, source, sourceId: id, texts: [text], about: 'note' }).then((s) => s.emergency);

export async function createWeight(deps: Deps, userId: string, input: { weight_kg: number; logged_on?: string; note?: string }) {
  await requireActivePlan(deps, userId);
  notFuture(deps, 'logged_on', input.logged_on);
  return deps.db.tx(async (q) => {
    const { inserted, ...row } = await repo.upsertWeight(q, userId, input.weight_kg, input.logged_on ?? today(deps), input.note);
    const emergency = await screen(q, userId, 'weight_entry', row.id, input.note);
    return { created: Boolean(inserted), entry: weightOut(row), emergency };
  });
}

export async function patchWeight(deps: Deps, userId: string, id: string, input: { weight_kg?: number; logged_on?: string; note?: string }) {
  await requireActivePlan(deps, userId);
  notFuture(deps, 'logged_on', input.logged_on);
  try {
    return await deps.db.tx(async (q) => {
      const row = await repo.updateWeight(q, userId, id, input);
      if (!row) throw notFound();
      return { ...weightOut(row), emergency: await screen(q, userId, 'weight_entry', row.id, input.note) };
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw fieldErrors({ logged_on: ['There is already a weight entry for this day.'] });
    throw err;
  }
}

export interface InjectionInput {
  medication?: string;
  dose: string;
  injected_at: string;
  injection_site?: string | null;
  note?: string;
}

/**
 * The injection fields of an input validated upstream (the route's schema, the connector's): the
 * ones of the right type, nothing else (the connector passes a plain object).
 */
function injectionFields(given: Partial<InjectionInput> | Readonly<Record<string, unknown>>): Partial<InjectionInput> {
  const input: Readonly<Record<string, unknown>> = { ...given };
  const out: Partial<InjectionInput> = {};
  if (typeof input.medication === 'string') out.medication = input.medication;
  if (typeof input.dose === 'string') out.dose = input.dose;
  if (typeof input.injected_at === 'string') out.injected_at = input.injected_at;
  if (typeof input.injection_site === 'string' || input.injection_site === null) out.injection_site = input.injection_site;
  if (typeof input.note === 'string') out.note = input.note;
  return out;
}

export async function createInjection(deps: Deps, userId: string, input: InjectionInput | Readonly<Record<string, unknown>>) {
  await requireActivePlan(deps, userId);
  const fields = injectionFields(input);
  const { dose, injected_at: injectedAt } = fields;
  if (dose === undefined || injectedAt === undefined) throw fieldErrors({ dose: ['This field is required.'] });
  return deps.db.tx(async (q) => {
    const row = await repo.insertInjection(q, userId, { ...fields, dose, injected_at: injectedAt });
    return { ...injectionOut(row), emergency: await screen(q, userId, 'injection', row.id, fields.note) };
  });
}

export async function patchInjection(deps: Deps, userId: string, id: string, input: Partial<InjectionInput>) {
  await requireActivePlan(deps, userId);
  const fields = injectionFields(input);
  return deps.db.tx(async (q) => {
    const row = await repo.updateInjection(q, userId, id, fields);
    if (!row) throw notFound();
    return { ...injectionOut(row), emergency: await screen(q, userId, 'injection', row.id, fields.note) };
  });
}

// The default injection plan is shown before it is stored (GETs do not write): under the id it
// will be stored with (a name-based UUID of the account), stored by the first change.
const PLAN_NAMESPACE = '5b0f7a2e-4c1d-4f0a-9d4e-2f7c8a6b1e30';

function defaultPlan(deps: Deps, userId: string) {
  const now = deps.clock.now();
  // 0 = Monday.
  return { id: nameUuid(PLAN_NAMESPACE, userId), anchor_weekday: (now.getUTCDay() + 6) % 7, preferred_time: '09:00', starts_on: today(deps), now };
}

/** The plan: the stored one, or the default it starts as (never null). Writes nothing. */
export async function getPlan(deps: Deps, userId: string) {
  await requireActivePlan(deps, userId, deps.reader);
  const stored = await repo.planFor(deps.reader, userId);
  if (stored) return planOut(stored);
  const d = defaultPlan(deps, userId);
  // Dated from the start of its start day, so repeated reads answer the same bytes (until stored).
  const since = new Date(`${d.starts_on}T00:00:00.000Z`);
  return planOut({ ...d, medication: '', active: true, created_at: since, updated_at: since });
}

export async function patchPlan(
  deps: Deps,
  userId: string,
  input: { medication?: string; anchor_weekday?: number; preferred_time?: string; starts_on?: string; active?: boolean },
) {
  await requireActivePlan(deps, userId);
  return deps.db.tx(async (q) => {
    const { now: _now, ...d } = defaultPlan(deps, userId);
    await repo.insertDefaultPlan(q, userId, d);
    return planOut(await repo.updatePlan(q, userId, input));
  });
}

export async function createNote(deps: Deps, userId: string, content: string) {
  await requireActivePlan(deps, userId);
  return deps.db.tx(async (q) => {
    const row = await repo.insertNote(q, userId, content);
    return { ...noteOut(row), emergency: await screen(q, userId, 'journal_note', row.id, content) };
  });
}

export async function patchNote(deps: Deps, userId: string, id: string, content: string | undefined) {
  await requireActivePlan(deps, userId);
  return deps.db.tx(async (q) => {
    const row = content === undefined ? await repo.findNote(q, userId, id) : await repo.updateNote(q, userId, id, content);
    if (!row) throw notFound();
    return { ...noteOut(row), emergency: await screen(q, userId, 'journal_note', row.id, content) };
  });
}

/**
 * A side-effect report, for any treatment the patient was prescribed. Read by the one detector at
 * every severity (docs/red-flags.md); besides the words, two rules need a person: a `severe` report
 * (answered with the emergency notice, as before) and dehydration at `moderate` or worse on a GLP-1
 * (the weight_loss category; S1: dehydration can worsen kidney function), flagged without the notice.
 */
export async function reportSideEffect(deps: Deps, userId: string, input: { symptom: string; severity: string; started_on?: string | null; note?: string }) {
  const categories = await requirePrescription(deps, userId);
  notFuture(deps, 'started_on', input.started_on);
  const review: string[] = [];
  if (input.severity === 'severe') review.push('severe_side_effect');
  if (input.severity !== 'mild' && categories.includes('weight_loss') && mentionsDehydration(`${input.symptom} ${input.note ?? ''}`)) review.push('glp1_dehydration');
  return deps.db.tx(async (q) => {
    const row = await repo.insertSideEffect(q, userId, { symptom: input.symptom, severity: input.severity, started_on: input.started_on ?? null, note: input.note ?? '', flagged: false });
    const screening = await screenFreeText(q, {
      userId,
      source: 'side_effect',
      sourceId: row.id,
      texts: [input.symptom, input.note],
      about: 'report',
      review: { codes: review, notice: input.severity === 'severe' },
    });
    const flagged = screening.flagged ? await repo.markSideEffectFlagged(q, userId, row.id) : row;
    return { ...sideEffectOut(flagged), emergency: screening.emergency };
  });
}

/** The goal weight as the API shows it: null weight and null time when never set. */
export const goalOut = (r: { goal_weight_kg: number | string | null; updated_at: Date | string } | null) => ({
  goal_weight_kg: r?.goal_weight_kg == null ? null : Number(r.goal_weight_kg),
  updated_at: r ? iso(r.updated_at) : null,
});

/** The patient's goal weight (docs/journal.md): behind the active-plan gate like every journal route. */
export async function getGoal(deps: Deps, userId: string) {
  await requireActivePlan(deps, userId, deps.reader);
  return goalOut(await repo.goalFor(deps.reader, userId));
}

/** Sets the goal weight, or clears it with null. */
export async function putGoal(deps: Deps, userId: string, goalWeightKg: number | null) {
  await requireActivePlan(deps, userId);
  return goalOut(await repo.upsertGoal(deps.db, userId, goalWeightKg));
}

/** Days of journal entries the weight trend looks back over (from the latest entry). */
export const WEIGHT_TREND_DAYS = 90;

/**
 * For the review desk (renewals): the latest journal weight and the trend over the
 * WEIGHT_TREND_DAYS before it (the earliest entry in that window to the latest), or nulls.
 */
export async function weightSummary(q: Queryable, userId: string) {
  const rows = (await repo.recentWeights(q, userId, 400)).map((r) => ({ weight_kg: Number(r.weight_kg), logged_on: dateOnly(r.logged_on) }));
  const latest = rows[0];
  if (!latest) return { latest_weight: null, weight_trend: null };
  const from = Date.parse(`${latest.logged_on}T00:00:00Z`) - WEIGHT_TREND_DAYS * 86_400_000;
  const window = rows.filter((r) => Date.parse(`${r.logged_on}T00:00:00Z`) >= from);
  const first = window[window.length - 1];
  if (!first || window.length < 2) return { latest_weight: latest, weight_trend: null };
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

// The list orderings its routes validate `ordering` against (pagination contracts, not SQL).
export { ORDERINGS, type Rows, type Table } from './repository.ts';

// ---- the account's privacy: its data export and its erasure (the privacy module)

/** Every journal record of the account (the data export), oldest first. */
export async function journalOfAccount(q: Queryable, userId: string) {
  const { goal, ...journal } = await repo.journalOfAccount(q, userId);
  // The goal as the API shows it; null when the account never set one.
  return { ...journal, goal: goal ? { goal_weight_kg: goalOut(goal).goal_weight_kg, updated_at: iso(goal.updated_at) } : null };
}

/** Erasure of the patient's own tracking, inside the erasure's transaction (`trx`). */
export function deleteAccountJournal(trx: Queryable, userId: string): Promise<void> {
  return repo.deleteAccountJournal(trx, userId);
}

/**
 * A weight the desk verified from a photo on the scales (the verification module), inside its
 * decision's transaction: the day's journal entry takes it, marked verified by whom and when.
 */
export async function recordVerifiedWeight(trx: Queryable, userId: string, e: { weightKg: number; loggedOn: string; verifiedBy: string; verifiedAt: Date }) {
  return weightOut(await repo.upsertVerifiedWeight(trx, userId, e));
}
