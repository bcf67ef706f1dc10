// Owner of gp_letters and gp_sharing_overrides (docs/interoperability.md, "Letters to the patient's
// own doctor"). Reads, not writes, the patient's `gp` (users, the profile module's) and their latest
// `gp_sharing` consent (consents, the privacy module's): the privacy module reaches this one for the
// export and the erasure, so calling it back would make a cycle. The letter's content and the
// doctor's reason are sealed at rest. The patient's routes are scoped to the account; the approval
// (`...ForClinician`) and the sending job (`...ForScheduler`) find letters by consultation or status.
import type { Queryable } from '../../db/index.ts';
import { sqlOf } from '../../db/kysely.ts';
import { forAccount } from '../../db/scope.ts';
import { openJson, openText, sealJson, sealText } from '../../lib/sealed.ts';

export interface GpDetails {
  name: string;
  practice: string;
  address: string;
  email: string;
}

/** The profile's `gp` when it holds a usable e-mail address (the letter's recipient), else null. */
export function gpOf(value: unknown): GpDetails | null {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return null;
  const g = value as Record<string, unknown>;
  const s = (k: string) => (typeof g[k] === 'string' ? g[k] : '');
  return s('email') && s('name') ? { name: s('name'), practice: s('practice'), address: s('address'), email: s('email') } : null;
}

export interface SharingState {
  gp: GpDetails | null;
  /** The latest `gp_sharing` decision is a grant. */
  consent: boolean;
  locale: string;
  first_name: string;
  last_name: string;
  date_of_birth: string | null;
  email: string;
}

/** The patient's GP and consent, as the approval and the sending job see them. */
export async function sharingStateOf(q: Queryable, userId: string): Promise<SharingState | null> {
  const user = await sqlOf(q).selectFrom('users').select(['gp', 'locale', 'first_name', 'last_name', 'date_of_birth', 'email']).where('id', '=', userId).executeTakeFirst();
  if (!user) return null;
  const consent = await forAccount(q, userId)
    .selectFrom('consents')
    .select('granted')
    .where('kind', '=', 'gp_sharing')
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
  const dob = user.date_of_birth as unknown;
  return {
    gp: gpOf(user.gp),
    consent: consent?.granted === true,
    locale: user.locale,
    first_name: user.first_name,
    last_name: user.last_name,
    date_of_birth: dob instanceof Date ? dob.toISOString().slice(0, 10) : typeof dob === 'string' ? dob.slice(0, 10) : null,
    email: user.email,
  };
}

/** The prescriber as the letter names them. */
export async function doctorOf(q: Queryable, doctorId: string): Promise<{ first_name: string; last_name: string; license: string | null } | null> {
  const d = await sqlOf(q).selectFrom('users').select(['first_name', 'last_name', 'doctor_license_number']).where('id', '=', doctorId).executeTakeFirst();
  return d ? { first_name: d.first_name, last_name: d.last_name, license: d.doctor_license_number } : null;
}

export interface GpLetterRow {
  id: string;
  user_id: string;
  consultation_id: string;
  prescription_id: string;
  status: 'queued' | 'sent' | 'withheld';
  recipient_email: string;
  locale: string;
  created_at: Date;
  sent_at: Date | null;
  withheld_reason: string | null;
}
export type GpLetterWithContent = GpLetterRow & { content: unknown };

const COLUMNS = ['id', 'user_id', 'consultation_id', 'prescription_id', 'status', 'recipient_email', 'locale', 'created_at', 'sent_at', 'withheld_reason'] as const;
const asRow = (r: Record<(typeof COLUMNS)[number], unknown>): GpLetterRow => r as unknown as GpLetterRow;

/** Queues the consultation's letter; a second call for the same consultation changes nothing (one letter each). */
export async function insertLetterForClinician(
  q: Queryable,
  v: { user_id: string; consultation_id: string; prescription_id: string; recipient_email: string; locale: string; content: unknown; at: Date },
): Promise<boolean> {
  const r = await sqlOf(q)
    .insertInto('gp_letters')
    .values({ user_id: v.user_id, consultation_id: v.consultation_id, prescription_id: v.prescription_id, recipient_email: v.recipient_email, locale: v.locale, content_enc: sealJson(q, v.content), created_at: v.at })
    .onConflict((oc) => oc.column('consultation_id').doNothing())
    .returning('id')
    .executeTakeFirst();
  return r !== undefined;
}

