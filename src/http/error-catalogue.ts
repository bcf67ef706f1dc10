// The one list of refusal codes a client can branch on (spec section 7): each code's HTTP status,
// its body shape and, where the text never varies, its message. Throw sites name only the code
// (`throw fail('user_inactive')`), so a code's status and shape are written once and cannot drift
// between the places that refuse with it. TypeScript rejects a code missing here;
// test/error-catalogue.test.ts fails on a code nothing uses and on any literal status+code pair
// outside this file that disagrees with it. To add a code: add its entry here, throw it with
// `fail`, and list it in the `errors` of its operation, declared on its route (`config: { operation }`,
// src/http/operation.ts; docs/api-document.md).
import { ApiError } from '../lib/api-error.ts';

/**
 * The body shapes of spec section 7 that carry a code, in their key order:
 * - `error_code`: `{error: <message>, code, ...extra}` (sign-in, registration, identity provider, messages)
 * - `error_name`: `{error_name: <code>, message, ...extra}` (registration, verification, checkout)
 * - `code`: `{code, detail?: <message>, ...extra}` (renewal options and confirmation)
 * - `detail_code`: `{detail: <message>, code, ...extra}` (permission, session and state checks, throttling)
 */
export type ErrorShape = 'error_code' | 'error_name' | 'code' | 'detail_code';

export interface ErrorEntry {
  readonly status: number;
  readonly shape: ErrorShape;
  /** The message when it is the same at every throw site; otherwise each site gives its own. */
  readonly message?: string;
  /** Headers the answer always carries. */
  readonly headers?: Readonly<Record<string, string>>;
}

const BEARER_API = { 'www-authenticate': 'Bearer realm="api"' } as const;

