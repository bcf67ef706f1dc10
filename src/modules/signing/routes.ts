// The prescriber's details over HTTP (docs/prescriptions.md): a doctor sees what their prescriptions
// and their signing certificate name, and changes their professional telephone. Qualification and
// licence number are changed by the back office (CLI), which rotates the signing identity.
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { ModuleOptions, ZodApp } from '../../http/plugin.ts';
import { bearerSecurity, currentUser } from '../../http/auth.ts';
import { DetailCodeSchema, DetailSchema, FieldErrorsSchema, TokenErrorSchema } from '../../http/errors.ts';
import { fields, notFoundDetail } from '../../http/operation.ts';
import { prescriberDetails, updatePrescriberPhone } from './prescriber.ts';

const ts = z.iso.datetime({ offset: true });

export const SigningCertificateSchema = z
  .object({
    provider: z.enum(['sandbox', 'csc']),
    serial_number: z.string().meta({ description: 'Certificate serial number (hex)' }),
    sha256: z.string().meta({ description: 'SHA-256 fingerprint of the certificate (DER), lower-case hex' }),
    subject: z.string().meta({ description: 'The subject as the certificate names it (CN, title = qualification, serialNumber = licence number, O)' }),
    not_after: ts,
    status: z.enum(['active', 'rotated', 'revoked']).meta({ description: 'rotated: retired, what it signed still verifies; revoked: what it signed no longer verifies' }),
  })
  .meta({ id: 'SigningCertificate' });

const PrescriberSchema = z
  .object({
    first_name: z.string(),
    last_name: z.string(),
    email: z.string().meta({ description: 'The direct contact e-mail printed on prescriptions' }),
    licence_number: z.string().nullable().meta({ description: 'Licence (registration) number: in the certificate subject (serialNumber) and on the page. Changed by the back office only.' }),
    qualification: z.string().meta({ description: 'Professional qualification: in the certificate subject (title) and on the page. Changed by the back office only.' }),
    qualification_is_default: z.boolean().meta({ description: 'true: none recorded, the default "Medical doctor (physician)" is printed' }),
    phone: z.string().nullable().meta({ description: 'The doctor’s professional telephone (E.164), editable by the doctor; null: the service’s number is printed' }),
    phone_printed: z.string().nullable().meta({ description: 'The telephone the next prescription prints (phone, else SELLER_PHONE)' }),
    certificate: SigningCertificateSchema.nullable().meta({ description: 'The active signing certificate; null until the first signature (or after a rotation)' }),
  })
  .meta({ id: 'PrescriberDetails' });

// Registers routes synchronously; the Promise is Fastify's plugin contract.
export default function signingModule(app: ZodApp, { deps }: ModuleOptions): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const desk = { tags: ['clinician'], security: bearerSecurity };
  const staffErrors = { 401: TokenErrorSchema, 403: DetailCodeSchema };

  r.get(
    '/v1/clinician/prescriber/',
    {
      config: { operation: { id: 'getPrescriberDetails', errors: { 404: [notFoundDetail] }, descriptions: { 200: 'What the doctor’s prescriptions and signing certificate name' } } },
      schema: {
        ...desk,
        summary: 'My prescriber details (printed on prescriptions, named in the signing certificate)',
        description: 'Name, e-mail, licence number, qualification, telephone and the active signing certificate (serial, fingerprint, subject, expiry). 404 for an account that is not a doctor.',
        response: { 200: PrescriberSchema, 404: DetailSchema, ...staffErrors },
      },
    },
    async (request) => prescriberDetails(deps, currentUser(request).id),
  );

  r.patch(
    '/v1/clinician/prescriber/',
    {
      config: { operation: { id: 'updatePrescriberDetails', errors: { 400: [fields], 404: [notFoundDetail] }, descriptions: { 200: 'The prescriber details after the change' }, requestExample: { phone: '+49 30 1234567' } } },
      schema: {
        ...desk,
        summary: 'Change my professional telephone',
        description:
          '`phone` with its international prefix (stored as E.164; null or empty: the service’s number is printed). Only the telephone is the doctor’s to change: qualification and licence number are verified credentials, changed by the back office (`npm run cli -- set-prescriber`), which rotates the signing certificate; sending them is a 400.',
        body: z.strictObject({ phone: z.string().max(32).nullable() }),
        response: { 200: PrescriberSchema, 400: FieldErrorsSchema, 404: DetailSchema, ...staffErrors },
      },
    },
    async (request) => updatePrescriberPhone(deps, currentUser(request).id, request.body.phone),
  );
  return Promise.resolve();
}
