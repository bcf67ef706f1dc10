// The desks' view of one prescription and its signature (docs/prescriptions.md): the doctor's
// consultation view and the pharmacy desk's "verify a prescription" by its code. Both are staff
// reads of a patient's record: logged in the patient's access log.
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Deps } from '../../deps.ts';
import { bearerSecurity } from '../../http/auth.ts';
import { DetailCodeSchema, DetailSchema, TokenErrorSchema } from '../../http/errors.ts';
import { notFoundDetail } from '../../http/operation.ts';
import type { ZodApp } from '../../http/plugin.ts';
import { logStaffRead } from '../audit/index.ts';
import { prescriptionForDesk, StaffPrescriptionSchema } from './staff-signature.ts';

const IdParams = z.object({ id: z.uuid() });
const staffErrors = { 401: TokenErrorSchema, 403: DetailCodeSchema, 404: DetailSchema };

export function staffSignatureRoutes(app: ZodApp, deps: Deps): void {
  const r = app.withTypeProvider<ZodTypeProvider>();
  for (const [desk, id, tag, summary] of [
    ['clinician', 'getPrescriptionForDoctor', 'clinician', 'A prescription with its signature: who signed, their qualification, when, the certificate (serial, fingerprint, valid or revoked)'],
    ['pharmacy', 'getPrescriptionForPharmacist', 'pharmacy', 'Verify a prescription by its code: the stored file verified, who signed, status, dispensings and the orders to dispense'],
  ] as const) {
    r.get(
      `/v1/${desk}/prescriptions/:id/`,
      {
        config: { operation: { id, errors: { 404: [notFoundDetail] }, descriptions: { 200: 'The prescription, its signature and the verification of its file' } } },
        schema: { tags: [tag], summary, security: bearerSecurity, params: IdParams, response: { 200: StaffPrescriptionSchema, ...staffErrors } },
      },
      async (request) => {
        const rx = await prescriptionForDesk(deps, request.params.id);
        await logStaffRead(deps, request, 'prescription', rx.id);
        return rx;
      },
    );
  }
}
