// Second-factor endpoints (docs/accounts.md, "Second factor"): the second step of a sign-in and the
// enrolment it may require (tickets in the body, X-Brand-Slug), and the signed-in account's own
// factor (bearer). Thin routes over mfa.ts.
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Deps } from '../../deps.ts';
import type { ZodApp } from '../../http/plugin.ts';
import { bearerSecurity, currentUser } from '../../http/auth.ts';
import { requireBrand } from '../../http/brand.ts';
import { DetailCodeSchema, DetailSchema, ErrorCodeSchema, FieldErrorsSchema, fieldErrors } from '../../http/errors.ts';
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
  RecoveryCodesBody,
  TotpSetupSchema,
  CreationOptionsSchema,
  MfaTokenBody,
  PasskeyCreateBody,
  PasskeyCreatedSchema,
  PasskeyEnrolBody,
  PasskeyIdParams,
  PasskeyListSchema,
  RequestOptionsSchema,
} from './schemas.ts';
import { fields, notFoundDetail, invalidBrand, tokenPair } from '../../http/operation.ts';

const tags = ['accounts'];
const brandAnd400 = FieldErrorsSchema.or(ErrorCodeSchema);

export function mfaRoutes(app: ZodApp, deps: Deps): void {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const brand = deps.config.BRAND_SLUG;

  r.post(
    '/v1/users/token/mfa/',
    {
      config: {
        // The second step of a sign-in or its enrolment: a ticket in the body, not a bearer token.
        access: 'public',
        operation: {
          id: 'signInSecondStep',
          brand: true,
          errors: { 400: [fields, invalidBrand], 401: [{ error: ['invalid_mfa_code', 'invalid_passkey', 'invalid_mfa_token'] }], 429: [{ detail_code: ['throttled'] }] },
          descriptions: { 200: 'The token pair', 400: 'Neither or both of `code` and `webauthn` (`code`), or a missing or wrong `X-Brand-Slug`', 401: 'A wrong or already used code (`invalid_mfa_code`), a refused passkey assertion (`invalid_passkey`), or an unknown, expired or used `mfa_token` (`invalid_mfa_token`)' },
          requestExample: { mfa_token: 'bWZhLXRva2VuLWZyb20tdGhlLTQwMy1hbnN3ZXI', code: '492039' },
          responseExample: { ...tokenPair, is_doctor: true },
        },
      },
      schema: {
        tags,
        security: [],
        summary: 'Sign in, second step: the `mfa_token` and a TOTP or recovery code, or a passkey assertion -> the token pair',
        description:
          'Requires `X-Brand-Slug`. After `POST /v1/users/token/` answered 403 `mfa_required`. Give exactly one of `code` and `webauthn` (else 400 `{code: [...]}`). A wrong code: 401 `invalid_mfa_code` (a code already accepted once, even within its 30 seconds, is wrong; so is a spent recovery code). A passkey assertion that fails (another account’s passkey, a challenge not issued for this `mfa_token`, used or older than 5 minutes, a bad signature or a counter that did not grow): 401 `invalid_passkey`. An unknown, expired (5 minutes), used or wrongly-answered-5-times `mfa_token`: 401 `invalid_mfa_token` (sign in again). Wrong codes and refused assertions count per account and per address like sign-in failures; over either budget: 429 `throttled`.',
        body: MfaSignInBody,
        response: { 200: TokenPairSchema, 400: brandAnd400, 401: ErrorCodeSchema, 429: DetailCodeSchema },
      },
    },
    async (request) => {
      requireBrand(request, brand);
      const { mfa_token, code, webauthn } = request.body;
      if ((code === undefined) === (webauthn === undefined)) throw fieldErrors({ code: ['Give the code from your authenticator app, a recovery code, or a passkey assertion (`webauthn`): one of them.'] });
      return mfa.completeSignIn(deps, mfa_token, webauthn ? { webauthn } : { code: code ?? '' }, request.ip);
    },
  );

  r.post(
    '/v1/users/token/mfa/enrol/',
    {
      config: {
        // The second step of a sign-in or its enrolment: a ticket in the body, not a bearer token.
        access: 'public',
        operation: {
          id: 'startSignInEnrolment',
          brand: true,
          errors: { 400: [fields, invalidBrand], 401: [{ error: ['invalid_mfa_token'] }], 409: [{ error: ['mfa_already_enrolled'] }], 429: [{ detail_code: ['throttled'] }] },
          descriptions: { 200: 'A new secret and its otpauth URI' },
          requestExample: { enrolment_token: 'ZW5yb2xtZW50LXRva2VuLWZyb20tdGhlLTQwMw' },
          responseExample: { secret: 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP', otpauth_uri: 'otpauth://totp/demo:doctor%40example.org?issuer=demo&secret=JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP&algorithm=SHA1&digits=6&period=30' },
        },
      },
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
      config: {
        // The second step of a sign-in or its enrolment: a ticket in the body, not a bearer token.
        access: 'public',
        operation: {
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
      },
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
      config: {
        operation: { id: 'getSecondFactor', descriptions: { 200: 'The confirmed factors, whether one is required, and the recovery codes left' } },
      },
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
      config: {
        operation: {
          id: 'startTotpEnrolment',
          errors: { 403: [{ error: ['reauthentication_required'] }], 409: [{ error: ['mfa_already_enrolled'] }] },
          descriptions: { 200: 'A new secret and its otpauth URI', 403: 'No recent re-authentication' },
        },
      },
      schema: {
        tags,
        security: bearerSecurity,
        summary: 'Start setting up an authenticator app: a new secret and its otpauth URI',
        description: 'Any signed-in account (patients optionally). Each call makes a new secret until one is confirmed. An account whose factor is confirmed: 409 `mfa_already_enrolled`. Needs a recent re-authentication (the sign-in or `POST /v1/users/me/reauthenticate/` within 5 minutes): else 403 `reauthentication_required`. Confirming mails the account’s owner.',
        response: { 200: TotpSetupSchema, 403: ErrorCodeSchema, 409: ErrorCodeSchema },
      },
    },
    async (request) => mfa.startTotpForUser(deps, currentUser(request)),
  );

  r.post(
    '/v1/users/mfa/totp/confirm/',
    {
      config: {
        operation: {
          id: 'confirmTotpEnrolment',
          errors: { 400: [fields], 409: [{ error: ['mfa_already_enrolled', 'mfa_enrolment_not_started'] }], 429: [{ detail_code: ['throttled'] }] },
          descriptions: { 200: 'Enrolled: the ten recovery codes (shown once)', 400: 'A wrong code (`code`)' },
        },
      },
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
    async (request) => mfa.confirmTotpForUser(deps, currentUser(request).id, request.body.code, currentUser(request).sessionId),
  );

  r.post(
    '/v1/users/mfa/recovery-codes/',
    {
      config: {
        operation: {
          id: 'replaceRecoveryCodes',
          errors: { 400: [fields], 403: [{ error: ['reauthentication_required'] }], 409: [{ error: ['mfa_not_enrolled'] }], 429: [{ detail_code: ['throttled'] }] },
          descriptions: { 200: 'Ten new recovery codes (the old ones stop working)', 400: 'A wrong code (`code`), or a code from an account without an authenticator app', 403: 'No code and no recent re-authentication' },
        },
      },
      schema: {
        tags,
        security: bearerSecurity,
        summary: 'Replace the recovery codes (a current authenticator code, or a recent re-authentication, confirms it)',
        description:
          'The old codes stop working, and the account’s owner gets a mail. With `code`: a current authenticator code (wrong: 400 `{code: [...]}`; an account whose only factor is a passkey has none: 400 `{code: [...]}` saying to re-authenticate instead). Without `code`: needs a recent re-authentication (`POST /v1/users/me/reauthenticate/` or the sign-in, within 5 minutes), else 403 `reauthentication_required`. No factor: 409 `mfa_not_enrolled`.',
        body: RecoveryCodesBody,
        response: { 200: RecoveryCodesSchema, 400: FieldErrorsSchema, 403: ErrorCodeSchema, 409: ErrorCodeSchema, 429: DetailCodeSchema },
      },
    },
    async (request) => mfa.regenerateRecoveryCodes(deps, currentUser(request), request.body.code),
  );

  r.post(
    '/v1/users/mfa/totp/remove/',
    {
      config: {
        operation: {
          id: 'removeTotp',
          errors: { 400: [fields], 403: [{ error: ['mfa_removal_not_allowed'] }], 409: [{ error: ['mfa_not_enrolled'] }], 429: [{ detail_code: ['throttled'] }] },
          descriptions: { 200: 'The factor and its recovery codes are removed', 400: 'A wrong code (`code`)' },
        },
      },
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

  passkeyRoutes(app, deps);
}

/** Passkeys (docs/accounts.md, "Passkeys"): sign-in with one, enrolment with one, the account's own. */
function passkeyRoutes(app: ZodApp, deps: Deps): void {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const brand = deps.config.BRAND_SLUG;

  r.post(
    '/v1/users/token/mfa/webauthn/options/',
    {
      config: {
        // The second step of a sign-in or its enrolment: a ticket in the body, not a bearer token.
        access: 'public',
        operation: {
          id: 'passkeySignInOptions',
          brand: true,
          errors: { 400: [fields, invalidBrand], 401: [{ error: ['invalid_mfa_token'] }], 409: [{ error: ['mfa_not_enrolled'] }], 429: [{ detail_code: ['throttled'] }] },
          descriptions: { 200: 'The request options for `startAuthentication()`: a single-use challenge bound to this `mfa_token`', 409: 'The account has no passkey' },
          requestExample: { mfa_token: 'bWZhLXRva2VuLWZyb20tdGhlLTQwMy1hbnN3ZXI' },
        },
      },
      schema: {
        tags,
        security: [],
        summary: 'Sign in, second step with a passkey: the challenge for this `mfa_token`',
        description:
          'Requires `X-Brand-Slug`. After `POST /v1/users/token/` answered 403 `mfa_required` with `webauthn` among the `methods`. The options (for `startAuthentication()` of @simplewebauthn/browser) list the account’s passkeys; the challenge is single-use, valid 5 minutes and good only with this `mfa_token`. Send the assertion to `POST /v1/users/token/mfa/` as `webauthn`. An unknown, expired or used `mfa_token`: 401 `invalid_mfa_token`; an account without a passkey: 409 `mfa_not_enrolled`.',
        body: MfaTokenBody,
        response: { 200: RequestOptionsSchema, 400: brandAnd400, 401: ErrorCodeSchema, 409: ErrorCodeSchema, 429: DetailCodeSchema },
      },
    },
    async (request) => {
      requireBrand(request, brand);
      return mfa.passkeySignInOptions(deps, request.body.mfa_token, request.ip);
    },
  );

  r.post(
    '/v1/users/token/mfa/enrol/passkey/options/',
    {
      config: {
        // The second step of a sign-in or its enrolment: a ticket in the body, not a bearer token.
        access: 'public',
        operation: {
          id: 'startSignInPasskeyEnrolment',
          brand: true,
          errors: { 400: [fields, invalidBrand], 401: [{ error: ['invalid_mfa_token'] }], 429: [{ detail_code: ['throttled'] }] },
          descriptions: { 200: 'The creation options for `startRegistration()`: a single-use challenge bound to the account' },
          requestExample: { enrolment_token: 'ZW5yb2xtZW50LXRva2VuLWZyb20tdGhlLTQwMw' },
        },
      },
      schema: {
        tags,
        security: [],
        summary: 'Enrolment during sign-in with a passkey: the options to create one',
        description:
          'Requires `X-Brand-Slug`. After `POST /v1/users/token/` answered 403 `mfa_enrolment_required`: the `enrolment_token` allows this instead of an authenticator app. The options are for `startRegistration()` of @simplewebauthn/browser; the challenge is single-use and valid 5 minutes. 401 `invalid_mfa_token` when the token is unknown, expired or used.',
        body: EnrolmentBody,
        response: { 200: CreationOptionsSchema, 400: brandAnd400, 401: ErrorCodeSchema, 429: DetailCodeSchema },
      },
    },
    async (request) => {
      requireBrand(request, brand);
      return mfa.startPasskeyEnrolment(deps, request.body.enrolment_token, request.ip);
    },
  );

  r.post(
    '/v1/users/token/mfa/enrol/passkey/',
    {
      config: {
        // The second step of a sign-in or its enrolment: a ticket in the body, not a bearer token.
        access: 'public',
        operation: {
          id: 'confirmSignInPasskeyEnrolment',
          brand: true,
          errors: { 400: [fields, invalidBrand], 401: [{ error: ['invalid_passkey', 'invalid_mfa_token'] }], 429: [{ detail_code: ['throttled'] }] },
          descriptions: { 200: 'Enrolled and signed in: the recovery codes (shown once) and the token pair', 401: 'A refused credential (`invalid_passkey`), or an unknown, expired or used `enrolment_token` (`invalid_mfa_token`)' },
        },
      },
      schema: {
        tags,
        security: [],
        summary: 'Enrolment during sign-in with a passkey: the new passkey -> recovery codes and the token pair',
        description:
          'Requires `X-Brand-Slug`. The credential `startRegistration()` returned for the options of `.../enrol/passkey/options/`. Enrolled and signed in: the answer carries the ten recovery codes (shown once). A credential that fails the checks (challenge not issued to this account, used or older than 5 minutes, wrong origin or RP ID, already registered): 401 `invalid_passkey` (counted like a wrong code).',
        body: PasskeyEnrolBody,
        response: { 200: EnrolledSchema, 400: brandAnd400, 401: ErrorCodeSchema, 429: DetailCodeSchema },
      },
    },
    async (request) => {
      requireBrand(request, brand);
      return mfa.confirmPasskeyEnrolment(deps, request.body.enrolment_token, request.body.credential, request.body.name, request.ip);
    },
  );

  r.get(
    '/v1/users/mfa/passkeys/',
    { config: { operation: { id: 'listPasskeys', descriptions: { 200: 'The account’s passkeys, oldest first' } } }, schema: { tags, security: bearerSecurity, summary: 'The passkeys of the signed-in account', response: { 200: PasskeyListSchema } } },
    async (request) => mfa.passkeysOf(deps, currentUser(request).id),
  );

  r.post(
    '/v1/users/mfa/passkeys/options/',
    {
      config: {
        operation: {
          id: 'startPasskeyRegistration',
          errors: { 403: [{ error: ['reauthentication_required'] }] },
          descriptions: { 200: 'The creation options for `startRegistration()`: a single-use challenge bound to the account', 403: 'No recent re-authentication' },
        },
      },
      schema: {
        tags,
        security: bearerSecurity,
        summary: 'Start adding a passkey: the options to create one',
        description: 'Any signed-in account (patients optionally). The options are for `startRegistration()` of @simplewebauthn/browser and exclude the account’s passkeys; the challenge is single-use, valid 5 minutes and bound to the account. Needs a recent re-authentication (the sign-in or `POST /v1/users/me/reauthenticate/` within 5 minutes): else 403 `reauthentication_required`.',
        response: { 200: CreationOptionsSchema, 403: ErrorCodeSchema },
      },
    },
    async (request) => mfa.passkeyOptionsForUser(deps, currentUser(request)),
  );

  r.post(
    '/v1/users/mfa/passkeys/',
    {
      config: {
        operation: {
          id: 'addPasskey',
          errors: { 400: [fields], 403: [{ error: ['reauthentication_required'] }] },
          descriptions: { 201: 'The passkey, and the recovery codes when it is the first factor', 400: 'The credential was refused (`credential`)', 403: 'No recent re-authentication' },
        },
      },
      schema: {
        tags,
        security: bearerSecurity,
        summary: 'Add a passkey (201): the credential `startRegistration()` returned',
        description:
          'From then on sign-in asks for a second factor, and a passkey may give it. When it is the account’s first factor the answer carries ten recovery codes (shown once). A credential that fails the checks (challenge not issued to this account, used or older than 5 minutes, wrong origin or RP ID, already registered): 400 `{credential: [...]}`. Needs a recent re-authentication (the sign-in or `POST /v1/users/me/reauthenticate/` within 5 minutes): else 403 `reauthentication_required`. The account’s owner gets a mail.',
        body: PasskeyCreateBody,
        response: { 201: PasskeyCreatedSchema, 400: FieldErrorsSchema, 403: ErrorCodeSchema },
      },
    },
    async (request, reply) => reply.code(201).send(await mfa.createPasskeyForUser(deps, currentUser(request).id, request.body.credential, request.body.name, currentUser(request).sessionId)),
  );

  r.delete(
    '/v1/users/mfa/passkeys/:id/',
    {
      config: {
        operation: {
          id: 'removePasskey',
          errors: { 403: [{ error: ['mfa_removal_not_allowed', 'reauthentication_required'] }], 404: [notFoundDetail] },
          descriptions: { 204: 'Removed', 403: 'The last factor of an account that must have one, or no recent re-authentication', 404: 'No passkey of this account has this id' },
        },
      },
      schema: {
        tags,
        security: bearerSecurity,
        summary: 'Remove a passkey (204)',
        description:
          'Another account’s passkey, or none with this id: 404. The account’s last factor where one is required (staff with `STAFF_MFA=required`): 403 `mfa_removal_not_allowed`. With the last factor the recovery codes go too. Needs a recent re-authentication (the sign-in or `POST /v1/users/me/reauthenticate/` within 5 minutes): else 403 `reauthentication_required`. The account’s owner gets a mail.',
        params: PasskeyIdParams,
        response: { 204: z.null(), 403: ErrorCodeSchema, 404: DetailSchema },
      },
    },
    async (request, reply) => {
      await mfa.removePasskey(deps, currentUser(request), request.params.id);
      return reply.code(204).send(null);
    },
  );
}
