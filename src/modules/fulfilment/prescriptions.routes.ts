// Signed prescriptions over HTTP (docs/prescriptions.md): the patient's prescription with its
// signature and dispensing, the sandbox CA's root, and the public verification of a prescription PDF.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Deps } from '../../deps.ts';
import { bearerSecurity, currentUser } from '../../http/auth.ts';
import { ApiError, DetailSchema, FieldErrorsSchema, TokenErrorSchema, fieldErrors, notFound } from '../../http/errors.ts';
import { fields, notFoundDetail } from '../../http/operation.ts';
import type { ZodApp } from '../../http/plugin.ts';
import { publishedCaPem } from '../signing/index.ts';
import { PrescriptionDetailSchema } from './schemas.ts';
import { prescriptionDetail, verifyPrescription, VERIFY_REASONS } from './verify.ts';

const IdParams = z.object({ id: z.uuid() });
/** A prescription PDF is some 50 KB; anything far larger is not one of ours. */
export const VERIFY_MAX_BYTES = 5 * 1024 * 1024;
const ts = z.iso.datetime({ offset: true });

export const VerificationSchema = z
  .object({
    valid: z.boolean().meta({ description: 'true only when the signature covers every byte, its certificate is a prescriber\'s and not revoked, and the prescription is not cancelled' }),
    reason: z.enum(VERIFY_REASONS).nullable().meta({ description: 'Why it is not valid (null when valid)' }),
    prescription_id: z.uuid().nullable(),
    signer: z.string().nullable(),
    signed_at: ts.nullable(),
    status: z.enum(['active', 'dispensed', 'cancelled']).nullable().meta({ description: 'The prescription now: active (may be dispensed), dispensed (as often as it allows), cancelled (reissued)' }),
    certificate_sha256: z.string().nullable(),
    dispensing: z
      .object({
        dispensings_allowed: z.number().int().meta({ description: '1 + the stated number of repeats' }),
        dispensed_count: z.number().int(),
        repeats_left: z.number().int(),
        repeat_interval_days: z.number().int().nullable().meta({ description: 'The minimum days between two dispensings (null: no repeats)' }),
        next_dispensing_from: ts.nullable().meta({ description: 'The earliest moment of the next dispensing (null: none left, or nothing holds it back)' }),
      })
      .nullable()
      .meta({ description: 'How often the prescription was dispensed and may still be, with when next (null when no prescription is named); where it was dispensed is not said here' }),
  })
  .meta({ id: 'PrescriptionVerification' });

async function readPdf(request: FastifyRequest): Promise<Buffer> {
  if (!request.isMultipart()) throw fieldErrors({ file: ['Send the PDF as multipart/form-data in a part named "file".'] });
  let data: Buffer | undefined;
  try {
    for await (const part of request.parts({ limits: { fileSize: VERIFY_MAX_BYTES, files: 1 } })) {
      if (part.type === 'file') {
        const bytes = await part.toBuffer();
        if (part.file.truncated) throw fieldErrors({ file: [`The file is larger than ${VERIFY_MAX_BYTES / 1024 / 1024} MiB: not a prescription of this service.`] });
        if (part.fieldname === 'file') data = bytes;
      }
    }
  } catch (err: unknown) {
    if (err instanceof ApiError) throw err;
    const code = err !== null && typeof err === 'object' && 'code' in err ? err.code : undefined;
    if (code === 'FST_REQ_FILE_TOO_LARGE') throw fieldErrors({ file: [`The file is larger than ${VERIFY_MAX_BYTES / 1024 / 1024} MiB: not a prescription of this service.`] });
    throw fieldErrors({ file: ['The multipart body could not be read.'] });
  }
  if (!data || data.length === 0) throw fieldErrors({ file: ['Attach the prescription PDF as "file".'] });
  return data;
}

function multipartBodyIsReadLater(request: FastifyRequest, _reply: FastifyReply, done: () => void): void {
  (request as { body: unknown }).body = {};
  done();
}

export function prescriptionRoutes(app: ZodApp, deps: Deps): void {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const base = deps.config.PUBLIC_BASE_URL;

  r.get(
    '/v1/users/prescriptions/:id/',
    {
      config: { operation: { id: 'getPrescription', errors: { 404: [notFoundDetail] }, descriptions: { 200: 'The prescription with its signature, status and dispensing' } } },
      schema: {
        tags: ['billing'],
        summary: 'One prescription of the account: signature, status (cancelled by a reissue) and dispensing (where and when)',
        security: bearerSecurity,
        params: IdParams,
        response: { 200: PrescriptionDetailSchema, 401: TokenErrorSchema, 404: DetailSchema },
      },
    },
    async (request) => prescriptionDetail(deps.reader, base, currentUser(request).id, request.params.id),
  );

  r.get(
    '/v1/prescriptions/ca/',
    {
      config: {
        access: 'public',
        operation: { id: 'getPrescriptionCa', errors: { 404: [notFoundDetail] }, binary: ['application/x-pem-file'], descriptions: { 200: 'The sandbox CA root certificate (PEM)', 404: 'Prescriptions are signed by a qualified provider (PRESCRIPTION_SIGNER=csc): check them against the EU trusted lists' } },
      },
      schema: {
        tags: ['prescriptions'],
        summary: 'The root certificate that issues the prescribers\' sandbox signing certificates (PEM; no account)',
        response: { 200: z.unknown().meta({ description: 'PEM certificate (application/x-pem-file)' }), 404: DetailSchema },
      },
    },
    async (_request, reply) => {
      const pem = await publishedCaPem(deps);
      if (!pem) throw notFound();
      return reply.type('application/x-pem-file').header('cache-control', 'public, max-age=3600').send(pem);
    },
  );

  r.post(
    '/v1/prescriptions/verify/',
    {
      config: {
        access: 'public',
        operation: {
          id: 'verifyPrescription',
          errors: { 400: [fields] },
          descriptions: { 200: 'The verdict: `valid`, and why not (`reason`), with the prescription it names' },
        },
      },
      preValidation: multipartBodyIsReadLater,
      schema: {
        tags: ['prescriptions'],
        summary: 'Verify a prescription PDF (multipart `file`; no account; rate limited per address)',
        description:
          'Checks the PAdES signature over every byte, that its certificate is a prescriber\'s of this service and not revoked, and the prescription\'s status. `valid: false` with `reason` for a changed byte (`content_changed`), an unknown (`unknown_certificate`) or revoked (`certificate_revoked`) certificate, a cancelled prescription (`prescription_cancelled`), or a file without our signature. `status: dispensed` is valid but used up: do not dispense again.',
        response: { 200: VerificationSchema, 400: FieldErrorsSchema },
      },
    },
    async (request) => verifyPrescription(deps, await readPdf(request)),
  );
}
