// Consultation writes and single-record reads: creation, the status machine's write, the renewal
// fields, prescribing overrides and the supply history. (The patient's list and its serialisation
// live in repository.ts.) Patient-scoped functions take the account id and put it in the SQL; the
// review desk acts on any patient by design and its functions say so (`...ForClinician`).
import type { Queryable } from '../../db/index.ts';
import { sql, sqlOf } from '../../db/kysely.ts';
import { forAccount } from '../../db/scope.ts';
import type { ConsultationsRow, ConsultationsUpdate, PrescribingOverridesRow, UsersRow } from '../../db/schema.ts';
import { readJson, readText, sealJson, sealText } from '../../lib/sealed.ts';
import { getVersion } from '../questionnaires/index.ts';
import { assertTransition, canTransition, type ConsultationStatus } from './status.ts';

type SealedColumns = 'form_snapshot_enc' | 'renewal_details_enc' | 'decision_reason_enc';

/**
 * A consultation as the module hands it out: form_snapshot (the answers it was made from) and
 * renewal_details (the renewal's answers, change note and verdict) are sealed at rest
 * (`*_enc`, src/lib/sealed.ts) and opened here, so callers read them as before.
 */
export type ConsultationRow = Omit<ConsultationsRow, SealedColumns | 'decision_reason'> & { decision_reason: string };

/**
 * Opens the sealed columns of a consultation row (any row with them; a row opened already passes
 * unchanged). The plaintext column wins while it holds a value: a row not sealed yet.
 */
export function openConsultation<R extends Pick<ConsultationsRow, 'form_snapshot' | 'renewal_details'> & Partial<Pick<ConsultationsRow, SealedColumns | 'decision_reason'>>>(
  q: Queryable,
  row: R,
): Omit<R, SealedColumns | 'decision_reason'> & { decision_reason: string } {
  const { form_snapshot_enc, renewal_details_enc, decision_reason_enc, ...rest } = row;
  return {
    ...rest,
    form_snapshot: readJson(q, rest.form_snapshot, form_snapshot_enc, []),
    renewal_details: readJson(q, rest.renewal_details, renewal_details_enc, null),
    // The doctor's note (migration 1231): sealed; '' when none was written.
    decision_reason: readText(q, row.decision_reason, decision_reason_enc, ''),
  } as Omit<R, SealedColumns | 'decision_reason'> & { decision_reason: string };
}

const opened = <R extends Pick<ConsultationsRow, 'form_snapshot' | 'renewal_details'> & Partial<Pick<ConsultationsRow, SealedColumns>>>(q: Queryable, row: R | undefined) =>
  row ? openConsultation(q, row) : null;

export interface NewConsultation {
  userId: string;
  category: string;
  plan: 'one_off' | 'subscription';
  origin: 'checkout' | 'subscription_covered' | 'renewal' | 'early_order' | 'express_reorder';
  supplyDays: number | null;
  treatmentId: string;
  dosage: string;
  submissionId?: string | null;
  subscriptionId?: string | null;
  checkoutSessionId?: string | null;
  /** Defaults to the submission's answers. */
  formSnapshot?: unknown[];
  status?: 'pending_review';
  patientChoiceStatus?: string | null;
  renewalDetails?: unknown;
  /** The plan period a renewal or early order belongs to (one renewal per period). */
  renewalPeriodEnd?: Date | null;
  /** The partner pharmacy the patient collects at (null: delivery), passed on to the order. */
  collectionPharmacyId?: string | null;
}

