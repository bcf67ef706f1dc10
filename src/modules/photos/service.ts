// Clinical photos (spec 2.3 `images`; docs/photos.md): a questionnaire's photo question, a photo added
// to an open consultation, their bytes for the patient and the desk, the desk's comparison with
// earlier consultations, and the account's photos for its export and erasure.
import type { Queryable } from '../../db/index.ts';
import type { Deps } from '../../deps.ts';
import { fail, fieldErrors, notFound } from '../../http/errors.ts';
import { ImageRejectedError, MAX_IMAGE_BYTES, sanitiseImage, type SanitisedImage } from '../../lib/images.ts';
import {
  appendConsultationImage, clearConsultationImages, consultationShowsImage, findConsultationForUser, imagesOfCategory, lockConsultationForImage, OPEN_STATUSES, patientImageUrl, resumeReview,
} from '../consultations/index.ts';
import { assertCountryServed, currentVersion, getCategory, profileFacts, type Locale, type Question } from '../questionnaires/index.ts';
import * as repo from './repository.ts';
import type { PhotoRow } from './repository.ts';
import { photoStore } from './store.ts';

/** A photo as a multipart part brought it: the bytes and whether the size limit cut them. */
export interface PhotoUpload {
  data: Buffer;
  truncated: boolean;
}

export const clinicianPhotoUrl = (base: string, id: string) => `${base}/v1/clinician/photos/${id}/`;

const MIB = 1024 * 1024;

/**
 * The photo re-encoded (src/lib/images.ts): a size over the limit is 413 `file_too_large` as for a
 * message attachment; anything that is not a JPEG, PNG, WebP or HEIC by its bytes, or cannot be
 * decoded, is a field-keyed 400 on `file`.
 */
async function sanitised(upload: PhotoUpload | undefined): Promise<SanitisedImage> {
  if (!upload) throw fieldErrors({ file: ['This field is required.'] });
  if (upload.truncated || upload.data.length > MAX_IMAGE_BYTES) throw fail('file_too_large', { message: `The photo is larger than ${MAX_IMAGE_BYTES / MIB} MiB.` });
  if (upload.data.length === 0) throw fieldErrors({ file: ['The file is empty.'] });
  try {
    return await sanitiseImage(upload.data);
  } catch (err) {
    if (!(err instanceof ImageRejectedError)) throw err;
    if (err.reason === 'too_large') throw fail('file_too_large', { message: `The photo is larger than ${MAX_IMAGE_BYTES / MIB} MiB or 50 megapixels.` });
    if (err.reason === 'unsupported_type') throw fieldErrors({ file: ['Send a photo: JPEG, PNG, WebP or HEIC.'] });
    throw fieldErrors({ file: ['The photo could not be read. Take it again or send another one.'] });
  }
}

async function storePhoto(deps: Deps, q: Queryable, userId: string, category: string, questionKey: string | null, image: SanitisedImage): Promise<PhotoRow> {
  const storageKey = await photoStore(deps).put(image.data, q);
  return repo.insertPhoto(q, { userId, category, questionKey, storageKey, sizeBytes: image.data.length, width: image.width, height: image.height, at: deps.clock.now() });
}

const photoOut = (deps: Deps, p: PhotoRow) => ({ id: p.id, url: patientImageUrl(deps.config.PUBLIC_BASE_URL, p.id), created_at: new Date(p.created_at).toISOString() });

/** The photo question of the category's current questionnaire, else a field-keyed 400 on `question_key`. */
function photoQuestion(slug: string, questionKey: string | undefined): Question {
  const version = currentVersion(slug)!;
  if (!questionKey) throw fieldErrors({ question_key: ['This field is required.'] });
  const q = version.steps.flatMap((s) => s.questions).find((x) => x.question_key === questionKey);
  if (!q) throw fieldErrors({ question_key: [`Unknown question "${questionKey}" in ${slug}.`] });
  if (q.type !== 'photo') throw fieldErrors({ question_key: [`"${questionKey}" is not a photo question.`] });
  return q;
}

