// What the OpenAPI document says about each operation beyond its route's zod schemas: a stable
// operationId, the error codes each refusal can carry (the route schemas only give the shapes), the
// media types of downloads and uploads, and hand-written examples. src/http/openapi.ts applies it to
// the document @fastify/swagger builds; test/openapi*.test.ts check that it matches what the service
// answers. Keyed by `METHOD /path/{param}/` exactly as the document lists the operation.
import type { CodeOfShape, ErrorCode } from './error-catalogue.ts';

/**
 * One error body shape of a status:
 * - `fields`: the field-keyed validation object `{<field>: [<message>, ...]}`
 * - `detail`: `{detail}` (not found)
 * - `empty`: `{}`
 * - `token`: `{detail, code: "token_not_valid", messages}` (a refresh token refused)
 * - `{ error: [...] }`: `{error, code}` with these codes (each variant takes only codes of its shape in
 *   src/http/error-catalogue.ts, so a code listed under the wrong shape does not compile)
 * - `{ error_name: [...] }`: `{error_name, message, ...}` with these names
 * - `{ detail_code: [...] }`: `{detail, code}` with these codes
 * - `{ code: [...] }`: `{code, ...extras}` with these codes
 */
export type ErrorVariant =
  | 'fields'
  | 'detail'
  | 'empty'
  | 'token'
  | { error: CodeOfShape<'error_code'>[] }
  | { error_name: CodeOfShape<'error_name'>[] }
  | { detail_code: CodeOfShape<'detail_code'>[] }
  | { code: CodeOfShape<'code'>[] };

export interface OperationDoc {
  /** Stable camelCase operationId (generated clients name their functions after it). */
  id: string;
  /**
   * The route-specific error answers per status (replacing the route's declared shape for that
   * status). `null` removes a status the route declares but never answers. Errors every operation
   * of a kind shares (401, 403 on staff routes, malformed JSON, 413, 415, 500) are added by
   * openapi.ts and need not be listed.
   */
  errors?: Record<number, ErrorVariant[] | null>;
  /** Descriptions of responses (else the generic text of the status). */
  descriptions?: Record<number, string>;
  /** Needs the `X-Brand-Slug` header. */
  brand?: true;
  /** The body is read raw (webhook): no JSON parse error, no 415. */
  rawBody?: true;
  /** Media types of a binary 200 answer instead of JSON. */
  binary?: string[];
  /** Media types of a binary 200 answer besides JSON (an operation that answers either). */
  alsoBinary?: string[];
  /** Hand-written request body example (else one is generated from the schema). */
  requestExample?: unknown;
  /** Hand-written example of the main (2xx) answer (else generated from the schema). */
  responseExample?: unknown;
}

const fields = 'fields' as const;
const detail = 'detail' as const;
const invalidBrand = { error: ['invalid_brand'] } satisfies ErrorVariant;

const EXAMPLE_ACCESS =
  'eyJhbGciOiJIUzI1NiJ9.eyJ0b2tlbl90eXBlIjoiYWNjZXNzIiwidXNlcl9pZCI6IjNmYTg1ZjY0LTU3MTctNDU2Mi1iM2ZjLTJjOTYzZjY2YWZhNiJ9.c2lnbmF0dXJl';
const EXAMPLE_REFRESH =
  'eyJhbGciOiJIUzI1NiJ9.eyJ0b2tlbl90eXBlIjoicmVmcmVzaCIsInVzZXJfaWQiOiIzZmE4NWY2NC01NzE3LTQ1NjItYjNmYy0yYzk2M2Y2NmFmYTYifQ.c2lnbmF0dXJl';
const tokenPair = { access: EXAMPLE_ACCESS, refresh: EXAMPLE_REFRESH, is_doctor: false, is_backoffice_admin: false, is_marketer: false, is_pharmacist: false };
const credentials = { email: 'ada@example.org', password: 'Quiet-Harbour-Lantern-42' };

const session = (provider: 'sandbox' | 'stripe') => ({ 404: [{ detail_code: [`${provider}_session_not_found` as const] }] });
const decision = { 409: [{ detail_code: ['invalid_status_transition'] }] } satisfies OperationDoc['errors'];
const journalPlan = { 403: [{ detail_code: ['active_treatment_plan_required'] }] } satisfies OperationDoc['errors'];
const prescribed = { 403: [{ detail_code: ['prescription_required'] }] } satisfies OperationDoc['errors'];

