// The clinician review desk (/v1/clinician/, doctors only; a patient token gets 403
// {detail, code: "permission_denied"}). Decisions go through the consultations module (its status machine).
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { ModuleOptions, ZodApp } from '../../http/plugin.ts';
import { bearerSecurity, currentUser } from '../../http/auth.ts';
import { DetailCodeSchema, DetailSchema, ErrorNameSchema, FieldErrorsSchema, TokenErrorSchema } from '../../http/errors.ts';
import { explicitOrder, pageSchema, respondPage } from '../../http/pagination.ts';
import { QUEUE_ORDERING } from './service.ts';
import { CONSULTATION_STATUSES, ConsultationSchema, requestInformation } from '../consultations/index.ts';
import { logStaffRead } from '../audit/index.ts';
import { DeskPhotosSchema } from '../photos/index.ts';
import { RenewalChoiceSchema, RenewalRedFlagSchema, RenewalVerdictSchema } from './schemas.ts';
import { DeskVerification, VerificationRequiredSchema } from '../verification/index.ts';
import { approveForClinician, consultationForReview, expireUnansweredRequests, rejectForClinician, reviewQueue } from './service.ts';
import { fields, notFoundDetail, transitionConflict } from '../../http/operation.ts';

const IdParams = z.object({ id: z.uuid() });
const staffErrors = { 401: TokenErrorSchema, 403: DetailCodeSchema };

const TreatmentOption = z.object({
  id: z.string(),
  name: z.string(),
  dosages: z.array(z.string()),
  max_repeats: z.number().int().meta({ description: 'The most repeats the approval may state for it (the catalogue’s, per its posology; 0 in a plan’s consultation)' }),
});
const WeightPoint = z.object({ weight_kg: z.number(), logged_on: z.string() });
const AnswerValue = z
  .union([z.string(), z.number(), z.boolean(), z.array(z.string())])
  .nullable()
  .meta({ description: 'The answer: a value, the chosen options of a multiple choice (sorted), or null when the question was not answered' });
const EarlierSubmission = z
  .object({
    id: z.uuid(),
    outcome: z.string().meta({ description: 'eligible, ineligible, emergency or held_for_review' }),
    created_at: z.string(),
    version_id: z.string(),
    reason_codes: z.array(z.string()).meta({ description: "The engine's reasons for that outcome" }),
    changed_answers: z
      .array(z.object({ question_key: z.string(), before: AnswerValue, after: AnswerValue, deciding: z.boolean().meta({ description: 'One of the answers whose change held this consultation for review' }) }))
      .meta({ description: 'Answers that differ from this consultation’s submission: before (that submission), after (this one)' }),
  })
  .meta({ id: 'EarlierSubmission' });