/**
 * A photo for a questionnaire's photo question (the draft's answer then names its id). Refused, as
 * every health answer is, to residents of a country where the service may not prescribe online.
 */
export async function uploadForQuestion(deps: Deps, userId: string, slug: string, questionKey: string | undefined, upload: PhotoUpload | undefined, locale: Locale) {
  if (!getCategory(slug)) throw notFound(`Unknown questionnaire category "${slug}".`);
  const question = photoQuestion(slug, questionKey);
  assertCountryServed((await profileFacts(deps.db, userId)).country_of_residence, locale);
  const image = await sanitised(upload);
  const row = await deps.db.tx((q) => storePhoto(deps, q, userId, slug, question.question_key, image));
  return { ...photoOut(deps, row), category: slug, question_key: question.question_key, width: row.width, height: row.height };
}

const isOpen = (status: string) => (OPEN_STATUSES as readonly string[]).includes(status);

/**
 * A photo added to one of the patient's consultations while it waits for a doctor (pending review,
 * or information requested: then it goes back to review, as a message does). Closed: 409.
 */
export async function uploadForConsultation(deps: Deps, userId: string, consultationId: string, upload: PhotoUpload | undefined) {
  // Checked before the photo is decoded, and again under the row lock.
  const found = await findConsultationForUser(deps.db, userId, consultationId);
  if (!found) throw notFound();
  if (!isOpen(found.status)) throw fail('consultation_closed');
  const image = await sanitised(upload);
  const row = await deps.db.tx(async (q) => {
    const c = await lockConsultationForImage(q, userId, consultationId);
    if (!c) throw notFound();
    if (!isOpen(c.status)) throw fail('consultation_closed');
    const stored = await storePhoto(deps, q, userId, c.category, null, image);
    await appendConsultationImage(q, userId, consultationId, { id: stored.id, created_at: new Date(stored.created_at).toISOString() });
    await resumeReview(q, userId, consultationId);
    return stored;
  });
  return photoOut(deps, row);
}

async function bytesOf(deps: Deps, p: PhotoRow) {
  return { data: await photoStore(deps).get(p.storage_key), contentType: 'image/jpeg' as const };
}

/** A photo's bytes for its own patient (another account's photo is the same 404 as none). */
export async function photoForPatient(deps: Deps, userId: string, id: string) {
  const p = await repo.photoForPatient(deps.reader, userId, id);
  if (!p) throw notFound();
  return bytesOf(deps, p);
}

/**
 * A photo's bytes for the desk: only a photo one of the patient's consultations shows (a photo on a
 * draft questionnaire is not the doctor's to see). Returns the owner for the access log.
 */
export async function photoForStaff(deps: Deps, id: string) {
  const p = await repo.photoForStaff(deps.reader, id);
  if (!p || !(await consultationShowsImage(deps.reader, p.user_id, p.id))) throw notFound();
  return bytesOf(deps, p);
}

// ---- the desk's view: each image with the view it shows, and the same views of earlier consultations

interface Answer {
  question_key?: unknown;
  values?: unknown;
}

/** photo id -> {question_key, view}, from a consultation's answers (photo answers map ids to views). */
function viewsOf(snapshot: unknown): Map<string, { question_key: string; view: string }> {
  const out = new Map<string, { question_key: string; view: string }>();
  if (!Array.isArray(snapshot)) return out;
  for (const a of snapshot as Answer[]) {
    if (typeof a?.question_key !== 'string' || typeof a.values !== 'object' || a.values === null) continue;
    for (const [id, view] of Object.entries(a.values as Record<string, unknown>)) if (typeof view === 'string') out.set(id, { question_key: a.question_key, view });
  }
  return out;
}

const viewLabels = (category: string, locale: Locale) => {
  const labels = new Map<string, string>();
  for (const v of getCategory(category)?.versions ?? []) {
    for (const q of v.steps.flatMap((s) => s.questions)) for (const view of q.views ?? []) labels.set(view.value, view.label[locale]);
  }
  return labels;
};

