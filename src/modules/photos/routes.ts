// Clinical photos (spec 2.3 `images`; docs/photos.md): uploads by the patient (a questionnaire's photo
// question, an open consultation), the bytes for the patient and for the desk.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { ModuleOptions, ZodApp } from '../../http/plugin.ts';
import { bearerSecurity, currentUser } from '../../http/auth.ts';
import { ApiError, DetailCodeSchema, DetailSchema, ErrorCodeSchema, ErrorNameSchema, FieldErrorsSchema, UnauthorisedResponses, fail, fieldErrors } from '../../http/errors.ts';
import { fields, notFoundDetail } from '../../http/operation.ts';
import { refuseNul } from '../../http/input-guard.ts';
import { MAX_IMAGE_BYTES } from '../../lib/images.ts';
import { logStaffRead } from '../audit/index.ts';
import { pickLocale } from '../questionnaires/index.ts';
import { ConsultationParams, ImageOutSchema, PhotoBytes, PhotoIdParams, QuestionnairePhotoSchema, SlugParams } from './schemas.ts';
import * as photos from './service.ts';

const unauthorised = UnauthorisedResponses;
const MIB = 1024 * 1024;
const SWEEP_INTERVAL_MS = 3600 * 1000;
const IMAGE_TYPES = 'image/jpeg, image/png, image/webp, image/heic, image/heif';
const FILE_PART = { type: 'string', format: 'binary', maxLength: MAX_IMAGE_BYTES, description: `A photo: JPEG, PNG, WebP or HEIC by its bytes (never by name), at most ${MAX_IMAGE_BYTES / MIB} MiB and 50 megapixels; re-encoded to JPEG without EXIF or GPS` };

/** Reads the multipart parts of a photo upload: `file` (with the size limit) and `question_key`. */
async function readPhotoForm(request: FastifyRequest): Promise<{ upload?: photos.PhotoUpload; questionKey?: string }> {
  if (!request.isMultipart()) throw fieldErrors({ file: ['Send the photo as multipart/form-data in the part "file".'] });
  let upload: photos.PhotoUpload | undefined;
  let questionKey: string | undefined;
  try {
    for await (const part of request.parts({ limits: { fileSize: MAX_IMAGE_BYTES, files: 1 } })) {
      if (part.type === 'file') {
        const data = await part.toBuffer();
        if (part.fieldname === 'file') upload = { data, truncated: part.file.truncated };
      } else if (part.fieldname === 'question_key') {
        questionKey = String(part.value);
        refuseNul('question_key', questionKey);
      }
    }
  } catch (err: unknown) {
    const code = err !== null && typeof err === 'object' && 'code' in err ? err.code : undefined;
    if (code === 'FST_REQ_FILE_TOO_LARGE') throw fail('file_too_large', { message: `The photo is larger than ${MAX_IMAGE_BYTES / MIB} MiB.` });
    if (code === 'FST_FILES_LIMIT') throw fail('too_many_files');
    if (err instanceof ApiError) throw err;
    throw fail('invalid_multipart');
  }
  return { upload, questionKey };
}

function sendPhoto(reply: FastifyReply, id: string, photo: { data: Buffer; contentType: string }) {
  // Health data: never kept by a browser or a proxy, never sniffed as anything but the JPEG it is.
  reply.header('content-type', photo.contentType);
  reply.header('cache-control', 'no-store');
  reply.header('x-content-type-options', 'nosniff');
  reply.header('content-disposition', `inline; filename="photo-${id.slice(0, 8)}.jpg"`);
  return reply.send(photo.data);
}