const ClinicianConsultation = ConsultationSchema.extend({
  ...DeskPhotosSchema,
  treatment_options: z.array(TreatmentOption).meta({ description: 'Treatments and dosage ladders of the category the doctor may prescribe' }),
  prescribing_check: z
    .object({
      evaluated_at: z.string(),
      ok: z.boolean(),
      reason_codes: z.array(z.string()),
      override_codes: z.array(z.string()).meta({ description: 'Every rule an override would lift (exclusions, strength limits, the starting dose, titration)' }),
      absolute_codes: z.array(z.string()).meta({ description: 'Absolute contraindications among them: no override lifts these (409 absolute_contraindication)' }),
      allowed_treatments: z.array(z.string()),
      allowed_dosages: z.array(z.string()),
      explanation: z.array(z.string()),
    })
    .nullable()
    .meta({ description: "The engine's verdict now on the consultation's treatment and dose: approving outside it needs `override_reason`, and nothing lifts an absolute contraindication" }),
  prescribing_override: z
    .object({ doctor_id: z.uuid(), treatment_id: z.string(), dosage: z.string(), reason: z.string(), reason_codes: z.array(z.string()), created_at: z.string() })
    .nullable()
    .meta({ description: 'The approval outside what the engine allowed: the doctor, the written clinical reason and the engine codes it overrode' }),
  renewal: z
    .object({
      patient_choice_status: z.string().nullable(),
      choice: RenewalChoiceSchema.nullable(),
      verdict: RenewalVerdictSchema.nullable(),
      red_flags: z.array(RenewalRedFlagSchema).meta({ description: 'Red flags raised on this renewal screen (nothing was confirmed then)' }),
      latest_weight: WeightPoint.nullable(),
      weight_trend: z
        .object({ from: WeightPoint, to: WeightPoint, entries: z.number().int(), days: z.number().int(), change_kg: z.number(), change_percent: z.number(), kg_per_week: z.number().nullable() })
        .nullable(),
    })
    .nullable()
    .meta({ description: 'Renewals and early orders: the patient’s choice, the engine’s explanation, the journal weight and its trend over 90 days' }),
  verification: DeskVerification.meta({ description: 'The patient’s identity and weight verification against what the category requires, duplicate-identity signals, and the warning when something is missing' }),
  gp_sharing: z
    .object({
      level: z.enum(['required', 'recommended', 'none']).meta({ description: 'The category’s GP letter level (catalogue/prescribing): `required` needs the consent and a GP (or `gp_sharing_override_reason`) to approve' }),
      consent: z.boolean().meta({ description: 'The patient’s latest `gp_sharing` consent is a grant' }),
      gp_on_file: z.boolean().meta({ description: 'The profile names the patient’s own doctor with an e-mail address' }),
      letter: z
        .object({ id: z.uuid(), status: z.enum(['queued', 'sent', 'withheld']), sent_at: z.string().nullable(), withheld_reason: z.string().nullable() })
        .nullable()
        .meta({ description: 'This consultation’s letter: queued at the approval, sent by the job, withheld when the consent was withdrawn before it went' }),
      override_reason: z.string().nullable().meta({ description: 'The doctor’s reason for approving a `required` category without the consent or a GP' }),
    })
    .meta({ description: 'Letters to the patient’s own doctor (docs/interoperability.md)' }),
  earlier_submissions: z
    .array(EarlierSubmission)
    .meta({ description: 'The patient’s submissions of the same category before this consultation’s submission (the last 5, newest first) with what changed; empty without a submission (a renewal)' }),
}).meta({ id: 'ClinicianConsultation' });

const ApproveBody = z.object({
  treatment_id: z.string().min(1).max(255).optional().meta({ description: "Default: the consultation's treatment" }),
  dosage: z.string().min(1).max(255).optional().meta({ description: 'Must be a step of the treatment’s dosage ladder' }),
  note: z.string().max(2000).optional().meta({ description: 'Stored as decision_reason' }),
  instructions: z.string().max(2000).optional().meta({ description: 'Printed on the prescription' }),
  override_reason: z
    .string()
    .trim()
    .min(20)
    .max(2000)
    .optional()
    .meta({ description: 'Required to approve a treatment or dose outside what the engine allowed (`prescribing_check`): the written clinical reason, recorded with the doctor’s id' }),
  gp_sharing_override_reason: z
    .string()
    .trim()
    .min(20)
    .max(2000)
    .optional()
    .meta({ description: 'Required to approve a category whose GP letters are `required` (`gp_sharing.level`) when the patient has not consented to sharing with their own doctor or named none: why it is safe to prescribe without (GMC good practice in prescribing, para 20(d)). Recorded with the doctor’s id, sealed at rest, shown as `gp_sharing.override_reason`' }),
  repeats: z
    .number()
    .int()
    .min(0)
    .max(12)
    .optional()
    .meta({ description: 'Dispensings after the first (default 0: dispensed once); at most the medicine’s `max_repeats` (catalogue), none in a plan’s consultation (its renewals supply it); printed and signed' }),
  repeat_interval_days: z.number().int().min(1).max(365).optional().meta({ description: 'Required with repeats: the minimum days between two dispensings (the pharmacy desk refuses an earlier one, 409 `repeat_too_early`); the last repeat must fall within the prescription’s validity' }),
});
const OverrideRequiredSchema = z
  .object({ detail: z.string(), code: z.literal('override_required'), reason_codes: z.array(z.string()), allowed_treatments: z.array(z.string()), allowed_dosages: z.array(z.string()) })
  .catchall(z.unknown());
