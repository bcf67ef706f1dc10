// Verification (docs/verification.md): the patient's identity check and photo on the scales, the
// desk's queues and decisions, and the identity provider's own pages (sandbox page, vendor webhook).
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { bearerSecurity, currentUser } from '../../http/auth.ts';
import { ApiError, DetailCodeSchema, DetailSchema, ErrorCodeSchema, FieldErrorsSchema, UnauthorisedResponses, fail } from '../../http/errors.ts';
import { fields, notFoundDetail } from '../../http/operation.ts';
import { pageSchema, PageQuery, respondPage } from '../../http/pagination.ts';
import type { ModuleOptions, ZodApp } from '../../http/plugin.ts';
import { registerIdentityWebhook, registerSandboxIdentityPages, type UploadedImage } from '../../identity-providers/index.ts';
import { MAX_IMAGE_BYTES } from '../../lib/images.ts';
import { logStaffRead } from '../audit/index.ts';
import { DeskIdentity, DeskWeight, IdentityDecision, StartIdentityBody, StartIdentityResponse, VerificationStatusSchema, WeightDecision, WeightSubmitted } from './schemas.ts';
import * as verification from './service.ts';

const unauthorised = UnauthorisedResponses;
const staffErrors = { ...UnauthorisedResponses, 403: DetailCodeSchema };
const IdParams = z.object({ id: z.uuid() });
const ImageResponse = z.string().meta({ description: 'The photo (JPEG, re-encoded without metadata)', format: 'binary' });

/** A multipart photo upload: the `file` part and the `weight_kg` field. */
async function readWeightForm(request: FastifyRequest): Promise<{ file?: UploadedImage; weightKg?: string }> {
  if (!request.isMultipart()) throw fail('photo_required');
  const out: { file?: UploadedImage; weightKg?: string } = {};
  try {
    for await (const part of request.parts({ limits: { fileSize: MAX_IMAGE_BYTES, files: 1, fields: 4, fieldSize: 64 } })) {
      if (part.type === 'file') {
        const data = await part.toBuffer();
        if (part.fieldname === 'file') out.file = { data, truncated: part.file.truncated };
      } else if (part.fieldname === 'weight_kg') {
        out.weightKg = String(part.value);
      }
    }
  } catch (err: unknown) {
    const code = err !== null && typeof err === 'object' && 'code' in err ? err.code : undefined;
    if (code === 'FST_REQ_FILE_TOO_LARGE') throw fail('image_too_large');
    if (err instanceof ApiError) throw err;
    throw fail('invalid_multipart');
  }
  return out;
}

function multipartBodyIsReadLater(request: FastifyRequest, _reply: FastifyReply, done: () => void): void {
  if (request.isMultipart() || request.body === undefined || request.body === null) (request as { body: unknown }).body = {};
  done();
}

const sendImage = (reply: FastifyReply, data: Buffer) => reply.header('content-type', 'image/jpeg').header('cache-control', 'private, no-store').header('content-disposition', 'inline').send(data);

