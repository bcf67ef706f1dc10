// The verification module's request and response shapes (one source: validation, serialisation and
// the OpenAPI document).
import { z } from 'zod';

export const VERIFICATION_STATUSES = ['not_started', 'pending', 'verified', 'needs_review', 'rejected'] as const;
const Status = z.enum(VERIFICATION_STATUSES);
const Requirement = z.enum(['identity', 'weight']);

export const IdentityState = z
  .object({ status: Status, checked_at: z.string().nullable().meta({ description: 'When the provider or the desk last decided (null while not started or pending)' }) })
  .meta({ id: 'IdentityVerificationState' });
export const WeightState = z
  .object({
    status: Status.meta({ description: 'The newest photo’s state; `not_started` again once the newest verified weight is past `due_at`' }),
    weight_kg: z.number().nullable().meta({ description: 'The newest verified weight' }),
    verified_at: z.string().nullable(),
    due_at: z.string().nullable().meta({ description: 'When a new photo on the scales is needed (180 days after the photo of the newest verified weight)' }),
  })
  .meta({ id: 'WeightVerificationState' });

export const VerificationStatusSchema = z
  .object({
    identity: IdentityState,
    weight: WeightState,
    requirements: z
      .array(z.object({ category: z.string(), required: z.array(Requirement), missing: z.array(Requirement) }))
      .meta({ description: 'Per category: what a doctor’s approval requires (catalogue/verification.json) and what the patient has still to do' }),
  })
  .meta({ id: 'VerificationStatus' });

export const StartIdentityBody = z
  .object({ return_url: z.string().max(2000).optional().meta({ description: 'A page of the web app the provider sends the browser back to (default: its verification page)' }) })
  .optional();
export const StartIdentityResponse = z
  .object({ status: z.literal('pending'), verification_url: z.string().meta({ description: 'Where the patient photographs the document and takes the selfie' }) })
  .meta({ id: 'IdentityVerificationStarted' });

export const WeightSubmitted = z.object({ id: z.uuid(), status: z.literal('pending') }).meta({ id: 'WeightVerificationSubmitted' });

const Signal = z
  .object({ kind: z.enum(['identity_document', 'card', 'delivery_address']), account_ids: z.array(z.uuid()).meta({ description: 'Other accounts (at most 20)' }) })
  .meta({ id: 'DuplicateSignal', description: 'Other accounts with the same identity document (keyed hash), payment card (provider fingerprint) or delivery address' });
export const DuplicateSignals = z.array(Signal);

export const DeskIdentity = z
  .object({
    id: z.uuid(),
    user_id: z.uuid(),
    provider: z.string(),
    status: z.string(),
    profile: z.object({ first_name: z.string(), last_name: z.string(), date_of_birth: z.string().nullable() }),
    document: z.object({ first_name: z.string(), last_name: z.string(), date_of_birth: z.string(), document_type: z.string().nullable(), issuing_country: z.string().nullable() }).nullable(),
    mismatches: z.array(z.string()).meta({ description: 'Profile fields the document contradicts: first_name, last_name, date_of_birth' }),
    provider_reason: z.string(),
    images: z.object({ id_photo_url: z.string().nullable(), selfie_url: z.string().nullable() }).meta({ description: 'The sandbox’s uploads (a vendor keeps its own)' }),
    duplicate_signals: DuplicateSignals,
    decided_by: z.uuid().nullable(),
    decision_reason: z.string(),
    checked_at: z.string().nullable(),
    created_at: z.string(),
  })
  .meta({ id: 'DeskIdentityVerification' });

export const DeskWeight = z
  .object({
    id: z.uuid(),
    user: z.object({ id: z.uuid(), first_name: z.string(), last_name: z.string(), date_of_birth: z.string().nullable() }),
    status: z.enum(['pending', 'verified', 'rejected']),
    claimed_weight_kg: z.number().meta({ description: 'What the patient typed' }),
    weight_kg: z.number().nullable().meta({ description: 'What the doctor read on the scales' }),
    method: z.enum(['photo', 'video_call']).meta({ description: 'photo: read from the patient’s photo on the scales; video_call: seen on the scales during a video call (no photo)' }),
    photo_url: z.string().nullable(),
    decided_by: z.uuid().nullable(),
    decided_at: z.string().nullable(),
    reason: z.string(),
    created_at: z.string(),
  })
  .meta({ id: 'DeskWeightVerification' });

export const IdentityDecision = z.object({ decision: z.enum(['verified', 'rejected']), reason: z.string().trim().min(1).max(2000) });
export const WeightDecision = z.object({
  decision: z.enum(['verified', 'rejected']),
  weight_kg: z.number().min(20).max(500).optional().meta({ description: 'Required to verify: the reading on the scales' }),
  reason: z.string().max(2000).optional().meta({ description: 'Required to reject (the patient is told)' }),
});

/** The desk's view beside a consultation. */
export const DeskVerification = z
  .object({
    mode: z.enum(['required', 'optional']).meta({ description: 'PATIENT_VERIFICATION: required blocks the approval (409 verification_required), optional only warns' }),
    required: z.array(Requirement),
    missing: z.array(Requirement),
    warning: z.string().nullable(),
    identity: IdentityState.extend({ id: z.uuid().nullable(), mismatches: z.array(z.string()) }),
    weight: WeightState,
    duplicate_signals: DuplicateSignals,
  })
  .meta({ id: 'ConsultationVerification' });

export const VerificationRequiredSchema = z
  .object({ code: z.literal('verification_required'), detail: z.string(), missing: z.array(Requirement) })
  .meta({ id: 'VerificationRequired', description: 'The category’s verification is not complete (PATIENT_VERIFICATION=required)' });

/** What a category still needs, as the renewal options show it. */
export const CategoryVerification = z
  .object({
    required: z.array(Requirement),
    missing: z.array(Requirement),
    weight_due_at: z.string().nullable().meta({ description: 'When the verified weight expires (weight loss); null when there is none or the category needs none' }),
    weight_expired: z.boolean().meta({ description: 'A verified weight exists but is past its 180 days: a new photo on the scales is needed' }),
    message: z.string().nullable().meta({ description: 'What to do, in English (null when nothing is missing)' }),
  })
  .meta({ id: 'CategoryVerification' });
