import { z } from 'zod';
import { PaymentSchema } from '../payments/index.ts';
import { CONSULTATION_STATUSES } from './status.ts';

const ts = z.iso.datetime({ offset: true });

export const UserSummarySchema = z
  .object({
    id: z.uuid(),
    first_name: z.string(),
    last_name: z.string(),
    email: z.string(),
    locale: z.string(),
    date_of_birth: z.string().nullable(),
    country_of_residence: z.string().nullable(),
    timezone: z.string(),
    city: z.string().nullable(),
    postal_code: z.string().nullable(),
    issuing_state: z.string(),
    document_number: z.string().nullable(),
    document_type: z.string().nullable(),
    consultation_count: z.number().int(),
    total_spent_cents: z.number().int(),
    total_refunded_cents: z.number().int(),
    net_spent_cents: z.number().int(),
    subscription_status: z.string().meta({ description: 'Status of the newest subscription (active, past_due, paused, canceled), or "none"' }),
    last_prescription_at: ts.nullable(),
    last_subscription_at: ts.nullable(),
  })
  .meta({ id: 'ConsultationUser' });

export const DoctorSchema = z
  .object({ id: z.uuid(), first_name: z.string(), last_name: z.string(), email: z.string(), doctor_license_number: z.string().nullable() })
  .meta({ id: 'ConsultationDoctor' });

export const PrescriptionSchema = z
  .object({
    id: z.uuid(),
    consultation_id: z.uuid(),
    category: z.string(),
    treatment_id: z.string(),
    treatment_name: z.string(),
    dosage: z.string(),
    instructions: z.string(),
    supply_days: z.number().int().nullable(),
    issued_at: ts,
    valid_until: ts.nullable(),
    doctor: z.object({ id: z.uuid(), first_name: z.string(), last_name: z.string(), doctor_license_number: z.string().nullable() }),
    pdf_url: z.string().meta({ description: 'Absolute address of the prescription PDF' }),
  })
  .meta({ id: 'Prescription' });

export const SubmissionSchema = z
  .object({
    id: z.uuid(),
    category: z.string(),
    version: z.uuid(),
    outcome: z.string().meta({ description: 'eligible | ineligible | emergency | held_for_review' }),
    eligibility: z.record(z.string(), z.unknown()).meta({ description: 'The eligibility engine result recorded at submission' }),
    submitted_at: ts,
  })
  .meta({ id: 'ConsultationQuestionnaireSubmission' });

export const FormItemSchema = z
  .object({
    step_id: z.number().int(),
    question_key: z.string(),
    value: z.union([z.string(), z.number(), z.boolean(), z.null()]).optional(),
    values: z.record(z.string(), z.unknown()).optional(),
  })
  .meta({ id: 'FormSnapshotItem' });

export const ImageSchema = z.object({ id: z.string(), url: z.string(), created_at: ts }).meta({ id: 'ConsultationImage' });

export const ConsultationSchema = z
  .object({
    id: z.uuid(),
    user: UserSummarySchema,
    doctor: DoctorSchema.nullable(),
    store_order_id: z.string().nullable(),
    status: z.enum(CONSULTATION_STATUSES),
    origin: z.string().meta({ description: 'checkout | subscription_covered | renewal | early_order | express_reorder' }),
    category: z.string(),
    plan: z.enum(['one_off', 'subscription']),
    supply_days: z.number().int().nullable(),
    decision_reason: z.string(),
    treatment_id: z.string(),
    dosage: z.string(),
    images: z.array(ImageSchema),
    form_snapshot: z.array(FormItemSchema),
    questionnaire_submission: SubmissionSchema.nullable(),
    subscription_id: z.uuid().nullable(),
    prescriptions: z.array(PrescriptionSchema),
    payments: z.array(PaymentSchema),
    created_at: ts,
    updated_at: ts,
    decided_at: ts.nullable(),
  })
  .meta({ id: 'Consultation' });

export type Consultation = z.infer<typeof ConsultationSchema>;