export const ERROR_CATALOGUE = {
  // Brand header (http/brand.ts)
  invalid_brand: { status: 400, shape: 'error_code', message: 'The X-Brand-Slug header is missing or not recognised.' },

  // Registration and email verification (accounts)
  registration_not_allowed: { status: 400, shape: 'error_code', message: 'This email address cannot be used to register a new account.' },
  REGISTRATION_RATE_LIMITED: { status: 429, shape: 'error_name', message: 'Please wait before requesting another code.' },
  REGISTRATION_EMAIL_UNDELIVERABLE: { status: 406, shape: 'error_name', message: 'Mail to this address cannot be delivered. Please use a different address.' },
  VERIFY_EMAIL_INVALID_REQUEST: { status: 400, shape: 'error_name', message: 'Both email and otp are required.' },
  VERIFY_EMAIL_INVALID_CODE: { status: 400, shape: 'error_name', message: 'The code is invalid or has expired.' },
  VERIFY_EMAIL_TOO_MANY_ATTEMPTS: { status: 429, shape: 'error_name', message: 'Too many incorrect codes. Please request a new code shortly.' },

  // Sign-in, Google sign-in, password reset (accounts)
  invalid_credentials: { status: 401, shape: 'error_code', message: 'No active account found with the given credentials.' },
  google_account: { status: 400, shape: 'error_code', message: 'This account signs in with Google. Use Google sign-in, or set a password through “Forgot password”.' },
  user_inactive: { status: 403, shape: 'error_code', message: 'This account is disabled.' },
  credential_required: { status: 400, shape: 'error_code', message: 'The Google credential is required.' },
  google_login_disabled: { status: 400, shape: 'error_code', message: 'Google sign-in is not enabled.' },
  invalid_google_credential: { status: 401, shape: 'error_code' },
  google_link_not_allowed: { status: 400, shape: 'error_code', message: 'This account cannot sign in with Google.' },
  invalid_reset_token: { status: 400, shape: 'error_code', message: 'This reset link is invalid or has expired. Request a new one.' },

  // Second factor (accounts, docs/accounts.md "Second factor")
  mfa_required: { status: 403, shape: 'error_code', message: 'Enter the code from your authenticator app to finish signing in.' },
  mfa_enrolment_required: { status: 403, shape: 'error_code', message: 'Set up a second factor to finish signing in.' },
  invalid_mfa_code: { status: 401, shape: 'error_code', message: 'The code is not correct, or it was already used.' },
  invalid_passkey: { status: 401, shape: 'error_code', message: 'The passkey could not be verified, or its challenge was already used or has expired. Try again.' },
  invalid_mfa_token: { status: 401, shape: 'error_code', message: 'This sign-in step has expired or was already used. Sign in again.' },
  mfa_already_enrolled: { status: 409, shape: 'error_code', message: 'A second factor is already set up for this account.' },
  mfa_enrolment_not_started: { status: 409, shape: 'error_code', message: 'Start the set-up first: no authenticator secret is waiting for a code.' },
  mfa_not_enrolled: { status: 409, shape: 'error_code', message: 'No second factor is set up for this account.' },
  mfa_removal_not_allowed: { status: 403, shape: 'error_code', message: 'Staff accounts must keep a second factor.' },
  reauthentication_required: {
    status: 403,
    shape: 'error_code',
    message: 'Confirm it is you first: re-authenticate with your password or a current code, then try again within 5 minutes.',
  },

  // Profile and questionnaires
  PROFILE_INCOMPLETE: { status: 400, shape: 'error_name', message: 'Complete your profile first.' },
  SERVICE_NOT_AVAILABLE_IN_COUNTRY: { status: 400, shape: 'error_name' },
  QUESTIONNAIRE_INCOMPLETE: { status: 400, shape: 'error_name' },

  // Checkout (checkout)
  SUBMISSION_REQUIRED: { status: 400, shape: 'error_name', message: 'Submit the questionnaire of this category before checkout.' },
  SUBMISSION_NOT_ELIGIBLE: { status: 400, shape: 'error_name', message: 'The latest questionnaire of this category is not eligible for treatment.' },
  PLAN_NOT_AVAILABLE: { status: 400, shape: 'error_name' },
  TREATMENT_NOT_ALLOWED: { status: 400, shape: 'error_name' },
  DOSAGE_NOT_ALLOWED: { status: 400, shape: 'error_name' },
  EC_DELIVERY_TOO_LATE: { status: 400, shape: 'error_name' },
  CONSULTATION_ALREADY_OPEN: { status: 409, shape: 'error_name', message: 'A consultation of this category is already waiting for a doctor.' },
  SUBMISSION_ALREADY_USED: { status: 409, shape: 'error_name', message: 'Submit the questionnaire again before a new consultation.' },
  sandbox_session_not_found: { status: 404, shape: 'detail_code', message: 'No checkout session with this id exists for this account.' },
  stripe_session_not_found: { status: 404, shape: 'detail_code', message: 'No checkout session with this id exists for this account.' },
  refund_failed: { status: 502, shape: 'detail_code' },

  // Review desk (consultations)
  TREATMENT_WINDOW_PASSED: { status: 400, shape: 'error_name', message: 'The time window of this treatment has passed since the questionnaire was submitted.' },
  override_required: { status: 400, shape: 'detail_code' },
  patient_choice_not_confirmed: { status: 409, shape: 'detail_code', message: 'The patient has not confirmed this renewal yet: it cannot be approved until they do.' },
  absolute_contraindication: { status: 409, shape: 'error_code' },
  // A category whose letters to the patient's own doctor are `required` (docs/interoperability.md).
  gp_consent_required: {
    status: 409,
    shape: 'detail_code',
    message: 'This category needs the patient’s consent to share with their own doctor (gp_sharing) and their doctor’s details on the profile. Ask the patient, or approve with gp_sharing_override_reason explaining why it is safe to prescribe without.',
  },

  // Any record with a state machine (consultations, checkout sessions, plans)
  invalid_status_transition: { status: 409, shape: 'detail_code' },
  // Prescription reissue requests (fulfilment)
  reissue_request_pending: { status: 409, shape: 'detail_code', message: 'A reissue request for this prescription is already waiting for a doctor.' },
  prescription_not_reissuable: { status: 409, shape: 'detail_code', message: 'This prescription is no longer valid and cannot be reissued: a new consultation is needed.' },
  // Pharmacy desk (fulfilment): an emergency contraceptive that would arrive after its window.
  delivery_too_late: {
    status: 409,
    shape: 'detail_code',
    message: 'This treatment would arrive after its time window has passed: it was not dispatched. The order is now undeliverable and the patient was told to get it locally at once.',
  },
  // An undeliverable order: reship or refund, one or the other (fulfilment, docs/pharmacy.md).
  order_refunded: { status: 409, shape: 'detail_code', message: 'This order was refunded: it cannot be reshipped or refunded again.' },
  order_not_reshippable: { status: 409, shape: 'detail_code', message: 'This order was stopped because it would arrive too late to work: it cannot be reshipped; refund it.' },
  order_not_refundable: { status: 409, shape: 'detail_code', message: 'No payment of this order holds money to refund.' },

  // Renewal options and confirmation, early order (subscriptions)
  invalid_category: { status: 400, shape: 'code' },
  invalid_renewal_answers: { status: 400, shape: 'code' },
  patient_choice_not_pending: { status: 409, shape: 'code' },
  invalid_treatment_variant: { status: 400, shape: 'code', message: 'This treatment or dosage is not in the catalogue for the category.' },
  renewal_emergency: { status: 400, shape: 'code' },
  renewal_answers_required: { status: 400, shape: 'code' },
  renewal_answer_ineligible: { status: 400, shape: 'code' },
  dose_step_not_allowed: { status: 400, shape: 'code' },
  // Why an early order is not possible (also the renewal options' `blocked_code`).
  early_order_unavailable: { status: 409, shape: 'code' },
  early_order_period_already_advanced: { status: 409, shape: 'code' },
  early_order_period_unavailable: { status: 409, shape: 'code' },
  early_order_pending_review: { status: 409, shape: 'code' },
  early_order_subscription_ending: { status: 409, shape: 'code' },
  subscription_payment_required: { status: 409, shape: 'code' },
  no_prior_treatment: { status: 409, shape: 'code' },
  test_clock_unavailable: { status: 404, shape: 'code', message: 'The test clock exists only with the sandbox payment provider.' },

  // Plan management (subscriptions)
  subscription_not_active: { status: 409, shape: 'error_code' },
  already_postponed: { status: 409, shape: 'error_code', message: 'This period was already postponed once.' },
  payment_failed: { status: 402, shape: 'error_code', message: 'The payment for the early order failed. Update the card in the billing portal and try again.' },
  // Skip, pause, delivery date and dose-change requests (docs/plan-management.md)
  subscription_ending: { status: 409, shape: 'error_code', message: 'This plan ends at the period end. Keep the plan first.' },
  renewal_rejected: { status: 409, shape: 'error_code', message: 'The doctor did not renew this plan: it ends at the period end.' },
  next_delivery_approved: { status: 409, shape: 'error_code', message: 'The next supply was already approved by the doctor and is being prepared: it can no longer be skipped or moved.' },
  already_skipped: { status: 409, shape: 'error_code', message: 'The next delivery of this period is already skipped.' },
  subscription_paused: { status: 409, shape: 'error_code', message: 'This plan is paused. Resume it first.' },
  subscription_not_paused: { status: 409, shape: 'error_code', message: 'This plan is not paused by you.' },
  managed_by_provider: { status: 409, shape: 'error_code', message: 'This plan is billed by the payment provider: manage it in the billing portal.' },
  dose_change_pending: { status: 409, shape: 'error_code', message: 'A dose change request for this plan is already waiting for a doctor.' },
  renewal_open: { status: 409, shape: 'error_code', message: 'The renewal of this plan is open: choose the dose on the renewal screen.' },
  dose_change_not_pending: { status: 409, shape: 'detail_code', message: 'This dose change request was already decided.' },
  // The public cancellation link and treatment switches (compliance, docs/compliance.md)
  cancel_link_invalid: { status: 404, shape: 'detail_code', message: 'This cancellation link is not valid.' },
  cancel_link_expired: { status: 410, shape: 'detail_code', message: 'This cancellation link has expired. Ask for a new one on the cancellation page.' },
  treatment_switch_renewal_open: { status: 409, shape: 'error_code', message: 'The renewal of this plan is open: choose the other treatment on the renewal screen.' },
  cancellation_already_reviewed: { status: 409, shape: 'detail_code', message: 'This cancellation was already reviewed.' },

  // Messages
  file_too_large: { status: 413, shape: 'error_code' },
  empty_file: { status: 400, shape: 'error_code', message: 'The file is empty.' },
  unsupported_file_type: { status: 400, shape: 'error_code', message: 'Only PDF, JPEG, PNG and HEIC files can be sent.' },
  content_too_long: { status: 400, shape: 'error_code' },
  content_or_file_required: { status: 400, shape: 'error_code', message: 'Either content or file is required.' },
  content_required: { status: 400, shape: 'error_code', message: 'A reply needs content.' },
  too_many_files: { status: 400, shape: 'error_code', message: 'Send one file per message.' },
  invalid_multipart: { status: 400, shape: 'error_code', message: 'The multipart body could not be read.' },

  // Clinical photos (docs/photos.md)
  consultation_closed: { status: 409, shape: 'detail_code', message: 'Photos can be added only while the consultation waits for a doctor (pending review, information requested or a call requested).' },

  // Appointments and calls (docs/appointments.md)
  call_not_requested: { status: 409, shape: 'detail_code', message: 'A call can be booked only when your doctor has asked for one on this consultation.' },
  slot_unavailable: { status: 409, shape: 'detail_code', message: 'This time is not available (taken, outside the doctor’s hours, or too soon). Choose another slot.' },
  appointment_exists: { status: 409, shape: 'detail_code', message: 'This consultation already has a booked call: reschedule or cancel it.' },
  change_window_closed: { status: 409, shape: 'detail_code', message: 'The call is too close to change or cancel here: please send a message to your care team.' },
  appointment_cancelled: { status: 410, shape: 'detail_code', message: 'This appointment was cancelled.' },
  call_window_closed: { status: 409, shape: 'detail_code' },
  appointment_closed: { status: 409, shape: 'detail_code', message: 'The outcome of this call was already recorded.' },

  // Progress journal
  red_flag_already_resolved: { status: 409, shape: 'detail_code', message: 'This red flag has already been resolved.' },
  prescription_required: { status: 403, shape: 'detail_code', message: 'Side effects can be reported for a treatment you were prescribed.' },
  active_treatment_plan_required: { status: 403, shape: 'detail_code', message: 'The progress journal is available while you have an active treatment plan.' },

  // Identity and weight verification (docs/verification.md)
  verification_required: { status: 409, shape: 'code', message: 'The patient has not completed the verification this category requires: identity, and for weight loss a verified weight (at most 180 days old).' },
  identity_already_verified: { status: 409, shape: 'detail_code', message: 'Your identity is already verified.' },
  verification_already_decided: { status: 409, shape: 'detail_code', message: 'This verification was already decided.' },
  identity_provider_unavailable: { status: 503, shape: 'detail_code', message: 'The identity verification provider is not answering. Please try again in a few minutes.', headers: { 'retry-after': '30' } },
  photo_required: { status: 400, shape: 'detail_code', message: 'Add a photo of yourself on the scales with the reading visible (multipart field `file`).' },
  unsupported_image: { status: 400, shape: 'detail_code', message: 'Send a JPEG, PNG, WebP or HEIC photo.' },
  image_unreadable: { status: 400, shape: 'detail_code', message: 'The photo could not be read. Take it again, or send another file.' },
  image_too_large: { status: 413, shape: 'detail_code', message: 'The photo is too large: at most 15 MiB and 50 megapixels.' },
  stale_webhook: { status: 400, shape: 'detail_code', message: 'The event is outside the accepted time window.' },

  // Payment provider webhook
  not_found: { status: 404, shape: 'detail_code', message: 'Not found.' },
  invalid_signature: { status: 400, shape: 'detail_code' },

  // GET /metrics (outside the API document: docs/operations.md)
  authentication_failed: { status: 401, shape: 'detail_code', message: 'Incorrect metrics token.', headers: { 'www-authenticate': 'Bearer realm="metrics"' } },

  // Signed prescriptions (fulfilment and signing, docs/prescriptions.md).
  second_factor_required_to_sign: {
    status: 403,
    shape: 'detail_code',
    message: 'Prescriptions are signed only in a session that passed the second factor: sign out and sign in again with your second factor.',
  },
  signing_unavailable: { status: 503, shape: 'detail_code', message: 'The prescription could not be signed (the signing service is unavailable); nothing was issued. Try again shortly.', headers: { 'retry-after': '30' } },
  already_dispensed: { status: 409, shape: 'detail_code', message: 'This prescription has already been dispensed as often as it allows.' },
  prescription_cancelled: { status: 409, shape: 'detail_code', message: 'This prescription was cancelled (reissued or withdrawn): it cannot be dispensed.' },
  repeat_too_early: { status: 409, shape: 'detail_code', message: 'The minimum interval the doctor stated between two dispensings has not passed yet: dispense from `earliest_at`.' },
  prescription_expired: { status: 409, shape: 'detail_code', message: 'This prescription is past its validity (`valid_until`): it cannot be dispensed or repeated; a new consultation is needed.' },
  // The patient's repeat order (docs/prescriptions.md, "Repeats").
  repeat_not_available: { status: 409, shape: 'detail_code', message: 'This prescription has no repeats to order (none stated, or a plan supplies it through its renewals).' },
  repeat_order_open: { status: 409, shape: 'detail_code', message: 'A supply of this prescription is still waiting for the pharmacy (`order_id`): order the next one after it is dispensed.' },
  // Account erasure (privacy): an account without a password confirms with a fresh sign-in.
  recent_sign_in_required: { status: 403, shape: 'detail_code', message: 'Sign in again (within the last 10 minutes) to erase this account.' },

  // Share links (interop, docs/interoperability.md): the manifest of a link with a passcode.
  share_link_passcode_invalid: { status: 401, shape: 'detail_code', message: 'The passcode is missing or wrong.' },

  // Generic answers (src/http/errors.ts: access control, tokens and the error handler)
  not_authenticated: { status: 401, shape: 'detail_code', message: 'Authentication credentials were not provided.', headers: BEARER_API },
  token_not_valid: { status: 401, shape: 'detail_code', message: 'Given token not valid for any token type', headers: BEARER_API },
  permission_denied: { status: 403, shape: 'detail_code', message: 'You do not have permission to perform this action.' },
  payload_too_large: { status: 413, shape: 'detail_code', message: 'Request body is too large.' },
  unsupported_media_type: { status: 415, shape: 'detail_code', message: 'Unsupported media type in request.' },
  // The handler's text and the rate limiter's (src/lib/api-error.ts, with Retry-After) differ.
  throttled: { status: 429, shape: 'detail_code' },
  // Idempotency-Key (src/http/idempotency.ts)
  idempotency_key_reused: { status: 422, shape: 'error_code', message: 'This Idempotency-Key was sent with a different request. Use a new key for a new request.' },
  idempotency_key_in_use: { status: 409, shape: 'error_code', message: 'A request with this Idempotency-Key is still being answered. Retry in a moment.' },
  server_error: { status: 500, shape: 'detail_code', message: 'A server error occurred.' },
  // The database could not be reached (lost connection, timeout): nothing was changed unless the
  // request said so before; retry after Retry-After seconds (docs/operations.md).
  database_unavailable: { status: 503, shape: 'error_code', message: 'The service is briefly unavailable. Please try again in a moment.', headers: { 'retry-after': '2' } },
} as const satisfies Record<string, ErrorEntry>;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;

