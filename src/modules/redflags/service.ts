// The red-flag desk (docs/red-flags.md). Every patient free text goes through `screenFreeText`: the
// one detector (src/lib/emergency.ts) reads it; a current red flag answers with the emergency notice
// of the patient's country and files a desk flag; past history (or a negated mention of suicide)
// files a desk flag without the notice. Clinicians list the flags and resolve them with a note.
import type { Deps } from '../../deps.ts';
import type { Queryable } from '../../db/index.ts';
import { fail, notFound } from '../../http/errors.ts';
import { iso } from '../../lib/iso.ts';
import { emergencyNotice, readRedFlags, type EmergencyNotice, type NoticeAbout } from '../../lib/emergency.ts';
import { recordAudit } from '../audit/index.ts';
import * as repo from './repository.ts';

export const RED_FLAG_SOURCES = ['message', 'journal_note', 'weight_entry', 'injection', 'side_effect', 'questionnaire', 'connector'] as const;
export type RedFlagSource = (typeof RED_FLAG_SOURCES)[number];
export const RED_FLAG_KINDS = ['emergency', 'urgent', 'history', 'review'] as const;

// When the desk must have acted on a flag (docs/red-flags.md "Tiers"): an emergency at once (the
// patient was told to call the emergency number; a person checks they did), an urgent flag the same
// day (the patient was told to see a doctor today), history and review within the working week.
const DUE_MINUTES = { emergency: 30, urgent: 4 * 60, history: 3 * 24 * 60, review: 3 * 24 * 60 } as const;

const EXCERPT = 1000;

export interface Screening {
  /** The notice to answer with (a current red flag, or a `notice` review code), else null. */
  emergency: EmergencyNotice | null;
  /** A desk flag was filed. */
  flagged: boolean;
  /** Categories read as current emergencies. */
  emergencies: string[];
  /** Categories read as past history. */
  history: string[];
  /** Categories read as current red flags of the urgent tier (a doctor today). */
  urgent: string[];
}

export interface ScreenInput {
  userId: string;
  source: RedFlagSource;
  /** The row the text belongs to (the conversation for a message), when there is one. */
  sourceId: string | null;
  /** The patient's words (empty strings are skipped). */
  texts: readonly (string | null | undefined)[];
  /** What the notice says happened to the text. */
  about: NoticeAbout;
  /** Codes of a service rule that need a person whatever the words (e.g. a severe side effect). */
  review?: { codes: string[]; notice: boolean };
}

/** Reads the patient's words, files a desk flag when they raise one, and gives the notice to answer with. */
export async function screenFreeText(q: Queryable, input: ScreenInput): Promise<Screening> {
  const text = input.texts.filter((t): t is string => typeof t === 'string' && t.trim() !== '').join('\n');
  const reading = text ? readRedFlags(text) : { emergencies: [], urgent: [], history: [], questions: [], negated: [] };
  const emergencies = reading.emergencies.map((m) => m.category as string);
  const urgent = reading.urgent.map((m) => m.category as string);
  const history = reading.history.map((m) => m.category as string);
  const review = input.review?.codes ?? [];
  const kind = emergencies.length || (review.length && input.review?.notice) ? 'emergency' : urgent.length ? 'urgent' : history.length ? 'history' : review.length ? 'review' : null;
  if (!kind) return { emergency: null, flagged: false, emergencies, history, urgent };
  const categories = [...new Set([...emergencies, ...urgent, ...review, ...history])];
  const evidence = [...reading.emergencies, ...reading.urgent, ...reading.history].map((m) => ({ category: m.category, by: m.by, evidence: m.evidence.slice(0, 5) }));
  await repo.insertRedFlag(q, input.userId, {
    source: input.source, sourceId: input.sourceId, kind, categories, excerpt: (text || review.join(', ')).slice(0, EXCERPT),
    tier: kind === 'emergency' || kind === 'urgent' ? kind : null, dueInMinutes: DUE_MINUTES[kind], evidence,
  });
  let emergency: EmergencyNotice | null = null;
  if (kind === 'emergency' || kind === 'urgent') {
    const u = await repo.patientLocality(q, input.userId);
    // Urgent flags name their categories too; an emergency notice names every current category.
    emergency = emergencyNotice(u?.country_of_residence ?? null, u?.locale ?? 'en', input.about, [...emergencies, ...review, ...urgent, ...history.filter((c) => c === 'suicidal' || c === 'self_harm')], kind);
  }
  return { emergency, flagged: true, emergencies, history, urgent };
}

