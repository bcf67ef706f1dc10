// The clinician review desk (/v1/clinician/, doctors only; a patient token gets 403
// {detail, code: "permission_denied"}). Decisions go through consultations/service.ts.
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { App } from '../../app.ts';
import type { Deps } from '../../deps.ts';
import { bearerSecurity, currentUser } from '../../http/auth.ts';
import { DetailCodeSchema, DetailSchema, FieldErrorsSchema, TokenErrorSchema } from '../../http/errors.ts';
import { PageQuery, pageSchema, respondPage } from '../../http/pagination.ts';
import { ConsultationSchema } from '../consultations/schemas.ts';
import { approveConsultation, rejectConsultation, requestInformation } from '../consultations/service.ts';
import { CONSULTATION_STATUSES } from '../consultations/status.ts';
import { consultationForReview, reviewQueue } from './service.ts';

const IdParams = z.object({ id: z.uuid() });
const staffErrors = { 401: TokenErrorSchema, 403: DetailCodeSchema };

const TreatmentOption = z.object({ id: z.string(), name: z.string(), dosages: z.array(z.string()) });
const ClinicianConsultation = ConsultationSchema.extend({
  treatment_options: z.array(TreatmentOption).meta({ description: 'Treatments and dosage ladders of the category the doctor may prescribe' }),
}).meta({ id: 'ClinicianConsultation' });

const ApproveBody = z.object({
  treatment_id: z.string().min(1).max(255).optional().meta({ description: "Default: the consultation's treatment" }),
  dosage: z.string().min(1).max(255).optional().meta({ description: 'Must be a step of the treatment’s dosage ladder' }),
  note: z.string().max(2000).optional().meta({ description: 'Stored as decision_reason' }),
  instructions: z.string().max(2000).optional().meta({ description: 'Printed on the prescription' }),
});
const ReasonBody = z.object({ decision_reason: z.string().trim().min(1).max(2000) });

export default async function clinicianModule(app: App, deps: Deps): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();

  const detail = (id: string) => consultationForReview(deps, id);

  r.get(
    '/v1/clinician/consultations/',
    {
      schema: {
        tags: ['clinician'],
        summary: 'Review queue',
        description: 'Consultations, oldest first (the queue order). Filter with `status` (e.g. pending_review) and `category`.',
        security: bearerSecurity,
        querystring: PageQuery.extend({ status: z.enum(CONSULTATION_STATUSES).optional(), category: z.string().max(64).optional() }),
        response: { 200: pageSchema(ConsultationSchema), 400: FieldErrorsSchema, ...staffErrors },
      },
    },
    async (request) => {
      return respondPage(request, deps.config.PUBLIC_BASE_URL, ({ limit, offset }) => reviewQueue(deps, { status: request.query.status, category: request.query.category, limit, offset }));
    },
  );

  r.get(
    '/v1/clinician/consultations/:id/',
    {
      schema: {
        tags: ['clinician'],
        summary: 'A consultation with its submission and eligibility result',
        security: bearerSecurity,
        params: IdParams,
        response: { 200: ClinicianConsultation, ...staffErrors, 404: DetailSchema },
      },
    },
    async (request) => detail(request.params.id),
  );

  const decision = { 200: ClinicianConsultation, 400: FieldErrorsSchema, ...staffErrors, 404: DetailSchema, 409: DetailCodeSchema };

  r.post(
    '/v1/clinician/consultations/:id/approve/',
    {
      schema: {
        tags: ['clinician'],
        summary: 'Approve: issues a prescription and an order',
        description: 'From pending_review or needs_information; otherwise 409 invalid_status_transition. treatment_id must be in the category, dosage on its ladder (400 field errors). Emails the patient; audit-logged.',
        security: bearerSecurity,
        params: IdParams,
        body: ApproveBody,
        response: decision,
      },
    },
    async (request) => {
      await approveConsultation(deps, { doctorId: currentUser(request).id, consultationId: request.params.id, treatmentId: request.body.treatment_id, dosage: request.body.dosage, note: request.body.note, instructions: request.body.instructions });
      return detail(request.params.id);
    },
  );

  r.post(
    '/v1/clinician/consultations/:id/reject/',
    {
      schema: { tags: ['clinician'], summary: 'Reject with a reason', description: 'Emails the patient (no health details); audit-logged.', security: bearerSecurity, params: IdParams, body: ReasonBody, response: decision },
    },
    async (request) => {
      await rejectConsultation(deps, { doctorId: currentUser(request).id, consultationId: request.params.id, reason: request.body.decision_reason });
      return detail(request.params.id);
    },
  );

  r.post(
    '/v1/clinician/consultations/:id/request-information/',
    {
      schema: { tags: ['clinician'], summary: 'Ask the patient for more information', description: 'Status needs_information; decision_reason holds the question. Emails the patient; audit-logged.', security: bearerSecurity, params: IdParams, body: ReasonBody, response: decision },
    },
    async (request) => {
      await requestInformation(deps, { doctorId: currentUser(request).id, consultationId: request.params.id, reason: request.body.decision_reason });
      return detail(request.params.id);
    },
  );
}