/** Inserts a consultation (pending_review) inside the caller's transaction; returns the row. */
export async function insertConsultation(q: Queryable, input: NewConsultation): Promise<ConsultationRow> {
  let snapshot = input.formSnapshot;
  let images: StoredImage[] = [];
  if (!snapshot && input.submissionId) {
    const s = await forAccount(q, input.userId)
      .selectFrom('questionnaire_submissions')
      .select(['answers', 'answers_enc', 'version_id'])
      .where('id', '=', input.submissionId)
      .executeTakeFirst();
    const answers = s ? readJson(q, s.answers, s.answers_enc, []) : [];
    snapshot = Array.isArray(answers) ? (answers as unknown[]) : [];
    if (s) images = await submissionImages(q, input.userId, s.version_id, snapshot);
  }
  const row = await sqlOf(q)
    .insertInto('consultations')
    .values({
      user_id: input.userId,
      category: input.category,
      status: 'pending_review',
      origin: input.origin,
      plan: input.plan,
      supply_days: input.supplyDays,
      treatment_id: input.treatmentId,
      dosage: input.dosage,
      form_snapshot: null,
      form_snapshot_enc: sealJson(q, snapshot ?? []),
      images: JSON.stringify(images),
      questionnaire_submission_id: input.submissionId ?? null,
      subscription_id: input.subscriptionId ?? null,
      checkout_session_id: input.checkoutSessionId ?? null,
      collection_pharmacy_id: input.collectionPharmacyId ?? null,
      patient_choice_status: input.patientChoiceStatus ?? null,
      renewal_details: null,
      renewal_details_enc: input.renewalDetails === undefined ? null : sealJson(q, input.renewalDetails),
      ...(input.renewalPeriodEnd ? { renewal_period_end: input.renewalPeriodEnd } : {}),
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return openConsultation(q, row);
}

/**
 * A consultation's image as stored in its `images` column: the photo's id and when it was taken
 * (clinical_photos, the photos module). Its `url` is made when it is served (repository.ts).
 */
export interface StoredImage {
  id: string;
  created_at: string;
}

/**
 * The photos a submission's photo answers name (`values`: {"<photo id>": "<view>"}), oldest first,
 * read from the account's own photos: the images a consultation made from it starts with.
 */
async function submissionImages(q: Queryable, userId: string, versionId: string, answers: unknown[]): Promise<StoredImage[]> {
  const photoKeys = new Set((getVersion(versionId)?.steps ?? []).flatMap((st) => st.questions.filter((x) => x.type === 'photo').map((x) => x.question_key)));
  if (photoKeys.size === 0) return [];
  const ids = answers.flatMap((a) => {
    if (typeof a !== 'object' || a === null) return [];
    const { question_key: key, values } = a as { question_key?: unknown; values?: unknown };
    return typeof key === 'string' && photoKeys.has(key) && typeof values === 'object' && values !== null ? Object.keys(values) : [];
  });
  if (ids.length === 0) return [];
  const rows = await forAccount(q, userId).selectFrom('clinical_photos').select(['id', 'created_at']).where('id', 'in', ids).orderBy('created_at').orderBy('id').execute();
  return rows.map((r) => ({ id: r.id, created_at: new Date(r.created_at).toISOString() }));
}

/** One of the account's consultations, locked for adding an image (its status decides whether it may). */
export async function lockConsultationForImage(q: Queryable, userId: string, id: string) {
  return forAccount(q, userId).selectFrom('consultations').select(['id', 'status', 'category']).where('id', '=', id).forUpdate().executeTakeFirst();
}

/** Appends an image to one of the account's consultations (locked by the caller). */
export async function appendConsultationImage(q: Queryable, userId: string, id: string, image: StoredImage): Promise<void> {
  await forAccount(q, userId)
    .updateTable('consultations')
    .set({ images: sql<string>`consultations.images || ${JSON.stringify([image])}::jsonb` })
    .where('id', '=', id)
    .execute();
}

/** Whether one of the account's consultations shows this photo (what lets the desk open it). */
export async function consultationShowsImage(q: Queryable, userId: string, photoId: string): Promise<boolean> {
  const row = await forAccount(q, userId)
    .selectFrom('consultations')
    .select('id')
    .where(sql<boolean>`consultations.images @> ${JSON.stringify([{ id: photoId }])}::jsonb`)
    .executeTakeFirst();
  return row !== undefined;
}

/** The account's consultations of a category that show images, newest first, with their answers (the desk's comparison). */
export async function imagesOfCategory(q: Queryable, userId: string, category: string) {
  const rows = await forAccount(q, userId)
    .selectFrom('consultations')
    .select(['id', 'created_at', 'images', 'form_snapshot', 'form_snapshot_enc'])
    .where('category', '=', category)
    .where(sql<boolean>`jsonb_array_length(consultations.images) > 0`)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
  return rows.map((r) => ({
    id: r.id,
    created_at: new Date(r.created_at),
    images: Array.isArray(r.images) ? (r.images as unknown[]) : [],
    form_snapshot: readJson(q, r.form_snapshot, r.form_snapshot_enc, []),
  }));
}

/** Account erasure: the consultations (kept) no longer list photos (deleted with the account's data). */
export async function clearConsultationImages(q: Queryable, userId: string): Promise<void> {
  await forAccount(q, userId).updateTable('consultations').set({ images: '[]' }).where(sql<boolean>`jsonb_array_length(consultations.images) > 0`).execute();
}

/** Columns a status move may set along with the status. */
export type ConsultationFields = Pick<ConsultationsUpdate, 'doctor_id' | 'decided_at' | 'treatment_id' | 'dosage'> & { decision_reason?: string };

/** Locks one of the account's consultations for a status move. */
async function lockOwnStatus(q: Queryable, userId: string, id: string) {
  return forAccount(q, userId).selectFrom('consultations').select(['id', 'status', 'user_id']).where('id', '=', id).forUpdate().executeTakeFirst();
}

/** Locks any patient's consultation for the review desk's move. */
async function lockStatusForClinician(q: Queryable, id: string) {
  return sqlOf(q).selectFrom('consultations').select(['id', 'status', 'user_id']).where('id', '=', id).forUpdate().executeTakeFirst();
}

async function writeStatus(q: Queryable, id: string, userId: string, from: string, to: ConsultationStatus, fields: ConsultationFields): Promise<ConsultationRow> {
  const { decision_reason: note, ...rest } = fields;
  const defined = Object.fromEntries(Object.entries(rest).filter(([, v]) => v !== undefined)) as Omit<ConsultationFields, 'decision_reason'>;
  // The doctor's note is stored sealed (migration 1231); an empty note is none.
  const sealedNote = note === undefined ? {} : { decision_reason: null, decision_reason_enc: note ? sealText(q, note) : null };
  const row = await forAccount(q, userId)
    .updateTable('consultations')
    .set({ ...defined, ...sealedNote, status: to, updated_at: sql<Date>`now()` })
    .where('id', '=', id)
    .where('status', '=', from)
    .returningAll()
    .executeTakeFirstOrThrow();
  return openConsultation(q, row);
}

/**
 * The status machine's write for one of the account's consultations (locked FOR UPDATE inside the
 * caller's transaction). 404-like null when it is not the account's; 409 for a move the machine
 * forbids.
 */
export async function transitionConsultation(
  q: Queryable,
  userId: string,
  id: string,
  to: ConsultationStatus,
  fields: ConsultationFields = {},
): Promise<ConsultationRow | null> {
  const row = await lockOwnStatus(q, userId, id);
  if (!row) return null;
  assertTransition(row.status, to);
  return writeStatus(q, id, userId, row.status, to, fields);
}

/** Like transitionConsultation, but a move the machine forbids is skipped (null) instead of a 409. */
export async function transitionConsultationIfAllowed(
  q: Queryable,
  userId: string,
  id: string,
  to: ConsultationStatus,
  fields: ConsultationFields = {},
): Promise<ConsultationRow | null> {
  const row = await lockOwnStatus(q, userId, id);
  if (!row || !canTransition(row.status, to)) return null;
  return writeStatus(q, id, userId, row.status, to, fields);
}

/** The review desk's move: a doctor decides on any patient's consultation. */
export async function transitionConsultationForClinician(q: Queryable, id: string, to: ConsultationStatus, fields: ConsultationFields = {}): Promise<ConsultationRow> {
  const row = await lockStatusForClinician(q, id);
  if (!row) throw new Error(`consultation ${id} does not exist`);
  assertTransition(row.status, to);
  return writeStatus(q, id, row.user_id, row.status, to, fields);
}

/** A consultation with its patient's contact, locked for a doctor's decision (any patient). */
export async function lockForDecisionForClinician(q: Queryable, id: string) {
  const row = await sqlOf(q)
    .selectFrom('consultations as c')
    .innerJoin('users as u', 'u.id', 'c.user_id')
    .selectAll('c')
    .select(['u.email', 'u.locale', 'u.first_name'])
    .where('c.id', '=', id)
    .forUpdate('c')
    .executeTakeFirst();
  return opened(q, row);
}

/**
 * Consultations whose doctor's question (needs_information, asked at `decided_at`) has waited
 * since before `askedBefore` (any account: the scheduler's expiry), oldest first.
 */
export async function unansweredInformationRequestsForScheduler(q: Queryable, askedBefore: Date, limit: number): Promise<string[]> {
  const rows = await sqlOf(q)
    .selectFrom('consultations')
    .select('id')
    .where('status', '=', 'needs_information')
    .where('decided_at', '<=', askedBefore)
    .orderBy('decided_at')
    .limit(limit)
    .execute();
  return rows.map((r) => r.id);
}

/** One of the account's consultations. */
export async function findConsultationForUser(q: Queryable, userId: string, id: string): Promise<ConsultationRow | null> {
  const row = await forAccount(q, userId).selectFrom('consultations').selectAll().where('id', '=', id).executeTakeFirst();
  return opened(q, row);
}

/** Any patient's consultation (the review desk). */
export async function findConsultationForClinician(q: Queryable, id: string): Promise<ConsultationRow | null> {
  const row = await sqlOf(q).selectFrom('consultations').selectAll().where('id', '=', id).executeTakeFirst();
  return opened(q, row);
}

/** The account's open renewal consultation of a plan whose choice is still pending. */
export async function pendingRenewalOf(q: Queryable, userId: string, subscriptionId: string): Promise<ConsultationRow | null> {
  const row = await forAccount(q, userId)
    .selectFrom('consultations')
    .selectAll()
    .where('subscription_id', '=', subscriptionId)
    .where('origin', '=', 'renewal')
    .where('patient_choice_status', '=', 'pending')
    .orderBy('created_at', 'desc')
    .limit(1)
    .executeTakeFirst();
  return opened(q, row);
}

/** The account's latest approved consultation in a category. */
export async function lastApprovedOf(q: Queryable, userId: string, category: string): Promise<ConsultationRow | null> {
  const row = await forAccount(q, userId)
    .selectFrom('consultations')
    .selectAll()
    .where('category', '=', category)
    .where('status', '=', 'approved')
    .orderBy('decided_at', 'desc')
    .limit(1)
    .executeTakeFirst();
  return opened(q, row);
}

/** Whether the account has a consultation in the category waiting for a doctor (not a pending renewal choice). */
export async function hasOpenReview(q: Queryable, userId: string, category: string): Promise<boolean> {
  const row = await forAccount(q, userId)
    .selectFrom('consultations')
    .select('id')
    .where('category', '=', category)
    .where('status', 'in', ['pending_review', 'needs_information', 'awaiting_call'])
    .where(sql<boolean>`coalesce(patient_choice_status, '') <> 'pending'`)
    .limit(1)
    .executeTakeFirst();
  return Boolean(row);
}

/** The account's renewal consultation locked with the patient's profile fields (the renewal confirm). */
export async function lockRenewalForUser(q: Queryable, userId: string, id: string) {
  const row = await forAccount(q, userId)
    .selectFrom('consultations as c')
    .innerJoin('users as u', 'u.id', 'c.user_id')
    .selectAll('c')
    .select(['u.gender', 'u.date_of_birth as patient_date_of_birth', 'u.country_of_residence as patient_country'])
    .where('c.id', '=', id)
    .where('c.origin', '=', 'renewal')
    .forUpdate('c')
    .executeTakeFirst();
  return opened(q, row);
}

/** Renewal fields of one of the account's consultations (never its status). */
export type RenewalFields = Pick<ConsultationsUpdate, 'patient_choice_status' | 'treatment_id' | 'dosage' | 'renewal_period_end' | 'collection_pharmacy_id'> & {
  renewal_details?: unknown;
  form_snapshot?: unknown[];
};

export async function updateRenewalFields(q: Queryable, userId: string, id: string, fields: RenewalFields): Promise<void> {
  const { renewal_details, form_snapshot, ...rest } = fields;
  await forAccount(q, userId)
    .updateTable('consultations')
    .set({
      ...rest,
      ...(renewal_details !== undefined ? { renewal_details: null, renewal_details_enc: sealJson(q, renewal_details) } : {}),
      ...(form_snapshot !== undefined ? { form_snapshot: null, form_snapshot_enc: sealJson(q, form_snapshot) } : {}),
      updated_at: sql<Date>`now()`,
    })
    .where('id', '=', id)
    .execute();
}

/** A postponed plan period: the open renewal of that period moves with it. */
export async function moveRenewalPeriod(q: Queryable, userId: string, subscriptionId: string, from: Date, to: Date): Promise<void> {
  await forAccount(q, userId)
    .updateTable('consultations')
    .set({ renewal_period_end: to, updated_at: sql<Date>`now()` })
    .where('subscription_id', '=', subscriptionId)
    .where('origin', '=', 'renewal')
    .where('renewal_period_end', '=', from)
    .execute();
}

/**
 * The account's approvals of one treatment (newest first, at most 100): the prescribing rules'
 * supply history.
 */
export async function approvalsOf(q: Queryable, userId: string, category: string, treatmentId: string) {
  return forAccount(q, userId)
    .selectFrom('consultations')
    .select(['dosage', 'decided_at', 'supply_days'])
    .where('category', '=', category)
    .where('treatment_id', '=', treatmentId)
    .where('status', '=', 'approved')
    .where('decided_at', 'is not', null)
    .orderBy('decided_at', 'desc')
    .orderBy('created_at', 'desc')
    .limit(100)
    .execute();
}

/** The patient's default shipping address (the order of an approval). */
export async function patientAddresses(q: Queryable, userId: string): Promise<Pick<UsersRow, 'addresses'> | null> {
  const row = await sqlOf(q).selectFrom('users').select('addresses').where('id', '=', userId).executeTakeFirst();
  return row ?? null;
}

export async function insertOverride(
  q: Queryable,
  o: { consultationId: string; doctorId: string; treatmentId: string; dosage: string; reason: string; codes: string[]; allowed: Record<string, unknown> },
): Promise<string> {
  const row = await sqlOf(q)
    .insertInto('prescribing_overrides')
    .values({
      consultation_id: o.consultationId,
      doctor_id: o.doctorId,
      treatment_id: o.treatmentId,
      dosage: o.dosage,
      reason: o.reason,
      engine_codes: JSON.stringify(o.codes),
      engine_allowed: JSON.stringify(o.allowed),
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

export async function overrideOf(q: Queryable, consultationId: string): Promise<PrescribingOverridesRow | null> {
  const row = await sqlOf(q).selectFrom('prescribing_overrides').selectAll().where('consultation_id', '=', consultationId).executeTakeFirst();
  return row ?? null;
}

/**
 * Back to the review queue once the patient has answered: the account's `needs_information`
 * consultations (one when `consultationId` is given; all of them for a message, which names no
 * consultation) move to `pending_review` through the machine. Returns the ids moved.
 */
export async function resumeReview(q: Queryable, userId: string, consultationId?: string): Promise<string[]> {
  let query = forAccount(q, userId).selectFrom('consultations').select(['id', 'status']).where('status', '=', 'needs_information');
  if (consultationId !== undefined) query = query.where('id', '=', consultationId);
  const waiting = await query.orderBy('id').forUpdate().execute();
  const moved: string[] = [];
  for (const c of waiting) {
    assertTransition(c.status, 'pending_review');
    await writeStatus(q, c.id, userId, c.status, 'pending_review', {});
    moved.push(c.id);
  }
  return moved;
}

/** The account's live plan on one treatment (read for the prescribing rules; subscriptions owns the table). */
export async function livePlanOnTreatment(q: Queryable, userId: string, category: string, treatmentId: string) {
  const row = await forAccount(q, userId)
    .selectFrom('subscriptions')
    .select(['dosage', 'started_at', 'current_period_end'])
    .where('category', '=', category)
    .where('treatment_id', '=', treatmentId)
    .where('status', 'in', ['active', 'past_due', 'paused'])
    .orderBy('created_at', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row ?? null;
}

/** One of the account's questionnaire submissions (the engine's stored verdict). */
export async function submissionOf(q: Queryable, userId: string, submissionId: string) {
  const row = await forAccount(q, userId)
    .selectFrom('questionnaire_submissions')
    .select(['id', 'version_id', 'answers', 'answers_enc', 'outcome', 'result', 'created_at'])
    .where('id', '=', submissionId)
    .executeTakeFirst();
  if (!row) return null;
  const { answers_enc, ...rest } = row;
  return { ...rest, answers: readJson(q, rest.answers, answers_enc, []) };
}

/** The account's consultations still waiting for a doctor (cancelled or refunded on erasure). */
export async function openConsultationsOfAccount(q: Queryable, userId: string): Promise<string[]> {
  const rows = await forAccount(q, userId).selectFrom('consultations').select('id').where('status', 'in', ['pending_review', 'needs_information', 'awaiting_call']).execute();
  return rows.map((r) => r.id);
}