/** The categories of the treatments the patient was prescribed (side-effect reports, their rules). */
export const prescribedCategories = (q: Queryable, userId: string) => repo.prescribedCategories(q, userId);

// The columns hold only these values (CHECK constraints); the guards give them their type.
const asSource = (v: string): RedFlagSource => (RED_FLAG_SOURCES as readonly string[]).includes(v) ? (v as RedFlagSource) : 'message';
const asKind = (v: string): (typeof RED_FLAG_KINDS)[number] => (v === 'history' || v === 'review' || v === 'urgent' ? v : 'emergency');
const asTier = (v: string | null): 'emergency' | 'urgent' | null => (v === 'emergency' ? 'emergency' : v === 'urgent' ? 'urgent' : null);
const asEvidence = (v: unknown): { category: string; by: string; evidence: string[] }[] => (Array.isArray(v) ? (v as { category: string; by: string; evidence: string[] }[]) : []);

const deskOut = (r: repo.DeskRow) => ({
  id: r.id,
  patient: { id: r.user_id, email: r.email, first_name: r.first_name, last_name: r.last_name },
  source: asSource(r.source),
  source_id: r.source_id,
  kind: asKind(r.kind),
  categories: r.categories,
  excerpt: r.excerpt,
  tier: asTier(r.tier),
  due_at: iso(r.due_at),
  evidence: asEvidence(r.evidence),
  created_at: iso(r.created_at)!,
  resolved_at: iso(r.resolved_at),
  resolved_by: r.resolved_by,
  resolution: r.resolution,
});

export async function listForClinician(deps: Deps, status: repo.DeskStatus, limit: number, offset: number, order?: repo.DeskOrder) {
  const [count, rows] = await Promise.all([repo.countForClinician(deps.reader, status), repo.pageForClinician(deps.reader, status, limit, offset, order)]);
  return { count, results: rows.map(deskOut) };
}

export async function resolveForClinician(deps: Deps, doctorId: string, id: string, resolution: string) {
  return deps.db.tx(async (q) => {
    const existing = await repo.findForClinician(q, id);
    if (!existing) throw notFound();
    const row = await repo.resolveForClinician(q, id, doctorId, resolution, deps.clock.now());
    if (!row) throw fail('red_flag_already_resolved');
    await recordAudit(q, { actorId: doctorId, action: 'red_flag.resolved', subjectType: 'red_flag', subjectId: id, details: { kind: row.kind, categories: row.categories } });
    return deskOut({ ...existing, ...row });
  });
}

// The list orderings its routes validate `ordering` against (pagination contracts, not SQL).
export { DESK_ORDERING } from './repository.ts';

export const ERASED_FLAG_NOTE = 'Closed without action: the patient erased the account.';

/** The account's flags for its data export: what it wrote that raised them, and what was done. */
export async function redFlagsOfAccount(q: Queryable, userId: string) {
  return (await repo.flagsOfAccount(q, userId)).map((f) => ({
    id: f.id,
    source: f.source,
    kind: f.kind,
    categories: f.categories,
    excerpt: f.excerpt,
    created_at: iso(f.created_at),
    resolved_at: f.resolved_at ? iso(f.resolved_at) : null,
    resolution: f.resolution,
  }));
}

/** Erasure of the account: see repo.eraseFlagsOfAccount (docs/privacy.md, "Red flags"). */
export function eraseRedFlagsOfAccount(q: Queryable, userId: string, at: Date): Promise<void> {
  return repo.eraseFlagsOfAccount(q, userId, at, ERASED_FLAG_NOTE);
}