export async function insertSharingOverrideForClinician(q: Queryable, v: { consultation_id: string; user_id: string; doctor_id: string; missing: 'consent' | 'gp' | 'consent_and_gp'; reason: string; at: Date }): Promise<void> {
  await sqlOf(q)
    .insertInto('gp_sharing_overrides')
    .values({ consultation_id: v.consultation_id, user_id: v.user_id, doctor_id: v.doctor_id, missing: v.missing, reason_enc: sealText(q, v.reason), created_at: v.at })
    .onConflict((oc) => oc.column('consultation_id').doNothing())
    .execute();
}

/** The desk's view of one consultation: its letter and the doctor's reason for approving without one. */
export async function sharingOfConsultationForClinician(q: Queryable, consultationId: string) {
  const letter = await sqlOf(q).selectFrom('gp_letters').select(['id', 'status', 'sent_at', 'withheld_reason']).where('consultation_id', '=', consultationId).executeTakeFirst();
  const override = await sqlOf(q).selectFrom('gp_sharing_overrides').select(['missing', 'reason_enc', 'doctor_id', 'created_at']).where('consultation_id', '=', consultationId).executeTakeFirst();
  return {
    letter: letter ?? null,
    override: override ? { missing: override.missing, reason: openText(q, override.reason_enc), doctor_id: override.doctor_id, at: override.created_at } : null,
  };
}

/** Whether any letter waits: a plain read, so that an idle run of the job writes nothing (a `for update` counts as a write, src/db/until-write.ts). */
export async function hasQueuedLettersForScheduler(q: Queryable): Promise<boolean> {
  return (await sqlOf(q).selectFrom('gp_letters').select('id').where('status', '=', 'queued').limit(1).executeTakeFirst()) !== undefined;
}

/** Queued letters, oldest first, locked for this run (several processes never send one twice). */
export async function claimQueuedLettersForScheduler(q: Queryable, limit: number): Promise<GpLetterWithContent[]> {
  const rows = await sqlOf(q)
    .selectFrom('gp_letters')
    .select([...COLUMNS, 'content_enc'])
    .where('status', '=', 'queued')
    .orderBy('created_at')
    .limit(limit)
    .forUpdate()
    .skipLocked()
    .execute();
  return rows.map(({ content_enc, ...r }) => ({ ...asRow(r), content: openJson(q, content_enc) }));
}

export async function markLetterForScheduler(q: Queryable, id: string, v: { status: 'sent'; sent_at: Date; recipient_email: string } | { status: 'withheld'; withheld_reason: 'consent_withdrawn' | 'no_gp' }): Promise<void> {
  await sqlOf(q).updateTable('gp_letters').set(v).where('id', '=', id).where('status', '=', 'queued').execute();
}

/** The account's letters that went (or will go), newest first. */
export async function lettersOf(q: Queryable, userId: string, limit: number, offset: number): Promise<GpLetterRow[]> {
  const rows = await forAccount(q, userId).selectFrom('gp_letters').select(COLUMNS).where('status', '!=', 'withheld').orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).offset(offset).execute();
  return rows.map(asRow);
}

export async function countLetters(q: Queryable, userId: string): Promise<number> {
  const r = await forAccount(q, userId).selectFrom('gp_letters').select((eb) => eb.fn.countAll<string>().as('n')).where('status', '!=', 'withheld').executeTakeFirstOrThrow();
  return Number(r.n);
}

/** One letter of the account with its content (undefined: not this account's, or missing). */
export async function letterOf(q: Queryable, userId: string, id: string): Promise<GpLetterWithContent | undefined> {
  const r = await forAccount(q, userId).selectFrom('gp_letters').select([...COLUMNS, 'content_enc']).where('id', '=', id).where('status', '!=', 'withheld').executeTakeFirst();
  if (!r) return undefined;
  const { content_enc, ...row } = r;
  return { ...asRow(row), content: openJson(q, content_enc) };
}

/** Every letter of the account (the export), withheld ones included, with content. */
export async function allLettersOf(q: Queryable, userId: string): Promise<GpLetterWithContent[]> {
  const rows = await forAccount(q, userId).selectFrom('gp_letters').select([...COLUMNS, 'content_enc']).orderBy('created_at').orderBy('id').execute();
  return rows.map(({ content_enc, ...r }) => ({ ...asRow(r), content: openJson(q, content_enc) }));
}

/** Erasure: the account's letters go (the GP holds what was sent); the doctors' override reasons stay (prescribing record). */
export async function deleteAllLetters(q: Queryable, userId: string): Promise<void> {
  await forAccount(q, userId).deleteFrom('gp_letters').execute();
}