/**
 * The photos of a consultation for the review desk, and those of the patient's earlier consultations
 * of the same category (newest first), each with the view it shows (from the answers; null for a
 * photo added later) and the desk's address of its bytes.
 */
export async function deskPhotos(deps: Deps, c: { id: string; user_id: string; category: string; created_at: Date | string }, locale: Locale = 'en') {
  const base = deps.config.PUBLIC_BASE_URL;
  const labels = viewLabels(c.category, locale);
  const consultations = await imagesOfCategory(deps.db, c.user_id, c.category);
  const until = new Date(c.created_at).getTime();
  const shown = (row: (typeof consultations)[number]) => {
    const views = viewsOf(row.form_snapshot);
    return row.images.flatMap((i) => {
      if (typeof i !== 'object' || i === null) return [];
      const { id, created_at: createdAt } = i as { id?: unknown; created_at?: unknown };
      if (typeof id !== 'string' || typeof createdAt !== 'string') return [];
      const v = views.get(id);
      return [{ id, url: clinicianPhotoUrl(base, id), created_at: new Date(createdAt).toISOString(), view: v?.view ?? null, view_label: v ? (labels.get(v.view) ?? v.view) : null }];
    });
  };
  const current = consultations.find((r) => r.id === c.id);
  return {
    photos: current ? shown(current) : [],
    earlier_photos: consultations
      .filter((r) => r.id !== c.id && r.created_at.getTime() < until)
      .map((r) => ({ consultation_id: r.id, created_at: r.created_at.toISOString(), photos: shown(r) })),
  };
}

// ---- the account's privacy (the privacy module)

/** The account's photos (the data export): what each is and its bytes. */
export async function photosOfAccountForExport(deps: Deps, userId: string) {
  const rows = await repo.photosOfAccount(deps.db, userId);
  return rows.map((p) => ({
    record: { id: p.id, category: p.category, question_key: p.question_key, url: patientImageUrl(deps.config.PUBLIC_BASE_URL, p.id), width: p.width, height: p.height, created_at: new Date(p.created_at).toISOString() },
    read: () => photoStore(deps).get(p.storage_key),
  }));
}

/**
 * Erasure, inside its transaction: deletes the account's photo rows (and database blobs) and empties
 * the images lists of its consultations (which are kept); returns the storage keys.
 */
export async function deleteAccountPhotos(q: Queryable, userId: string): Promise<string[]> {
  await clearConsultationImages(q, userId);
  return repo.deleteAccountPhotos(q, userId);
}

/** Erasure, after it committed: removes the photos' bytes from a bucket; a failure is logged, not thrown. */
export async function removePhotoBytes(deps: Deps, keys: readonly string[]): Promise<void> {
  for (const key of keys) {
    await photoStore(deps)
      .remove(key)
      .catch((err: unknown) => deps.log.error({ err }, 'erasure: a stored clinical photo could not be removed'));
  }
}

// ---- retention: photos of drafts that never reached a doctor

const DAY_MS = 24 * 3600 * 1000;
/** Photos per statement, and statements per run (the rest waits for the next run). */
const RETENTION_BATCH = 500;
const MAX_BATCHES_PER_RUN = 20;

/**
 * Deletes the photos uploaded for a questionnaire more than DRAFT_PHOTO_RETENTION_DAYS ago (by the
 * service clock) that no consultation shows, their database blobs with them and then their bytes in a
 * bucket. Idempotent; returns how many were deleted.
 */
export async function sweepDraftPhotos(deps: Deps): Promise<number> {
  const before = new Date(deps.clock.now().getTime() - deps.config.DRAFT_PHOTO_RETENTION_DAYS * DAY_MS);
  let total = 0;
  for (let i = 0; i < MAX_BATCHES_PER_RUN; i++) {
    const keys = await deps.db.tx((q) => repo.deleteUnattachedDraftPhotosForScheduler(q, before, RETENTION_BATCH));
    await removePhotoBytes(deps, keys);
    total += keys.length;
    if (keys.length < RETENTION_BATCH) break;
  }
  return total;
}