export const OPERATIONS: Record<string, OperationDoc> = {
  'GET /healthz': { id: 'getHealth', descriptions: { 200: 'The process is up' } },
  'GET /readyz': { id: 'getReadiness', descriptions: { 200: 'The database answers', 503: 'The database does not answer' } },

  // Accounts
  'POST /v1/users/register/': {
    id: 'register',
    brand: true,
    errors: { 400: [fields, { error: ['invalid_brand', 'registration_not_allowed'] }], 406: [{ error_name: ['REGISTRATION_EMAIL_UNDELIVERABLE'] }], 429: [{ error_name: ['REGISTRATION_RATE_LIMITED'] }] },
    descriptions: { 200: 'A 6-digit code was emailed (no account exists until it is verified)' },
    requestExample: { ...credentials, first_name: 'Ada', last_name: 'Lovelace', locale: 'en' },
    responseExample: { message: 'We have sent a 6-digit code to your email address. Enter it to verify your account.' },
  },
  'POST /v1/users/verify-email/': {
    id: 'verifyEmail',
    brand: true,
    errors: { 400: [{ error_name: ['VERIFY_EMAIL_INVALID_REQUEST', 'VERIFY_EMAIL_INVALID_CODE'] }, invalidBrand, fields], 429: [{ error_name: ['VERIFY_EMAIL_TOO_MANY_ATTEMPTS'] }, { detail_code: ['throttled'] }] },
    descriptions: { 200: 'Verified: the account is active and signed in' },
    requestExample: { email: credentials.email, otp: '123456' },
    responseExample: { message: 'Your email address is verified.', ...tokenPair },
  },
  'POST /v1/users/token/': {
    id: 'signIn',
    brand: true,
    errors: {
      400: [fields, { error: ['google_account'] }],
      401: [{ error: ['invalid_credentials'] }],
      403: [{ error: ['user_inactive'] }, { error: ['mfa_required'] }, { error: ['mfa_enrolment_required'] }],
      429: [{ detail_code: ['throttled'] }],
    },
    descriptions: {
      200: 'The token pair',
      401: 'Wrong email or password, unverified account, or a missing or wrong `X-Brand-Slug` (deliberately non-specific)',
      403: 'A disabled account (`user_inactive`); or the right password of an account with a second factor (`mfa_required`, with `mfa_token` and `methods`), or of a staff account that must enrol one first (`mfa_enrolment_required`, with `enrolment_token`)',
    },
    requestExample: credentials,
    responseExample: tokenPair,
  },
  'POST /v1/users/token/mfa/': {
    id: 'signInSecondStep',
    brand: true,
    errors: { 400: [fields, invalidBrand], 401: [{ error: ['invalid_mfa_code', 'invalid_passkey', 'invalid_mfa_token'] }], 429: [{ detail_code: ['throttled'] }] },
    descriptions: { 200: 'The token pair', 400: 'Neither or both of `code` and `webauthn` (`code`), or a missing or wrong `X-Brand-Slug`', 401: 'A wrong or already used code (`invalid_mfa_code`), a refused passkey assertion (`invalid_passkey`), or an unknown, expired or used `mfa_token` (`invalid_mfa_token`)' },
    requestExample: { mfa_token: 'bWZhLXRva2VuLWZyb20tdGhlLTQwMy1hbnN3ZXI', code: '492039' },
    responseExample: { ...tokenPair, is_doctor: true },
  },
  'POST /v1/users/token/mfa/enrol/': {
    id: 'startSignInEnrolment',
    brand: true,
    errors: { 400: [fields, invalidBrand], 401: [{ error: ['invalid_mfa_token'] }], 409: [{ error: ['mfa_already_enrolled'] }], 429: [{ detail_code: ['throttled'] }] },
    descriptions: { 200: 'A new secret and its otpauth URI' },
    requestExample: { enrolment_token: 'ZW5yb2xtZW50LXRva2VuLWZyb20tdGhlLTQwMw' },
    responseExample: { secret: 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP', otpauth_uri: 'otpauth://totp/demo:doctor%40example.org?issuer=demo&secret=JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP&algorithm=SHA1&digits=6&period=30' },
  },
  'POST /v1/users/token/mfa/enrol/confirm/': {
    id: 'confirmSignInEnrolment',
    brand: true,
    errors: {
      400: [fields, invalidBrand],
      401: [{ error: ['invalid_mfa_code', 'invalid_mfa_token'] }],
      409: [{ error: ['mfa_already_enrolled', 'mfa_enrolment_not_started'] }],
      429: [{ detail_code: ['throttled'] }],
    },
    descriptions: { 200: 'Enrolled and signed in: the recovery codes (shown once) and the token pair' },
    requestExample: { enrolment_token: 'ZW5yb2xtZW50LXRva2VuLWZyb20tdGhlLTQwMw', code: '492039' },
  },
  'POST /v1/users/token/mfa/webauthn/options/': {
    id: 'passkeySignInOptions',
    brand: true,
    errors: { 400: [fields, invalidBrand], 401: [{ error: ['invalid_mfa_token'] }], 409: [{ error: ['mfa_not_enrolled'] }], 429: [{ detail_code: ['throttled'] }] },
    descriptions: { 200: 'The request options for `startAuthentication()`: a single-use challenge bound to this `mfa_token`', 409: 'The account has no passkey' },
    requestExample: { mfa_token: 'bWZhLXRva2VuLWZyb20tdGhlLTQwMy1hbnN3ZXI' },
  },
  'POST /v1/users/token/mfa/enrol/passkey/options/': {
    id: 'startSignInPasskeyEnrolment',
    brand: true,
    errors: { 400: [fields, invalidBrand], 401: [{ error: ['invalid_mfa_token'] }], 429: [{ detail_code: ['throttled'] }] },
    descriptions: { 200: 'The creation options for `startRegistration()`: a single-use challenge bound to the account' },
    requestExample: { enrolment_token: 'ZW5yb2xtZW50LXRva2VuLWZyb20tdGhlLTQwMw' },
  },
  'POST /v1/users/token/mfa/enrol/passkey/': {
    id: 'confirmSignInPasskeyEnrolment',
    brand: true,
    errors: { 400: [fields, invalidBrand], 401: [{ error: ['invalid_passkey', 'invalid_mfa_token'] }], 429: [{ detail_code: ['throttled'] }] },
    descriptions: { 200: 'Enrolled and signed in: the recovery codes (shown once) and the token pair', 401: 'A refused credential (`invalid_passkey`), or an unknown, expired or used `enrolment_token` (`invalid_mfa_token`)' },
  },
  'GET /v1/users/mfa/passkeys/': { id: 'listPasskeys', descriptions: { 200: 'The account’s passkeys, oldest first' } },
  'POST /v1/users/mfa/passkeys/options/': { id: 'startPasskeyRegistration', descriptions: { 200: 'The creation options for `startRegistration()`: a single-use challenge bound to the account' } },
  'POST /v1/users/mfa/passkeys/': {
    id: 'addPasskey',
    errors: { 400: [fields] },
    descriptions: { 201: 'The passkey, and the recovery codes when it is the first factor', 400: 'The credential was refused (`credential`)' },
  },
  'DELETE /v1/users/mfa/passkeys/{id}/': {
    id: 'removePasskey',
    errors: { 403: [{ error: ['mfa_removal_not_allowed'] }], 404: [detail] },
    descriptions: { 204: 'Removed', 403: 'The last factor of an account that must have one', 404: 'No passkey of this account has this id' },
  },
  'GET /v1/users/mfa/': { id: 'getSecondFactor', descriptions: { 200: 'The confirmed factors, whether one is required, and the recovery codes left' } },
  'POST /v1/users/mfa/totp/': { id: 'startTotpEnrolment', errors: { 409: [{ error: ['mfa_already_enrolled'] }] }, descriptions: { 200: 'A new secret and its otpauth URI' } },
  'POST /v1/users/mfa/totp/confirm/': {
    id: 'confirmTotpEnrolment',
    errors: { 400: [fields], 409: [{ error: ['mfa_already_enrolled', 'mfa_enrolment_not_started'] }], 429: [{ detail_code: ['throttled'] }] },
    descriptions: { 200: 'Enrolled: the ten recovery codes (shown once)', 400: 'A wrong code (`code`)' },
  },
  'POST /v1/users/mfa/recovery-codes/': {
    id: 'replaceRecoveryCodes',
    errors: { 400: [fields], 409: [{ error: ['mfa_not_enrolled'] }], 429: [{ detail_code: ['throttled'] }] },
    descriptions: { 200: 'Ten new recovery codes (the old ones stop working)', 400: 'A wrong code (`code`)' },
  },
  'POST /v1/users/mfa/totp/remove/': {
    id: 'removeTotp',
    errors: { 400: [fields], 403: [{ error: ['mfa_removal_not_allowed'] }], 409: [{ error: ['mfa_not_enrolled'] }], 429: [{ detail_code: ['throttled'] }] },
    descriptions: { 200: 'The factor and its recovery codes are removed', 400: 'A wrong code (`code`)' },
  },
  'POST /v1/users/token/refresh/': {
    id: 'refreshToken',
    brand: true,
    errors: { 400: [fields, invalidBrand], 401: ['token'] },
    descriptions: { 200: 'A new access and refresh token (the presented refresh token is used up)', 401: 'The refresh token is invalid, expired, used or its session ended' },
    requestExample: { refresh: EXAMPLE_REFRESH },
    responseExample: { access: EXAMPLE_ACCESS, refresh: EXAMPLE_REFRESH },
  },
  'POST /v1/users/logout/': {
    id: 'signOut',
    errors: { 400: [fields] },
    descriptions: { 200: 'Signed out' },
    requestExample: { refresh: EXAMPLE_REFRESH },
    responseExample: { message: 'Signed out.' },
  },
  'POST /v1/users/google-login/': {
    id: 'signInWithGoogle',
    brand: true,
    errors: { 400: [fields, { error: ['invalid_brand', 'credential_required', 'google_login_disabled', 'google_link_not_allowed'] }], 401: [{ error: ['invalid_google_credential'] }], 403: [{ error: ['user_inactive'] }] },
    descriptions: { 200: 'The token pair (the account is created on first sign-in)' },
    requestExample: { credential: 'eyJhbGciOiJSUzI1NiIsImtpZCI6Imdvb2dsZS1rZXkifQ.eyJlbWFpbCI6ImFkYUBleGFtcGxlLm9yZyJ9.c2lnbmF0dXJl', locale: 'en' },
    responseExample: tokenPair,
  },
  'POST /v1/users/forgot-password/': {
    id: 'requestPasswordReset',
    brand: true,
    errors: { 400: [fields, invalidBrand], 429: [{ detail_code: ['throttled'] }] },
    descriptions: { 200: 'The same answer whether or not the address has an account' },
    requestExample: { email: credentials.email },
  },
  'POST /v1/users/reset-password/': {
    id: 'resetPassword',
    brand: true,
    errors: { 400: [fields, { error: ['invalid_brand', 'invalid_reset_token'] }] },
    descriptions: { 200: 'The password is changed and every session ended' },
    requestExample: { token: 'Zm9yZ290LXBhc3N3b3JkLXRva2VuLWZyb20tdGhlLWxpbms', password: 'Lantern-Quiet-Harbour-43' },
  },
  'POST /v1/users/change-password/': {
    id: 'changePassword',
    errors: { 400: [fields, { error: ['google_account'] }], 429: [{ detail_code: ['throttled'] }] },
    descriptions: {
      200: 'The password is changed; every other session of the account ended, this one stays signed in',
      400: 'Wrong current password (`current_password`), a weak new password (`new_password`), or a Google account without a password',
    },
    requestExample: { current_password: credentials.password, new_password: 'Lantern-Quiet-Harbour-43' },
    responseExample: { message: 'Your password has been changed. Your other sessions have been signed out.' },
  },

  // Profile
  'GET /v1/users/profile/': { id: 'getProfile', descriptions: { 200: 'The profile' } },
  'GET /v1/users/profile/me/': { id: 'getMyProfile', descriptions: { 200: 'The profile' } },
  'PATCH /v1/users/profile/me/': {
    id: 'updateProfile',
    errors: { 400: [fields] },
    descriptions: { 200: 'The updated profile' },
    requestExample: { first_name: 'Ada', last_name: 'Lovelace', date_of_birth: '1985-04-12', country_of_residence: 'DEU', gender: '0' },
  },

  // Questionnaires
  'GET /v1/users/questionnaires/categories/': { id: 'listQuestionnaireCategories', descriptions: { 200: 'The categories' } },
  'GET /v1/users/questionnaires/{slug}/schema/': { id: 'getQuestionnaire', errors: { 404: [detail] }, descriptions: { 200: 'The current questionnaire of the category' } },
  'GET /v1/users/questionnaires/{slug}/progress/': { id: 'getQuestionnaireDraft', errors: { 403: null, 404: [detail] }, descriptions: { 200: 'The saved draft (empty when nothing is saved)' } },
  'PATCH /v1/users/questionnaires/{slug}/progress/': {
    id: 'saveQuestionnaireDraft',
    errors: { 400: [fields, { error_name: ['SERVICE_NOT_AVAILABLE_IN_COUNTRY'] }], 403: null, 404: [detail] },
    descriptions: { 200: 'The saved draft' },
    requestExample: { data: [{ step_id: 1, question_key: 'urgent_symptoms', values: { none: true } }, { step_id: 2, question_key: 'height_cm', value: 170 }] },
  },
  'POST /v1/users/questionnaires/{slug}/submit/': {
    id: 'submitQuestionnaire',
    errors: { 400: [{ error_name: ['PROFILE_INCOMPLETE', 'QUESTIONNAIRE_INCOMPLETE', 'SERVICE_NOT_AVAILABLE_IN_COUNTRY'] }], 403: null, 404: [detail] },
    descriptions: { 200: 'The outcome: eligible, ineligible, emergency or held for review' },
  },
  'GET /v1/users/questionnaires/submissions/': { id: 'listQuestionnaireSubmissions', errors: { 403: null }, descriptions: { 200: 'A page of the account\'s questionnaire outcomes, newest first' } },

  // Billing
  'POST /v1/users/checkout/': {
    id: 'startCheckout',
    errors: {
      400: [
        { error_name: ['PROFILE_INCOMPLETE', 'SUBMISSION_REQUIRED', 'SUBMISSION_NOT_ELIGIBLE', 'PLAN_NOT_AVAILABLE', 'TREATMENT_NOT_ALLOWED', 'DOSAGE_NOT_ALLOWED', 'SERVICE_NOT_AVAILABLE_IN_COUNTRY'] },
        fields,
      ],
      409: [{ error_name: ['CONSULTATION_ALREADY_OPEN', 'SUBMISSION_ALREADY_USED'] }],
    },
    descriptions: { 200: 'The provider checkout page to send the patient to, or the consultation covered by the plan' },
    requestExample: { category: 'weight_loss', plan: 'subscription' },
  },
  'GET /v1/users/sandbox/session/{id}/': { id: 'getSandboxCheckoutSession', errors: session('sandbox'), descriptions: { 200: 'The state of the checkout session' } },
  'GET /v1/users/stripe/session/{id}/': { id: 'getStripeCheckoutSession', errors: session('stripe'), descriptions: { 200: 'The state of the checkout session' } },
  'POST /v1/users/billing-portal/': {
    id: 'createBillingPortalLink',
    errors: { 400: [fields] },
    descriptions: { 200: 'The portal link (null when there is none)' },
    requestExample: { return_url: 'https://app.example.org/account/' },
  },
  'GET /v1/users/payments/': { id: 'listPayments', descriptions: { 200: 'A page of payments' } },
  'GET /v1/users/payments/{id}/invoice/': {
    id: 'downloadInvoice',
    errors: { 404: [detail] },
    binary: ['application/pdf'],
    descriptions: { 200: 'The invoice as a PDF document (`Content-Disposition: attachment`)' },
  },
  'GET /v1/users/orders/': { id: 'listOrders', descriptions: { 200: 'Every order (bare array, not paginated)' } },
  'GET /v1/users/prescriptions/': { id: 'listPrescriptions', descriptions: { 200: 'A page of prescriptions' } },
  'GET /v1/users/prescriptions/{id}/pdf/': {
    id: 'downloadPrescription',
    errors: { 404: [detail] },
    binary: ['application/pdf'],
    descriptions: { 200: 'The prescription as a PDF document (`Content-Disposition: attachment`)' },
  },
  'GET /v1/users/consultations/': { id: 'listConsultations', descriptions: { 200: 'A page of consultations' } },
  'GET /v1/users/consultations/{id}/': { id: 'getConsultation', errors: { 404: [detail] }, descriptions: { 200: 'The consultation' } },
  'POST /v1/webhooks/stripe/': {
    id: 'receiveStripeWebhook',
    rawBody: true,
    errors: { 400: [{ detail_code: ['invalid_signature'] }], 404: [{ detail_code: ['not_found'] }] },
    descriptions: { 200: 'The event was recorded (or had been: `duplicate`)', 404: 'The service does not use Stripe' },
  },

  // Subscriptions and renewals
  'GET /v1/users/subscriptions/renewal-options/': { id: 'getRenewalOptions', errors: { 400: [{ code: ['invalid_category'] }] }, descriptions: { 200: 'What the patient can do next in the category' } },
  'POST /v1/users/subscriptions/pending-choice/confirm/': {
    id: 'confirmRenewalChoice',
    errors: {
      400: [{ code: ['renewal_answers_required', 'renewal_answer_ineligible', 'invalid_renewal_answers', 'renewal_emergency', 'invalid_treatment_variant', 'dose_step_not_allowed'] }, fields],
      404: ['empty'],
      409: [{ code: ['patient_choice_not_pending'] }],
    },
    descriptions: { 200: 'The confirmed choice (now waiting for a doctor)', 404: 'The consultation is not a renewal of the caller waiting for a choice (empty body)' },
  },
  'GET /v1/users/subscriptions/': { id: 'listSubscriptions', descriptions: { 200: 'A page of subscriptions' } },
  'GET /v1/users/subscriptions/{id}/': { id: 'getSubscription', errors: { 404: [detail] }, descriptions: { 200: 'The subscription' } },
  'POST /v1/users/subscriptions/{id}/cancel/': { id: 'cancelSubscription', errors: { 404: [detail], 409: [{ error: ['subscription_not_active'] }] }, descriptions: { 200: 'The subscription, ending at the period end' } },
  'POST /v1/users/subscriptions/{id}/resume/': { id: 'resumeSubscription', errors: { 404: [detail], 409: [{ error: ['subscription_not_active'] }] }, descriptions: { 200: 'The subscription, renewing again' } },
  'POST /v1/users/subscriptions/{id}/postpone/': {
    id: 'postponeSubscription',
    errors: { 400: [fields], 404: [detail], 409: [{ error: ['subscription_not_active', 'already_postponed'] }] },
    descriptions: { 200: 'The subscription with its new period end' },
    requestExample: { days: 7 },
  },
  'POST /v1/users/subscriptions/{id}/early-order/': {
    id: 'orderSupplyEarly',
    errors: {
      400: [{ code: ['dose_step_not_allowed'] }],
      402: [{ error: ['payment_failed'] }],
      404: [detail],
      409: [
        { error: ['subscription_paused'] },
        {
          code: [
            'early_order_unavailable',
            'early_order_period_already_advanced',
            'early_order_period_unavailable',
            'early_order_pending_review',
            'early_order_subscription_ending',
            'subscription_payment_required',
            'no_prior_treatment',
          ],
        },
      ],
    },
    descriptions: { 200: 'The early order: charged and waiting for a doctor' },
  },
  // Plan management (issue 27, docs/plan-management.md)
  'POST /v1/users/subscriptions/{id}/skip/': {
    id: 'skipNextDelivery',
    errors: { 404: [detail], 409: [{ error: ['subscription_not_active', 'renewal_rejected', 'subscription_ending', 'managed_by_provider', 'subscription_paused', 'next_delivery_approved', 'already_skipped'] }] },
    descriptions: { 200: 'The plan with its next delivery one cycle later, and the restart dose' },
  },
  'POST /v1/users/subscriptions/{id}/pause/': {
    id: 'pauseSubscription',
    errors: { 400: [fields], 404: [detail], 409: [{ error: ['subscription_not_active', 'renewal_rejected', 'subscription_ending', 'managed_by_provider', 'subscription_paused', 'next_delivery_approved'] }] },
    descriptions: { 200: 'The paused plan, and the restart dose' },
    requestExample: { cycles: 2 },
  },
  'POST /v1/users/subscriptions/{id}/unpause/': {
    id: 'unpauseSubscription',
    errors: { 404: [detail], 409: [{ error: ['subscription_not_paused'] }] },
    descriptions: { 200: 'The plan, active again, and the restart dose' },
  },
  'POST /v1/users/subscriptions/{id}/delivery-date/': {
    id: 'setNextDeliveryDate',
    errors: { 400: [fields], 404: [detail], 409: [{ error: ['subscription_not_active', 'renewal_rejected', 'subscription_ending', 'managed_by_provider', 'subscription_paused', 'next_delivery_approved'] }] },
    descriptions: { 200: 'The plan with its new next delivery, and the restart dose' },
    requestExample: { date: '2026-12-24' },
  },
  'POST /v1/users/subscriptions/{id}/dose-change-requests/': {
    id: 'requestDoseChange',
    errors: { 400: [{ code: ['dose_step_not_allowed'] }, fields], 404: [detail], 409: [{ error: ['renewal_open', 'dose_change_pending', 'subscription_not_active', 'subscription_ending', 'renewal_rejected'] }] },
    descriptions: { 201: 'The request, waiting for a doctor' },
    requestExample: { dosage: '0.25 mg', note: 'Nausea most days since the last step up.' },
  },
  'GET /v1/users/subscriptions/{id}/dose-change-requests/': { id: 'listDoseChangeRequests', errors: { 404: [detail] }, descriptions: { 200: 'The plan’s requests, newest first (bare array)' } },
  'GET /v1/clinician/dose-change-requests/': { id: 'listDoseChangeQueue', descriptions: { 200: 'A page of requests waiting for a doctor' } },
  'POST /v1/clinician/dose-change-requests/{id}/decide/': {
    id: 'decideDoseChangeRequest',
    errors: { 400: [{ code: ['dose_step_not_allowed'] }, fields], 404: [detail], 409: [{ detail_code: ['dose_change_not_pending'] }, { error: ['subscription_not_active'] }] },
    descriptions: { 200: 'The decided request' },
    requestExample: { decision: 'approve', note: 'Stay at 0.25 mg for four more weeks.' },
  },
  'GET /v1/backoffice/test-clock/': { id: 'getTestClock', errors: { 404: [{ code: ['test_clock_unavailable'] }] }, descriptions: { 200: 'The service clock' } },
  'POST /v1/backoffice/test-clock/advance/': {
    id: 'advanceTestClock',
    errors: { 400: [fields], 404: [{ code: ['test_clock_unavailable'] }] },
    descriptions: { 200: 'The service clock after the due work ran' },
    requestExample: { days: 30, seconds: 0 },
  },

  // Messages
  'GET /v1/users/conversations/': { id: 'listConversations', descriptions: { 200: 'A page with the patient’s conversation' } },
  'GET /v1/users/conversations/{id}/messages/': { id: 'listMessages', errors: { 404: [detail] }, descriptions: { 200: 'Every message, oldest first (bare array)' } },
  'POST /v1/users/conversations/{id}/messages/': {
    id: 'sendMessage',
    errors: {
      400: [{ error: ['content_or_file_required', 'content_too_long', 'empty_file', 'unsupported_file_type', 'too_many_files', 'invalid_multipart'] }, fields],
      404: [detail],
      413: [{ error: ['file_too_large'] }],
    },
    descriptions: { 201: 'Sent: the conversation with the new message' },
    requestExample: { content: 'Since the higher dose I feel a little nauseous in the mornings. Is that expected?' },
  },
  'GET /v1/users/conversations/{id}/messages/{message_id}/file/': {
    id: 'downloadMessageFile',
    errors: { 404: [detail] },
    binary: ['application/pdf', 'image/jpeg', 'image/png', 'image/heic'],
    descriptions: { 200: 'The file (`Content-Disposition: attachment`)' },
  },
  'GET /v1/clinician/conversations/': { id: 'listClinicianConversations', descriptions: { 200: 'A page of conversations' } },
  'GET /v1/clinician/conversations/{id}/messages/': { id: 'readConversation', errors: { 404: [detail] }, descriptions: { 200: 'Every message, oldest first (bare array)' } },
  'POST /v1/clinician/conversations/{id}/messages/': {
    id: 'replyToConversation',
    errors: {
      400: [{ error: ['content_required', 'content_too_long', 'empty_file', 'unsupported_file_type', 'too_many_files', 'invalid_multipart'] }, fields],
      404: [detail],
      413: [{ error: ['file_too_large'] }],
    },
    descriptions: { 201: 'Sent: the conversation' },
    requestExample: { content: 'Mild nausea is common in the first weeks. Eat smaller meals; write again if it gets worse.' },
  },
  'GET /v1/clinician/conversations/{id}/messages/{message_id}/file/': {
    id: 'downloadPatientFile',
    errors: { 404: [detail] },
    binary: ['application/pdf', 'image/jpeg', 'image/png', 'image/heic'],
    descriptions: { 200: 'The file (`Content-Disposition: attachment`)' },
  },

  // Journal
  'GET /v1/users/journal/weight-entries/': { id: 'listWeightEntries', errors: journalPlan, descriptions: { 200: 'A page of weight entries' } },
  'POST /v1/users/journal/weight-entries/': {
    id: 'logWeight',
    errors: { ...journalPlan, 400: [fields] },
    descriptions: { 200: 'The day already had an entry: it was updated', 201: 'Logged' },
    requestExample: { logged_on: '2026-03-02', weight_kg: 92.4 },
  },
  'GET /v1/users/journal/injections/': { id: 'listInjections', errors: journalPlan, descriptions: { 200: 'A page of injections' } },
  'POST /v1/users/journal/injections/': { id: 'recordInjection', errors: { ...journalPlan, 400: [fields] }, descriptions: { 201: 'Recorded' } },
  'GET /v1/users/journal/notes/': { id: 'listNotes', errors: journalPlan, descriptions: { 200: 'A page of notes' } },
  'POST /v1/users/journal/notes/': { id: 'writeNote', errors: { ...journalPlan, 400: [fields] }, descriptions: { 201: 'Written' } },
  'GET /v1/users/journal/side-effects/': { id: 'listSideEffects', errors: prescribed, descriptions: { 200: 'A page of side-effect reports' } },
  'POST /v1/users/journal/side-effects/': { id: 'reportSideEffect', errors: { ...prescribed, 400: [fields] }, descriptions: { 201: 'Reported (with the emergency notice when severe or when its words raise a red flag)' } },
  'PATCH /v1/users/journal/weight-entries/{id}/': { id: 'updateWeightEntry', errors: { ...journalPlan, 400: [fields], 404: [detail] }, descriptions: { 200: 'The updated entry' } },
  'DELETE /v1/users/journal/weight-entries/{id}/': { id: 'deleteWeightEntry', errors: { ...journalPlan, 404: [detail] }, descriptions: { 204: 'Deleted' } },
  'PATCH /v1/users/journal/injections/{id}/': { id: 'updateInjection', errors: { ...journalPlan, 400: [fields], 404: [detail] }, descriptions: { 200: 'The updated injection' } },
  'DELETE /v1/users/journal/injections/{id}/': { id: 'deleteInjection', errors: { ...journalPlan, 404: [detail] }, descriptions: { 204: 'Deleted' } },
  'PATCH /v1/users/journal/notes/{id}/': { id: 'updateNote', errors: { ...journalPlan, 400: [fields], 404: [detail] }, descriptions: { 200: 'The updated note' } },
  'GET /v1/users/connected-apps/': { id: 'listConnectedApps', descriptions: { 200: 'The assistants connected to the account (docs/mcp.md)' } },
  'DELETE /v1/users/connected-apps/{id}/': { id: 'disconnectApp', errors: { 404: [detail] }, descriptions: { 204: 'Disconnected: its tokens stop working at once' } },

  // Privacy (docs/privacy.md)
  'GET /v1/users/me/consents/': {
    id: 'listConsents',
    descriptions: { 200: 'The current decision per kind, the history and the connector grants' },
    responseExample: {
      current: [{ id: '6f1c2a9e-4b7d-4c1a-9e2f-0a1b2c3d4e5f', kind: 'health_data_processing', version: '2025-01', granted: true, at: '2025-03-01T09:30:00+00:00' }],
      history: [{ id: '6f1c2a9e-4b7d-4c1a-9e2f-0a1b2c3d4e5f', kind: 'health_data_processing', version: '2025-01', granted: true, at: '2025-03-01T09:30:00+00:00' }],
      connectors: [],
    },
  },
  'POST /v1/users/me/consents/': {
    id: 'recordConsent',
    errors: { 400: [fields] },
    descriptions: { 201: 'The decision, recorded', 400: 'Unknown kind, empty version or a missing `granted`' },
    requestExample: { kind: 'marketing', version: '2025-01', granted: false },
    responseExample: { id: '6f1c2a9e-4b7d-4c1a-9e2f-0a1b2c3d4e5f', kind: 'marketing', version: '2025-01', granted: false, at: '2025-03-01T09:30:00+00:00' },
  },
  'GET /v1/users/me/access-log/': {
    id: 'listAccessLog',
    descriptions: { 200: 'Staff reads and changes of the account’s record, newest first' },
    responseExample: {
      count: 1,
      next: null,
      previous: null,
      results: [
        { id: '0b7e5c1d-2f3a-4b5c-8d9e-1a2b3c4d5e6f', at: '2025-03-02T10:00:00+00:00', actor_role: 'doctor', actor_name: 'Greg House', action: 'read', resource_type: 'consultation', resource_id: '3fa85f64-5717-4562-b3fc-2c963f66afa6' },
      ],
    },
  },
  'GET /v1/users/me/export/': {
    id: 'exportAccount',
    errors: { 400: [fields], 429: [{ detail_code: ['throttled'] }] },
    descriptions: { 200: 'Every record of the account (Content-Disposition: attachment): JSON, or with `format=zip` a zip archive', 400: 'An unknown `format`' },
    alsoBinary: ['application/zip'],
    responseExample: {
      exported_at: '2025-03-02T10:00:00+00:00',
      profile: { id: '3fa85f64-5717-4562-b3fc-2c963f66afa6', email: 'ada@example.org' },
      consultations: [],
      questionnaire_progress: { drafts: [], submissions: [], red_flags: [] },
      payments: [],
      checkout_sessions: [],
      orders: [],
      prescriptions: [],
      prescription_reissue_requests: [],
      plan_dose_change_requests: [],
      subscriptions: [],
      conversations: [],
      journal: { weight_entries: [], injections: [], notes: [], injection_plan: null, injection_plans: [], side_effect_reports: [], goal: null },
      referrals: { referral_code: 'ADA12345', referred_count: 0, referred_by: null },
      consents: [],
      access_log: [],
      connected_apps: [],
      connector_tool_calls: [],
    },
  },
  'DELETE /v1/users/me/': {
    id: 'eraseAccount',
    errors: { 400: [fields], 403: [{ detail_code: ['recent_sign_in_required', 'permission_denied'] }], 429: [{ detail_code: ['throttled'] }] },
    descriptions: { 204: 'Erased: sessions ended, sign-in refused from now on', 400: 'Wrong or missing password (`password`), or a missing confirmation (`confirm`)' },
    requestExample: { password: credentials.password },
  },
  'DELETE /v1/users/journal/notes/{id}/': { id: 'deleteNote', errors: { ...journalPlan, 404: [detail] }, descriptions: { 204: 'Deleted' } },
  'GET /v1/users/journal/injection-plan/': { id: 'getInjectionPlan', errors: journalPlan, descriptions: { 200: 'The injection plan' } },
  'PATCH /v1/users/journal/injection-plan/': { id: 'updateInjectionPlan', errors: { ...journalPlan, 400: [fields] }, descriptions: { 200: 'The updated plan' } },
  // The goal weight (not shown in spec: our design, docs/journal.md).
  'GET /v1/users/journal/goal/': { id: 'getJournalGoal', errors: journalPlan, descriptions: { 200: 'The goal weight (nulls when not set)' } },
  'PUT /v1/users/journal/goal/': { id: 'setJournalGoal', errors: { ...journalPlan, 400: [fields] }, descriptions: { 200: 'The goal weight as stored' }, requestExample: { goal_weight_kg: 78.5 } },

  // Referrals
  'GET /v1/users/referrals/me/': { id: 'getReferralSummary', descriptions: { 200: 'Code, link, totals and commission' } },
  'GET /v1/users/referrals/me/referred/': { id: 'listReferredPeople', descriptions: { 200: 'A page of referred people (initials only)' } },
  'GET /v1/users/referrals/me/transactions/': { id: 'listReferralTransactions', descriptions: { 200: 'A page of commission-earning payments' } },
  'POST /v1/users/referrals/attribution-events/': {
    id: 'recordAttributionEvent',
    errors: { 400: [fields], 429: [{ detail_code: ['throttled'] }] },
    descriptions: { 202: 'Recorded' },
  },

  // Clinician review desk
  'GET /v1/clinician/red-flags/': { id: 'listRedFlags', errors: { 400: [fields] }, descriptions: { 200: 'A page of red flags, emergencies first, then the oldest' } },
  'POST /v1/clinician/red-flags/{id}/resolve/': {
    id: 'resolveRedFlag',
    errors: { 400: [fields], 404: [detail], 409: [{ detail_code: ['red_flag_already_resolved'] }] },
    descriptions: { 200: 'Resolved: the flag with the note' },
    requestExample: { resolution: 'Called the patient: in hospital since last night, being treated. Nothing more for us.' },
  },
  'GET /v1/clinician/consultations/': { id: 'listReviewQueue', errors: { 400: [fields] }, descriptions: { 200: 'A page of consultations' } },
  'GET /v1/clinician/consultations/{id}/': { id: 'getConsultationForReview', errors: { 404: [detail] }, descriptions: { 200: 'The consultation with its submission and eligibility result' } },
  'POST /v1/clinician/consultations/{id}/approve/': {
    id: 'approveConsultation',
    errors: { 400: [fields, { detail_code: ['override_required'] }, { error_name: ['TREATMENT_WINDOW_PASSED'] }], 404: [detail], 409: [{ detail_code: ['invalid_status_transition', 'patient_choice_not_confirmed'] }, { error: ['absolute_contraindication'] }] },
    descriptions: { 200: 'Approved: the consultation with its prescription', 409: 'Not pending review, a renewal the patient has not confirmed, or an absolute contraindication no override lifts' } },
  'POST /v1/clinician/consultations/{id}/reject/': { id: 'rejectConsultation', errors: { 400: [fields], 404: [detail], ...decision, 502: [{ detail_code: ['refund_failed'] }] }, descriptions: { 200: 'Rejected (a paid consultation: refunded in full)', 502: 'The payment provider refused the refund: nothing was decided' } },
  'POST /v1/clinician/consultations/{id}/request-information/': { id: 'requestConsultationInformation', errors: { 400: [fields], 404: [detail], ...decision }, descriptions: { 200: 'Waiting for the patient' } },

  // Prescription reissue requests (docs/pharmacy.md)
  'POST /v1/users/prescriptions/{id}/reissue-requests/': {
    id: 'requestPrescriptionReissue',
    errors: { 400: [fields], 404: [detail], 409: [{ detail_code: ['reissue_request_pending', 'prescription_not_reissuable'] }] },
    descriptions: { 201: 'The request, pending', 404: 'No such prescription on this account', 409: 'A request is already pending, or the prescription is no longer valid' },
    requestExample: { reason: 'I lost the paper prescription.' },
  },
  'GET /v1/users/prescriptions/reissue-requests/': { id: 'listPrescriptionReissueRequests', descriptions: { 200: 'A page of reissue requests, newest first' } },
  'GET /v1/clinician/reissue-requests/': { id: 'listReissueQueue', errors: { 400: [fields] }, descriptions: { 200: 'A page of pending reissue requests, oldest first' } },
  'POST /v1/clinician/reissue-requests/{id}/approve/': {
    id: 'approveReissueRequest',
    errors: { 400: [fields], 404: [detail], 409: [{ detail_code: ['invalid_status_transition', 'prescription_not_reissuable'] }] },
    descriptions: { 200: 'Approved: the request names the new prescription', 409: 'Already decided, or the prescription is no longer valid' },
    requestExample: { note: 'Reissued as before.' },
  },
  'POST /v1/clinician/reissue-requests/{id}/decline/': {
    id: 'declineReissueRequest',
    errors: { 400: [fields], 404: [detail], ...decision },
    descriptions: { 200: 'Declined with the reason', 409: 'Already decided' },
    requestExample: { reason: 'Your treatment needs a new consultation first.' },
  },

  // Pharmacy desk
  'GET /v1/pharmacy/orders/': { id: 'listFulfilmentQueue', errors: { 400: [fields] }, descriptions: { 200: 'A page of orders awaiting fulfilment, oldest first' } },
  'GET /v1/pharmacy/orders/{id}/': { id: 'getOrderForDispensing', errors: { 404: [detail] }, descriptions: { 200: 'The order with what dispensing needs' } },
  'POST /v1/pharmacy/orders/{id}/dispense/': {
    id: 'dispenseOrder',
    errors: { 400: [fields], 404: [detail], ...decision },
    descriptions: { 200: 'Dispensing recorded', 409: 'The order no longer awaits fulfilment' },
    requestExample: { batch: 'LOT-24A17', expiry: '2027-06-30' },
  },
  'POST /v1/pharmacy/orders/{id}/dispatch/': {
    id: 'dispatchOrder',
    errors: { 400: [fields], 404: [detail], 409: [{ detail_code: ['invalid_status_transition', 'delivery_too_late'] }] },
    descriptions: { 200: 'Shipped: the patient was mailed the tracking', 409: 'Not awaiting fulfilment (dispatched twice, delivered, undeliverable), or a time-bound treatment that would arrive too late (`delivery_too_late`: the order is now undeliverable)' },
    requestExample: { carrier: 'DHL', tracking_number: '00340434161094042557', tracking_url: 'https://www.dhl.de/en/privatkunden/dhl-sendungsverfolgung.html?piececode=00340434161094042557' },
  },
  'POST /v1/pharmacy/orders/{id}/deliver/': { id: 'deliverOrder', errors: { 404: [detail], ...decision }, descriptions: { 200: 'Delivered', 409: 'Not shipped' } },
  'POST /v1/pharmacy/orders/{id}/undeliverable/': {
    id: 'markOrderUndeliverable',
    errors: { 400: [fields], 404: [detail], ...decision },
    descriptions: { 200: 'Undeliverable: the patient was mailed', 409: 'Already delivered, undeliverable or cancelled' },
    requestExample: { reason: 'Returned to sender: address unknown.' },
  },

  // Back office
  'GET /v1/backoffice/users/': { id: 'findAccounts', errors: { 400: [fields] }, descriptions: { 200: 'A page of accounts' } },
  'POST /v1/backoffice/users/{id}/disable/': { id: 'disableAccount', errors: { 400: [fields], 404: [detail] }, descriptions: { 200: 'The account, disabled' } },
  'POST /v1/backoffice/users/{id}/enable/': { id: 'enableAccount', errors: { 400: [fields], 404: [detail] }, descriptions: { 200: 'The account, enabled' } },
  'POST /v1/backoffice/payments/{id}/refund/': {
    id: 'refundPayment',
    errors: { 400: [fields], 404: [detail], 502: [{ detail_code: ['refund_failed'] }] },
    descriptions: { 200: 'The payment with its refund', 502: 'The payment provider refused the refund' },
    requestExample: { amount_cents: 2500, reason: 'Goodwill refund after a delayed delivery' },
  },

  // Reship or refund an undeliverable order (docs/pharmacy.md)
  'POST /v1/pharmacy/orders/{id}/reship/': {
    id: 'reshipOrder',
    errors: { 404: [detail], 409: [{ detail_code: ['invalid_status_transition', 'order_refunded', 'order_not_reshippable'] }] },
    descriptions: { 200: 'A new attempt awaiting dispatch: the patient was mailed', 409: 'Not undeliverable, already refunded, or stopped as too late for its window' },
  },
  'POST /v1/backoffice/orders/{id}/refund/': {
    id: 'refundUndeliverableOrder',
    errors: { 400: [fields], 404: [detail], 409: [{ detail_code: ['invalid_status_transition', 'order_refunded', 'order_not_refundable'] }], 502: [{ detail_code: ['refund_failed'] }] },
    descriptions: { 200: 'Refunded: the payments given back; the patient was mailed', 409: 'Not undeliverable, already refunded, or nothing to refund', 502: 'The payment provider refused the refund' },
    requestExample: { reason: 'Returned to sender twice; the patient asked for a refund.' },
  },

  // Partner pharmacies (docs/pharmacy.md)
  'GET /v1/users/pharmacies/': { id: 'listNearbyPharmacies', errors: { 400: [fields] }, descriptions: { 200: 'A page of active partner pharmacies, nearest first', 400: 'No country, or neither a postal code nor a city, to rank by (`near`)' } },
  'GET /v1/backoffice/pharmacies/': { id: 'listPartnerPharmacies', errors: { 400: [fields] }, descriptions: { 200: 'A page of partner pharmacies' } },
  'POST /v1/backoffice/pharmacies/': {
    id: 'createPartnerPharmacy',
    errors: { 400: [fields] },
    descriptions: { 201: 'The pharmacy, created' },
    requestExample: {
      name: 'Apotheke am Markt',
      address_line: 'Marktplatz 3',
      postal_code: '10115',
      city: 'Berlin',
      country: 'DEU',
      opening_hours: [{ day: 'mon', opens: '08:00', closes: '18:30' }, { day: 'sat', opens: '09:00', closes: '13:00' }],
      click_and_collect: true,
      delivery: false,
    },
  },
  'GET /v1/backoffice/pharmacies/{id}/': { id: 'getPartnerPharmacy', errors: { 404: [detail] }, descriptions: { 200: 'The pharmacy' } },
  'PATCH /v1/backoffice/pharmacies/{id}/': { id: 'updatePartnerPharmacy', errors: { 400: [fields], 404: [detail] }, descriptions: { 200: 'The pharmacy, changed' }, requestExample: { city: 'Berlin', delivery: true } },
  'POST /v1/backoffice/pharmacies/{id}/deactivate/': { id: 'deactivatePartnerPharmacy', errors: { 404: [detail] }, descriptions: { 200: 'The pharmacy, deactivated' } },
  'POST /v1/backoffice/pharmacies/{id}/activate/': { id: 'activatePartnerPharmacy', errors: { 404: [detail] }, descriptions: { 200: 'The pharmacy, active' } },
};

/** Extra properties some error bodies carry, by their code or error_name. */
export const ERROR_EXTRAS: Partial<Record<ErrorCode, Record<string, unknown>>> = {
  mfa_required: {
    mfa_token: { type: 'string', description: 'For `POST /v1/users/token/mfa/`: 5 minutes, single use, bound to this account' },
    methods: { type: 'array', items: { type: 'string', enum: ['totp', 'webauthn'] }, description: 'The second factors the account enrolled (`webauthn`: a passkey)' },
  },
  mfa_enrolment_required: {
    enrolment_token: { type: 'string', description: 'For `POST /v1/users/token/mfa/enrol/` and `.../enrol/confirm/` only: 15 minutes, single use' },
    methods: { type: 'array', items: { type: 'string', enum: ['totp', 'webauthn'] }, description: 'The factors that can be enrolled' },
  },
  REGISTRATION_RATE_LIMITED: { retry_after: { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER, description: 'Seconds to wait (also in `Retry-After`)' } },
  PROFILE_INCOMPLETE: { missing_fields: { type: 'array', items: { type: 'string' }, description: 'Profile fields to fill first' } },
  QUESTIONNAIRE_INCOMPLETE: { missing_answers: { type: 'array', items: { type: 'string' }, description: 'Question keys still unanswered' } },
  SUBMISSION_REQUIRED: { category: { type: 'string' } },
  SUBMISSION_NOT_ELIGIBLE: { category: { type: 'string' }, outcome: { type: 'string' } },
  PLAN_NOT_AVAILABLE: { category: { type: 'string' }, plan: { type: 'string' } },
  CONSULTATION_ALREADY_OPEN: { consultation_id: { type: 'string', format: 'uuid' } },
  SUBMISSION_ALREADY_USED: { consultation_id: { type: 'string', format: 'uuid' }, category: { type: 'string' } },
  renewal_answers_required: { missing_keys: { type: 'array', items: { type: 'string' } } },
  // null when the answers are fine but the treatment itself is excluded (docs/renewals.md).
  renewal_answer_ineligible: { question_key: { type: ['string', 'null'] } },
  invalid_treatment_variant: { treatment_id: { type: 'string' }, dosage: { type: ['string', 'null'] } },
  patient_choice_not_pending: { patient_choice_status: { type: ['string', 'null'] } },
};

/** operationId for a route missing from the registry: the method and the path, camelCased. */
export function derivedOperationId(method: string, path: string): string {
  const words = path
    .replace(/^\/v1\//, '/')
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean);
  return method.toLowerCase() + words.map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join('');
}