export default function verificationModule(app: ZodApp, { deps }: ModuleOptions): Promise<void> {
  // Two weeks before a plan's verified weight expires, the patient is told (notifications).
  deps.scheduler.register('verification.due', async () => {
    await verification.raiseVerificationDue(deps);
  });

  const r = app.withTypeProvider<ZodTypeProvider>();
  const patient = { tags: ['verification'], security: bearerSecurity };
  const desk = { tags: ['clinician'], security: bearerSecurity };

  r.get(
    '/v1/users/verification/',
    {
      config: { operation: { id: 'getVerification', descriptions: { 200: 'The identity check, the verified weight and what each category still needs' } } },
      schema: {
        ...patient,
        summary: 'Identity and weight verification: state and what is missing',
        description:
          'status: not_started, pending, verified, needs_review (the desk decides: the document and the profile differ, or the provider asked for a person) or rejected. A verified identity resets to not_started when the profile’s name or birth date changes. A verified weight counts for 180 days from its photo (`due_at`). `requirements` lists per category what a doctor’s approval requires and what is missing (docs/verification.md).',
        response: { 200: VerificationStatusSchema, ...unauthorised },
      },
    },
    async (request) => verification.verificationStatus(deps, currentUser(request).id),
  );

  r.post(
    '/v1/users/verification/identity/',
    {
      config: {
        operation: {
          id: 'startIdentityVerification',
          errors: { 400: [fields], 409: [{ detail_code: ['identity_already_verified'] }], 503: [{ detail_code: ['identity_provider_unavailable'] }] },
          descriptions: { 201: 'A session with the identity provider (an open one is answered again)', 409: 'Already verified for the current name and birth date', 503: 'The provider did not answer' },
          requestExample: {},
        },
      },
      schema: {
        ...patient,
        summary: 'Start an identity check (ID photo and selfie with the identity provider)',
        description:
          'Answers the provider’s page (`verification_url`): with IDENTITY_PROVIDER=sandbox a page of this service (upload an ID photo and a selfie, confirm the name and birth date as the document gives them), otherwise the vendor’s hosted flow. The result arrives by the provider (sandbox page, vendor webhook): a name or birth date that differs from the profile goes to the desk (needs_review).',
        body: StartIdentityBody,
        response: { 201: StartIdentityResponse, 400: FieldErrorsSchema, ...unauthorised, 409: DetailCodeSchema, 503: DetailCodeSchema },
      },
    },
    async (request, reply) => {
      const out = await verification.startIdentity(deps, currentUser(request).id, request.body ?? {});
      return reply.code(201).send(out);
    },
  );

  r.post(
    '/v1/users/verification/weight/',
    {
      config: {
        operation: {
          id: 'submitWeightVerification',
          errors: { 400: [{ detail_code: ['photo_required', 'unsupported_image', 'image_unreadable'] }, { error: ['invalid_multipart'] }, fields], 413: [{ detail_code: ['image_too_large'] }] },
          descriptions: { 201: 'The photo waits for the desk' },
          multipartForm: {
            properties: {
              file: { type: 'string', format: 'binary', maxLength: MAX_IMAGE_BYTES, description: 'A photo of the patient on the scales with the reading visible: JPEG, PNG, WebP or HEIC (by its bytes), at most 15 MiB' },
              weight_kg: { type: 'string', maxLength: 6, pattern: '^\\d{1,3}(\\.\\d{1,2})?$', description: 'The reading, in kilograms (20-500)' },
            },
            required: ['file', 'weight_kg'],
          },
        },
      },
      preValidation: multipartBodyIsReadLater,
      schema: {
        ...patient,
        summary: 'Send a photo on the scales (multipart `file` and `weight_kg`) for the desk to verify',
        description:
          'The photo is checked by its content, re-encoded without metadata (EXIF, GPS) and kept sealed in the file store. A doctor reads the scales and verifies or rejects it; a verified weight enters the journal marked verified and counts for 180 days.',
        response: { 201: WeightSubmitted, 400: z.union([DetailCodeSchema, ErrorCodeSchema, FieldErrorsSchema]), ...unauthorised, 413: DetailCodeSchema },
      },
    },
    async (request, reply) => {
      const form = await readWeightForm(request);
      const out = await verification.submitWeight(deps, currentUser(request).id, { file: form.file, weightKg: form.weightKg });
      return reply.code(201).send(out);
    },
  );

  // ---------------------------------------------------------------- the desk

  r.get(
    '/v1/clinician/identity-verifications/',
    {
      config: { operation: { id: 'listIdentityVerifications', descriptions: { 200: 'A page of identity checks, oldest first' } } },
      schema: {
        ...desk,
        summary: 'Identity checks for the desk (default: needs_review)',
        description: 'Each with the profile, what the document says, the fields that differ, the sandbox images and duplicate-identity signals. Every patient listed gets an access-log entry.',
        querystring: PageQuery.extend({ status: z.enum(['needs_review', 'verified', 'rejected', 'pending']).optional() }),
        response: { 200: pageSchema(DeskIdentity), ...staffErrors },
      },
    },
    async (request) => {
      const page = await respondPage(request, deps.config.PUBLIC_BASE_URL, ({ limit, offset }) => verification.identityQueue(deps, request.query.status ?? 'needs_review', limit, offset));
      await logStaffRead(deps, request, 'verification', page.results.map((v) => v.id));
      return page;
    },
  );

  r.post(
    '/v1/clinician/identity-verifications/:id/decide/',
    {
      config: {
        operation: {
          id: 'decideIdentityVerification',
          errors: { 400: [fields], 404: [notFoundDetail], 409: [{ detail_code: ['verification_already_decided'] }] },
          descriptions: { 200: 'Decided', 409: 'Not waiting for the desk' },
          requestExample: { decision: 'verified', reason: 'Married name on the document; the birth date matches.' },
        },
      },
      schema: { ...desk, summary: 'Decide an identity check that needs review', params: IdParams, body: IdentityDecision, response: { 200: DeskIdentity, 400: FieldErrorsSchema, ...staffErrors, 404: DetailSchema, 409: DetailCodeSchema } },
    },
    async (request) => {
      const out = await verification.decideIdentity(deps, currentUser(request).id, request.params.id, request.body);
      await logStaffRead(deps, request, 'verification', out.id);
      return out;
    },
  );

  r.get(
    '/v1/clinician/identity-verifications/:id/images/:kind/',
    {
      config: { operation: { id: 'getIdentityVerificationImage', errors: { 404: [notFoundDetail] }, binary: ['image/jpeg'], descriptions: { 200: 'The image' } } },
      schema: { ...desk, summary: 'An identity check’s ID photo or selfie', params: IdParams.extend({ kind: z.enum(['id_photo', 'selfie']) }), response: { 200: ImageResponse, ...staffErrors, 404: DetailSchema } },
    },
    async (request, reply) => {
      const img = await verification.identityImage(deps, request.params.id, request.params.kind);
      await logStaffRead(deps, request, 'verification', request.params.id);
      return sendImage(reply, img.data);
    },
  );

  r.get(
    '/v1/clinician/weight-verifications/',
    {
      config: { operation: { id: 'listWeightVerifications', descriptions: { 200: 'A page of photos on the scales, oldest first' } } },
      schema: {
        ...desk,
        summary: 'Photos on the scales for the desk (default: pending)',
        description: 'Every patient listed gets an access-log entry.',
        querystring: PageQuery.extend({ status: z.enum(['pending', 'verified', 'rejected']).optional() }),
        response: { 200: pageSchema(DeskWeight), ...staffErrors },
      },
    },
    async (request) => {
      const page = await respondPage(request, deps.config.PUBLIC_BASE_URL, ({ limit, offset }) => verification.weightQueue(deps, request.query.status ?? 'pending', limit, offset));
      await logStaffRead(deps, request, 'verification', page.results.map((v) => v.id));
      return page;
    },
  );

  r.post(
    '/v1/clinician/weight-verifications/:id/decide/',
    {
      config: {
        operation: {
          id: 'decideWeightVerification',
          errors: { 400: [fields], 404: [notFoundDetail], 409: [{ detail_code: ['verification_already_decided'] }] },
          descriptions: { 200: 'Decided (verified: the weight is in the journal, marked verified)', 409: 'Already decided' },
          requestExample: { decision: 'verified', weight_kg: 104.2 },
        },
      },
      schema: {
        ...desk,
        summary: 'Verify or reject a photo on the scales',
        description: '`verified` needs `weight_kg` (the reading on the scales): it enters the patient’s journal on the day of the photo, marked verified by this doctor. `rejected` needs a `reason`.',
        params: IdParams,
        body: WeightDecision,
        response: { 200: DeskWeight, 400: FieldErrorsSchema, ...staffErrors, 404: DetailSchema, 409: DetailCodeSchema },
      },
    },
    async (request) => {
      const out = await verification.decideWeight(deps, currentUser(request).id, request.params.id, request.body);
      await logStaffRead(deps, request, 'verification', out.id);
      return out;
    },
  );

  r.get(
    '/v1/clinician/weight-verifications/:id/photo/',
    {
      config: { operation: { id: 'getWeightVerificationPhoto', errors: { 404: [notFoundDetail] }, binary: ['image/jpeg'], descriptions: { 200: 'The photo' } } },
      schema: { ...desk, summary: 'A photo on the scales', params: IdParams, response: { 200: ImageResponse, ...staffErrors, 404: DetailSchema } },
    },
    async (request, reply) => {
      const img = await verification.weightPhoto(deps, request.params.id);
      await logStaffRead(deps, request, 'verification', request.params.id);
      return sendImage(reply, img.data);
    },
  );

  if (deps.config.IDENTITY_PROVIDER === 'sandbox') registerSandboxIdentityPages(app, deps, verification.sandboxIdentityPort(deps));
  registerIdentityWebhook(app, deps, { receive: (provider, event) => verification.identityWebhookPort(deps).receive(provider, event) });
  return Promise.resolve();
}