/** The codes of one body shape (the OpenAPI registry lists codes per shape). */
export type CodeOfShape<S extends ErrorShape> = { [C in ErrorCode]: (typeof ERROR_CATALOGUE)[C]['shape'] extends S ? C : never }[ErrorCode];

export interface FailDetails {
  /** The message of this refusal (required where the catalogue has none). */
  message?: string;
  /** Extra body keys, after the shape's own (in this order). */
  extra?: Record<string, unknown>;
  /** Headers of this answer (Retry-After), next to the catalogue's. */
  headers?: Record<string, string>;
}

// A message is required unless the catalogue fixes one; the `{code, ...}` shape may have none.
type FailArgs<C extends ErrorCode> = (typeof ERROR_CATALOGUE)[C] extends { readonly message: string } | { readonly shape: 'code' }
  ? [details?: FailDetails]
  : [details: FailDetails & { message: string }];

/** The refusal `code`, with the status, body shape and headers its catalogue entry gives. */
export function fail<C extends ErrorCode>(code: C, ...[details]: FailArgs<C>): ApiError {
  const entry: ErrorEntry = ERROR_CATALOGUE[code];
  const message = details?.message ?? entry.message;
  const extra = details?.extra ?? {};
  const headers = { ...entry.headers, ...details?.headers };
  switch (entry.shape) {
    case 'error_code':
      return new ApiError(entry.status, { error: message, code, ...extra }, headers);
    case 'error_name':
      return new ApiError(entry.status, { error_name: code, message, ...extra }, headers);
    case 'detail_code':
      return new ApiError(entry.status, { detail: message, code, ...extra }, headers);
    case 'code':
      return new ApiError(entry.status, { code, ...(message === undefined ? {} : { detail: message }), ...extra }, headers);
  }
}
