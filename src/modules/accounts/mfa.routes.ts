// Second-factor endpoints (docs/accounts.md, "Second factor"): the second step of a sign-in and the
// enrolment it may require (tickets in the body, X-Brand-Slug), and the signed-in account's own
// factor (bearer). Thin routes over mfa.ts.
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Deps } from '../../deps.ts';
import type { ZodApp } from '../../http/plugin.ts';
import { bearerSecurity, currentUser } from '../../http/auth.ts';
import { requireBrand } from '../../http/brand.ts';
import { DetailCodeSchema, ErrorCodeSchema, FieldErrorsSchema } from '../../http/errors.ts';
import * as mfa from './mfa.ts';
import {
  EnrolledSchema,
  EnrolmentBody,
  EnrolmentConfirmBody,
  MessageSchema,
  MfaCodeBody,
  MfaSignInBody,
  MfaStatusSchema,
  RecoveryCodesSchema,
  TokenPairSchema,
  TotpCodeBody,
  TotpSetupSchema,
} from './schemas.ts';

const tags = ['accounts'];
const brandAnd400 = FieldErrorsSchema.or(ErrorCodeSchema);

export function mfaRoutes(app: ZodApp, deps: Deps): void {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const brand = deps.config.BRAND_SLUG;

  r.post(
    '/v1/users/token/mfa/',
    {
      schema: {
        tags,
        security: [],
        summary: 'Sign in, second step: the `mfa_token` and a TOTP or recovery code -> the token pair',
        description:
          'Requires `X-Brand-Slug`. After `POST /v1/users/token/` answered 403 `mfa_required`. A wrong code: 401 `invalid_mfa_code` (a code already accepted once, even within its 30 seconds, is wrong; so is a spent recovery code). An unknown, expired (5 minutes), used or wrongly-guessed-5-times `mfa_token`: 401 `invalid_mfa_token` (sign in again). Wrong codes count per account and per address like sign-in failures; over either budget: 429 `throttled`.',
        body: MfaSignInBody,
        response: { 200: TokenPairSchema, 400: brandAnd400, 401: ErrorCodeSchema, 429: DetailCodeSchema },
      },
    },
    async (request) => {
      requireBrand(request, brand);
      return mfa.completeSignIn(deps, request.body.mfa_token, request.body.code, request.ip);
    },
  );

  r.post(
    '/v1/users/token/mfa/enrol/',
    {
      schema: {
        tags,
        security: [],
        summary: 'Enrolment during sign-in: a new TOTP secret and its otpauth URI (for the QR code)',
        description:
          'Requires `X-Brand-Slug`. After `POST /v1/users/token/` answered 403 `mfa_enrolment_required`: the `enrolment_token` allows only this and the confirmation. Each call makes a new secret (the previous unconfirmed one stops counting). 401 `invalid_mfa_token` when the token is unknown, expired or used.',
        body: EnrolmentBody,
        response: { 200: TotpSetupSchema, 400: brandAnd400, 401: ErrorCodeSchema, 409: ErrorCodeSchema, 429: DetailCodeSchema },
      },
    },
    async (request) => {
      requireBrand(request, brand);
      return mfa.startEnrolment(deps, request.body.enrolment_token, request.ip);
    },
  );

  r.post(
    '/v1/users/token/mfa/enrol/confirm/',
    {
      schema: {
        tags,
        security: [],
        summary: 'Enrolment during sign-in: confirm with a code -> recovery codes and the token pair',
        description:
          'Requires `X-Brand-Slug`. The first code of the new secret confirms it: the answer carries the ten recovery codes (shown once) and signs the account in. A wrong code: 401 `invalid_mfa_code` (counted like a wrong second-step code); no enrolment started: 409 `mfa_enrolment_not_started`.',
        body: EnrolmentConfirmBody,
        response: { 200: EnrolledSchema, 400: brandAnd400, 401: ErrorCodeSchema, 409: ErrorCodeSchema, 429: DetailCodeSchema },
      },
    },
    async (request) => {
      requireBrand(request, brand);
      return mfa.confirmEnrolment(deps, request.body.enrolment_token, request.body.code, request.ip);
    },
  );

  r.get(
    '/v1/users/mfa/',
    {
      schema: {
        tags,
        security: bearerSecurity,
        summary: 'The second factor of the signed-in account',
        response: { 200: MfaStatusSchema },
      },
    },
    async (request) => mfa.mfaStatus(deps, currentUser(request)),
  );

  r.post(
    '/v1/users/mfa/totp/',
    {
      schema: {
        tags,
        security: bearerSecurity,
        summary: 'Start setting up an authenticator app: a new secret and its otpauth URI',
        description: 'Any signed-in account (patients optionally). Each call makes a new secret until one is confirmed. An account whose factor is confirmed: 409 `mfa_already_enrolled`.',
        response: { 200: TotpSetupSchema, 409: ErrorCodeSchema },
      },
    },
    async (request) => mfa.startTotpForUser(deps, currentUser(request)),
  );

  r.post(
    '/v1/users/mfa/totp/confirm/',
    {
      schema: {
        tags,
        security: bearerSecurity,
        summary: 'Confirm the authenticator app with its first code -> ten recovery codes',
        description:
          'From then on sign-in asks for a code. A wrong code: 400 `{code: [...]}` (counted against the account’s code budget; over it 429 `throttled`). Nothing started: 409 `mfa_enrolment_not_started`; already confirmed: 409 `mfa_already_enrolled`.',
        body: TotpCodeBody,
        response: { 200: RecoveryCodesSchema, 400: FieldErrorsSchema, 409: ErrorCodeSchema, 429: DetailCodeSchema },
      },
    },
    async (request) => mfa.confirmTotpForUser(deps, currentUser(request).id, request.body.code),
  );

  r.post(
    '/v1/users/mfa/recovery-codes/',
    {
      schema: {
        tags,
        security: bearerSecurity,
        summary: 'Replace the recovery codes (a current authenticator code confirms it)',
        description: 'The old codes stop working. A wrong code: 400 `{code: [...]}`; no factor: 409 `mfa_not_enrolled`.',
        body: TotpCodeBody,
        response: { 200: RecoveryCodesSchema, 400: FieldErrorsSchema, 409: ErrorCodeSchema, 429: DetailCodeSchema },
      },
    },
    async (request) => mfa.regenerateRecoveryCodes(deps, currentUser(request).id, request.body.code),
  );

  r.post(
    '/v1/users/mfa/totp/remove/',
    {
      schema: {
        tags,
        security: bearerSecurity,
        summary: 'Turn the second factor off (an authenticator or recovery code confirms it)',
        description: 'Not for an account that must have one (staff with `STAFF_MFA=required`): 403 `mfa_removal_not_allowed`. A wrong code: 400 `{code: [...]}`; no factor: 409 `mfa_not_enrolled`.',
        body: MfaCodeBody,
        response: { 200: MessageSchema, 400: FieldErrorsSchema, 403: ErrorCodeSchema, 409: ErrorCodeSchema, 429: DetailCodeSchema },
      },
    },
    async (request) => {
      await mfa.removeTotp(deps, currentUser(request), request.body.code);
      return { message: 'The second factor is turned off.' };
    },
  );
}