const AbsoluteContraindicationSchema = z
  .object({ error: z.string(), code: z.literal('absolute_contraindication'), reason_codes: z.array(z.string()), treatment_id: z.string(), dosage: z.string(), allowed_treatments: z.array(z.string()), allowed_dosages: z.array(z.string()) })
  .meta({ id: 'AbsoluteContraindication', description: 'An absolute contraindication (the prescribing catalogue’s `absolute` list): no override lifts it' });
const ReasonBody = z.object({ decision_reason: z.string().trim().min(1).max(2000) });

// Registers routes synchronously; the Promise is Fastify's plugin contract.
export default function clinicianModule(app: ZodApp, { deps }: ModuleOptions): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();

  const detail = (id: string) => consultationForReview(deps, id);
  // A doctor's question unanswered for 14 days ends the review, refunded (docs/consultations.md).
  deps.scheduler.register('consultations.expire-information-requests', () => expireUnansweredRequests(deps));

  r.get(
    '/v1/clinician/consultations/',
    {
      config: {
        operation: { id: 'listReviewQueue', errors: { 400: [fields] }, descriptions: { 200: 'A page of consultations' } },
      },
      schema: {
        tags: ['clinician'],
        summary: 'Review queue',
        description: 'Consultations, oldest first (the queue order). Filter with `status` (e.g. pending_review) and `category`.',
        security: bearerSecurity,
        querystring: QUEUE_ORDERING.query.extend({ status: z.enum(CONSULTATION_STATUSES).optional(), category: z.string().max(64).optional() }),
        response: { 200: pageSchema(ConsultationSchema), 400: FieldErrorsSchema, ...staffErrors },
      },
    },
    async (request) => {
      const order = explicitOrder(request.query, QUEUE_ORDERING);
      const page = await respondPage(request, deps.config.PUBLIC_BASE_URL, ({ limit, offset }) => reviewQueue(deps, { status: request.query.status, category: request.query.category, limit, offset, order }));
      await logStaffRead(deps, request, 'consultation', page.results.map((c) => c.id));
      return page;
    },
  );

  r.get(
    '/v1/clinician/consultations/:id/',
    {
      config: {
        operation: { id: 'getConsultationForReview', errors: { 404: [notFoundDetail] }, descriptions: { 200: 'The consultation with its submission and eligibility result' } },
      },
      schema: {
        tags: ['clinician'],
        summary: 'A consultation with its submission and eligibility result',
        security: bearerSecurity,
        params: IdParams,
        response: { 200: ClinicianConsultation, ...staffErrors, 404: DetailSchema },
      },
    },
    async (request) => {
      const c = await detail(request.params.id);
      await logStaffRead(deps, request, 'consultation', c.id);
      if (c.renewal) await logStaffRead(deps, request, 'journal', c.user.id);
      return c;
    },
  );

  const decision = { 200: ClinicianConsultation, 400: FieldErrorsSchema.or(OverrideRequiredSchema).or(ErrorNameSchema), ...staffErrors, 404: DetailSchema, 409: DetailCodeSchema.or(AbsoluteContraindicationSchema) };

  r.post(
    '/v1/clinician/consultations/:id/approve/',
    {
      config: {
        operation: {
          id: 'approveConsultation',
          errors: {
            400: [fields, { detail_code: ['override_required'] }, { error_name: ['TREATMENT_WINDOW_PASSED'] }],
            403: [{ detail_code: ['permission_denied', 'second_factor_required_to_sign'] }],
            404: [notFoundDetail],
            409: [{ detail_code: ['invalid_status_transition', 'patient_choice_not_confirmed', 'gp_consent_required'] }, { error: ['absolute_contraindication'] }, { code: ['verification_required'] }],
            503: [{ detail_code: ['signing_unavailable'] }],
          },
          descriptions: {
            200: 'Approved: the consultation with its prescription, signed by the doctor',
            403: 'Not a doctor, or (STAFF_MFA=required) a session that did not pass the second factor: the prescription cannot be signed',
            409: 'Not pending review, a renewal the patient has not confirmed, an absolute contraindication no override lifts, the category’s verification is incomplete (PATIENT_VERIFICATION=required), or a category whose GP letters are required without the patient’s consent or GP and without `gp_sharing_override_reason` (`gp_consent_required` {missing: consent, gp or consent_and_gp})',
            503: 'The signing provider is unavailable: nothing was approved',
          } },
      },
      schema: {
        tags: ['clinician'],
        summary: 'Approve: issues a signed prescription and an order',
        description:
          'From pending_review or needs_information; otherwise 409 invalid_status_transition. treatment_id must be in the category, dosage on its ladder (400 field errors). A treatment or dose outside what the engine allowed (excluded treatment, a first supply above the first ladder step, a step up after a break in supply...) is 400 `override_required` with `reason_codes` unless `override_reason` is given; the override is recorded with the doctor’s id and every rule it lifts, and shown as `prescribing_override`. An absolute contraindication (nitrates or riociguat with a PDE5 inhibitor, serotonergic drugs with dapoxetine, finasteride for women, MTC/MEN2 with a GLP-1...) is 409 `absolute_contraindication` even with an `override_reason`. Emergency contraception re-checks the hours since unprotected sex at approval (400 TREATMENT_WINDOW_PASSED {reason_codes, allowed_treatments}). With PATIENT_VERIFICATION=required, a patient whose verification the category requires is incomplete (identity; weight loss also a verified weight at most 180 days old) is 409 `verification_required` {missing} before anything else (docs/verification.md). A category whose letters to the patient’s own doctor are `required` (weight loss; `gp_sharing.level`) needs the patient’s `gp_sharing` consent and a GP on the profile, else 409 `gp_consent_required` {missing} unless `gp_sharing_override_reason` is given (recorded, sealed); renewals follow the same rule. With the consent and a GP, a `required` or `recommended` category’s approval queues one letter to the GP (docs/interoperability.md). Emails the patient; audit-logged.',
        security: bearerSecurity,
        params: IdParams,
        body: ApproveBody,
        response: { ...decision, 409: DetailCodeSchema.or(AbsoluteContraindicationSchema).or(VerificationRequiredSchema), 503: DetailCodeSchema },
      },
    },
    async (request) => {
      await approveForClinician(deps, {
        doctorId: currentUser(request).id,
        consultationId: request.params.id,
        treatmentId: request.body.treatment_id,
        dosage: request.body.dosage,
        note: request.body.note,
        instructions: request.body.instructions,
        overrideReason: request.body.override_reason,
        gpSharingOverrideReason: request.body.gp_sharing_override_reason,
        repeats: request.body.repeats,
        repeatIntervalDays: request.body.repeat_interval_days,
        session: { secondFactor: currentUser(request).second_factor },
      });
      return detail(request.params.id);
    },
  );

  r.post(
    '/v1/clinician/consultations/:id/reject/',
    {
      config: {
        operation: { id: 'rejectConsultation', errors: { 400: [fields], 404: [notFoundDetail], ...transitionConflict, 502: [{ detail_code: ['refund_failed'] }] }, descriptions: { 200: 'Rejected (a paid consultation: refunded in full)', 502: 'The payment provider refused the refund: nothing was decided' } },
      },
      schema: { tags: ['clinician'], summary: 'Reject with a reason', description: 'A paid first consultation or early order is refunded in full through the payment provider and the plan its checkout opened is canceled (never charged again); no order is created. A rejected renewal ends its plan at the period end. Emails the patient (no health details); audit-logged. 502 refund_failed when the provider refuses the refund: nothing is decided.', security: bearerSecurity, params: IdParams, body: ReasonBody, response: { ...decision, 502: DetailCodeSchema } },
    },
    async (request) => {
      await rejectForClinician(deps, { doctorId: currentUser(request).id, consultationId: request.params.id, reason: request.body.decision_reason });
      return detail(request.params.id);
    },
  );

  r.post(
    '/v1/clinician/consultations/:id/request-information/',
    {
      config: {
        operation: { id: 'requestConsultationInformation', errors: { 400: [fields], 404: [notFoundDetail], ...transitionConflict }, descriptions: { 200: 'Waiting for the patient' } },
      },
      schema: { tags: ['clinician'], summary: 'Ask the patient for more information', description: 'Status needs_information; decision_reason holds the question. Emails the patient; audit-logged.', security: bearerSecurity, params: IdParams, body: ReasonBody, response: decision },
    },
    async (request) => {
      await requestInformation(deps, { doctorId: currentUser(request).id, consultationId: request.params.id, reason: request.body.decision_reason });
      return detail(request.params.id);
    },
  );
  return Promise.resolve();
}