// Registers routes synchronously; the promise is Fastify's async-plugin contract (nothing to await).
export default function photosModule(app: ZodApp, { deps }: ModuleOptions): Promise<void> {
  // Photos of questionnaires that never became a consultation are deleted after their retention
  // period (docs/photos.md, "Retention"); at most once an hour per process (the scheduler ticks each minute).
  let lastSweep: number | undefined;
  deps.scheduler.register('photos.retention.draft-photos', async () => {
    const now = deps.clock.now().getTime();
    if (lastSweep !== undefined && now >= lastSweep && now - lastSweep < SWEEP_INTERVAL_MS) return;
    lastSweep = now;
    const deleted = await photos.sweepDraftPhotos(deps);
    if (deleted > 0) deps.log.info({ job: 'photos.retention.draft-photos', deleted }, 'retention: draft photos past their period deleted');
  });

  const r = app.withTypeProvider<ZodTypeProvider>();
  const patient = { tags: ['photos'], security: bearerSecurity };
  const doctor = { tags: ['clinician'], security: bearerSecurity };

  r.post(
    '/v1/users/questionnaires/:slug/photos/',
    {
      config: {
        operation: {
          id: 'uploadQuestionnairePhoto',
          errors: {
            400: [{ error: ['too_many_files', 'invalid_multipart'] }, { error_name: ['SERVICE_NOT_AVAILABLE_IN_COUNTRY'] }, fields],
            404: [notFoundDetail],
            413: [{ error: ['file_too_large'] }],
          },
          descriptions: { 201: 'Stored: the photo’s id for the draft answer, and its address' },
          multipartForm: {
            properties: { file: FILE_PART, question_key: { type: 'string', maxLength: 100, description: 'A `photo` question of the category’s current questionnaire' } },
            required: ['file', 'question_key'],
            encoding: { file: { contentType: IMAGE_TYPES } },
          },
        },
      },
      schema: {
        ...patient,
        summary: 'Upload a photo for a questionnaire’s photo question (multipart `file`, `question_key`)',
        description:
          'The draft answer of the question then names the photo: `{"step_id", "question_key", "values": {"<photo id>": "<view>"}}`, at most the question’s `max_photos`; submitting needs `min_photos`. Only the account’s own photos of that question are accepted in the answer. On checkout the photos become the consultation’s `images`.',
        params: SlugParams,
        response: { 201: QuestionnairePhotoSchema, 400: ErrorCodeSchema.or(ErrorNameSchema).or(FieldErrorsSchema), 404: DetailSchema, 413: ErrorCodeSchema, ...unauthorised },
      },
    },
    async (request, reply) => {
      const userId = currentUser(request).id;
      const form = await readPhotoForm(request);
      const locale = pickLocale(undefined, request.headers['accept-language']);
      return reply.code(201).send(await photos.uploadForQuestion(deps, userId, request.params.slug, form.questionKey, form.upload, locale));
    },
  );

  r.post(
    '/v1/users/consultations/:id/images/',
    {
      config: {
        operation: {
          id: 'addConsultationImage',
          errors: {
            400: [{ error: ['too_many_files', 'invalid_multipart'] }, fields],
            404: [notFoundDetail],
            409: [{ detail_code: ['consultation_closed'] }],
            413: [{ error: ['file_too_large'] }],
          },
          descriptions: { 201: 'Added to the consultation’s `images`' },
          multipartForm: { properties: { file: FILE_PART }, required: ['file'], encoding: { file: { contentType: IMAGE_TYPES } } },
        },
      },
      schema: {
        ...patient,
        summary: 'Add a photo to an open consultation (multipart `file`)',
        description:
          'While the consultation waits for a doctor (`pending_review`, `awaiting_call`, or `needs_information`: it then goes back to review, as a message does). An approved, rejected, cancelled or refunded consultation answers 409 `consultation_closed`: send a message instead.',
        params: ConsultationParams,
        response: { 201: ImageOutSchema, 400: ErrorCodeSchema.or(FieldErrorsSchema), 404: DetailSchema, 409: DetailCodeSchema, 413: ErrorCodeSchema, ...unauthorised },
      },
    },
    async (request, reply) => {
      const form = await readPhotoForm(request);
      return reply.code(201).send(await photos.uploadForConsultation(deps, currentUser(request).id, request.params.id, form.upload));
    },
  );

  r.get(
    '/v1/users/photos/:id/',
    {
      config: {
        operation: {
          id: 'downloadPhoto',
          errors: { 404: [notFoundDetail] },
          binary: ['image/jpeg'],
          descriptions: { 200: 'The photo (image/jpeg, `Cache-Control: no-store`)' },
        },
      },
      schema: { ...patient, summary: 'A photo’s bytes (its patient only: any other account gets 404)', params: PhotoIdParams, response: { 200: PhotoBytes, 404: DetailSchema, ...unauthorised } },
    },
    async (request, reply) => sendPhoto(reply, request.params.id, await photos.photoForPatient(deps, currentUser(request).id, request.params.id)),
  );

  r.get(
    '/v1/clinician/photos/:id/',
    {
      config: {
        operation: {
          id: 'downloadPhotoForClinician',
          errors: { 404: [notFoundDetail] },
          binary: ['image/jpeg'],
          descriptions: { 200: 'The photo (image/jpeg, `Cache-Control: no-store`); written to the patient’s access log' },
        },
      },
      schema: { ...doctor, summary: 'A photo a consultation shows (doctors)', params: PhotoIdParams, response: { 200: PhotoBytes, 404: DetailSchema, ...unauthorised } },
    },
    async (request, reply) => {
      const photo = await photos.photoForStaff(deps, request.params.id);
      await logStaffRead(deps, request, 'clinical_photo', request.params.id);
      return sendPhoto(reply, request.params.id, photo);
    },
  );

  return Promise.resolve();
}

