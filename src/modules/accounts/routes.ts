// Account endpoints (spec 4.1, 5): thin routes over service.ts.
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { ModuleOptions, ZodApp } from '../../http/plugin.ts';
import { bearerSecurity, currentUser } from '../../http/auth.ts';
import { hasBrand, requireBrand } from '../../http/brand.ts';
import { DetailCodeSchema, ErrorCodeSchema, ErrorNameSchema, FieldErrorsSchema, TokenErrorSchema, fieldErrors } from '../../http/errors.ts';
import { clearedRefreshCookie, refreshFromCookie, setRefreshCookieOnSend, wantsRefreshCookie } from './refresh-cookie.ts';
import {
  ChangePasswordBody,
  ReauthenticateBody,
  ReauthenticatedSchema,
  ForgotBody,
  GoogleBody,
  LogoutBody,
  MessageSchema,
  RefreshBody,
  RefreshedSchema,
  RegisterBody,
  ResetBody,
  TokenBody,
  TokenPairSchema,
  VerifiedSchema,
  VerifyBody,
} from './schemas.ts';
import * as accounts from './service.ts';
import { mfaRoutes } from './mfa.routes.ts';
import { fields, invalidBrand, EXAMPLE_ACCESS, EXAMPLE_REFRESH, tokenPair, credentials } from '../../http/operation.ts';

/** verify-email attempts one client address may make in an hour (any accounts): generous for shared NATs. */
const VERIFY_EMAIL_PER_ADDRESS_PER_HOUR = 300;

const tags = ['accounts'];
const throttled = { 429: DetailCodeSchema.or(ErrorNameSchema) };

export default function accountsModule(app: ZodApp, { deps }: ModuleOptions): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const brand = deps.config.BRAND_SLUG;
  // The web app's refresh token travels in an HttpOnly cookie when it asks (./refresh-cookie.ts).
  app.addHook('onSend', setRefreshCookieOnSend(deps.config.REFRESH_TOKEN_TTL_SECONDS));

  r.post(
    '/v1/users/register/',
    {
      config: {
        access: 'public',
        operation: {
          id: 'register',
          brand: true,
          errors: { 400: [fields, { error: ['invalid_brand', 'registration_not_allowed'] }], 406: [{ error_name: ['REGISTRATION_EMAIL_UNDELIVERABLE'] }], 429: [{ error_name: ['REGISTRATION_RATE_LIMITED'] }] },
          descriptions: { 200: 'A 6-digit code was emailed (no account exists until it is verified)' },
          requestExample: { ...credentials, first_name: 'Ada', last_name: 'Lovelace', locale: 'en' },
          responseExample: { message: 'We have sent a 6-digit code to your email address. Enter it to verify your account.' },
        },
      },
      schema: {
        tags,
        security: [],
        summary: 'Register (creates an unverified account and emails a 6-digit code)',
        description:
          'Requires `X-Brand-Slug`. Registering the address of a pending signup again re-issues a code after the email cooldown (429 `REGISTRATION_RATE_LIMITED` inside it, the code already sent stays valid). The address of an active, staff, Google-backed or disabled account: 400 `registration_not_allowed`. A suppressed address: 406 `REGISTRATION_EMAIL_UNDELIVERABLE`.',
        body: RegisterBody,
        response: { 200: MessageSchema, 400: FieldErrorsSchema.or(ErrorCodeSchema), 406: ErrorNameSchema, 429: ErrorNameSchema },
      },
    },
    async (request) => {
      requireBrand(request, brand);
      await accounts.register(deps, request.body, request.ip);
      return { message: accounts.REGISTER_MESSAGE };
    },
  );

  r.post(
    '/v1/users/verify-email/',
    {
      config: {
        access: 'public',
        operation: {
          id: 'verifyEmail',
          brand: true,
          errors: { 400: [{ error_name: ['VERIFY_EMAIL_INVALID_REQUEST', 'VERIFY_EMAIL_INVALID_CODE'] }, invalidBrand, fields], 429: [{ error_name: ['VERIFY_EMAIL_TOO_MANY_ATTEMPTS'] }, { detail_code: ['throttled'] }] },
          descriptions: { 200: 'Verified: the account is active and signed in' },
          requestExample: { email: credentials.email, otp: '123456' },
          responseExample: { message: 'Your email address is verified.', ...tokenPair },
        },
      },
      schema: {
        tags,
        security: [],
        summary: 'Verify the email with the emailed code; answers a token pair',
        description:
          'Requires `X-Brand-Slug`. Missing fields: 400 `VERIFY_EMAIL_INVALID_REQUEST`; wrong or expired code: 400 `VERIFY_EMAIL_INVALID_CODE`; after 5 wrong codes: 429 `VERIFY_EMAIL_TOO_MANY_ATTEMPTS` for 15 minutes, extended by every further attempt.',
        body: VerifyBody,
        response: { 200: VerifiedSchema, 400: ErrorNameSchema.or(ErrorCodeSchema).or(FieldErrorsSchema), 429: ErrorNameSchema },
      },
    },
    async (request) => {
      requireBrand(request, brand);
      // Per address: wrong codes spread over many accounts from one client are throttled too.
      await deps.limiters.budget('verify-email-ip', VERIFY_EMAIL_PER_ADDRESS_PER_HOUR, 3600).consume(request.ip);
      return accounts.verifyEmail(deps, request.body.email, request.body.otp);
    },
  );

  r.post(
    '/v1/users/token/',
    {
      config: {
        access: 'public',
        operation: {
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
      },
      schema: {
        tags,
        security: [],
        summary: 'Sign in: exchange email and password for a token pair',
        description:
          'Requires `X-Brand-Slug` (missing or wrong: the same 401 `invalid_credentials` as a wrong password). 403 `user_inactive` for a disabled account, 400 `google_account` for a Google account without a password, 429 after repeated failures. With the right password, an account with a second factor gets 403 `{error, code: "mfa_required", mfa_token, methods}` (no tokens: finish with `POST /v1/users/token/mfa/`), and a staff account without one where `STAFF_MFA=required` gets 403 `{error, code: "mfa_enrolment_required", enrolment_token, methods}` (enrol with `POST /v1/users/token/mfa/enrol/`). Accounts without a factor are answered as before.',
        body: TokenBody,
        response: { 200: TokenPairSchema, 400: FieldErrorsSchema.or(ErrorCodeSchema), 401: ErrorCodeSchema, 403: ErrorCodeSchema, ...throttled },
      },
    },
    async (request) => accounts.signIn(deps, request.body.email, request.body.password, request.ip, hasBrand(request, brand)),
  );

  r.post(
    '/v1/users/token/refresh/',
    {
      config: {
        access: 'public',
        operation: {
          id: 'refreshToken',
          brand: true,
          errors: { 400: [fields, invalidBrand], 401: ['token'] },
          descriptions: { 200: 'A new access and refresh token (the presented refresh token is used up)', 401: 'The refresh token is invalid, expired, used or its session ended' },
          requestExample: { refresh: EXAMPLE_REFRESH },
          responseExample: { access: EXAMPLE_ACCESS, refresh: EXAMPLE_REFRESH },
        },
      },
      schema: {
        tags,
        security: [],
        summary: 'Rotate a refresh token: answers a new access and refresh token',
        description:
          'Requires `X-Brand-Slug` (400 `invalid_brand` otherwise). The refresh token is single-use: presenting a used one ends its whole session (every token of that sign-in). The web app’s refresh cookie (`X-Session-Cookie: 1`, no body token) is shared by its tabs: presented again within `REFRESH_COOKIE_REUSE_GRACE_SECONDS` (10 s) of its rotation it is answered once more with a new pair of the same session (docs/accounts.md).',
        body: RefreshBody,
        response: { 200: RefreshedSchema, 400: FieldErrorsSchema.or(ErrorCodeSchema), 401: TokenErrorSchema },
      },
    },
    async (request) => {
      requireBrand(request, brand);
      // No token in the body: the web app's HttpOnly cookie, with the custom header (CSRF).
      const fromCookie = request.body.refresh === undefined && wantsRefreshCookie(request) ? refreshFromCookie(request) : undefined;
      const token = request.body.refresh ?? fromCookie;
      if (token === undefined) throw fieldErrors({ refresh: ['This field is required.'] });
      return accounts.refresh(deps, token, fromCookie === undefined ? 'body' : 'cookie');
    },
  );

  r.post(
    '/v1/users/logout/',
    {
      // No body at all signs out the session of the access token.
      config: {
        operation: {
          id: 'signOut',
          errors: { 400: [fields] },
          descriptions: { 200: 'Signed out' },
          requestExample: { refresh: EXAMPLE_REFRESH },
          responseExample: { message: 'Signed out.' },
        },
      },
      preValidation: (request, _reply, done) => {
        request.body ??= {};
        done();
      },
      schema: {
        tags,
        security: bearerSecurity,
        summary: 'Sign out: ends the session of the access token (and of `refresh`, when it is the caller’s)',
        description: 'The body is optional: with no body (or `{}`) the session (refresh family) of the access token is revoked, so its refresh token stops working at once.',
        body: LogoutBody,
        response: { 200: MessageSchema, 400: FieldErrorsSchema, 401: TokenErrorSchema },
      },
    },
    async (request, reply) => {
      const user = currentUser(request);
      await accounts.logout(deps, user.id, user.sessionId, request.body?.refresh);
      // The web app's refresh cookie goes with the session.
      reply.header('set-cookie', clearedRefreshCookie());
      return { message: 'Signed out.' };
    },
  );

  r.post(
    '/v1/users/google-login/',
    {
      config: {
        access: 'public',
        operation: {
          id: 'signInWithGoogle',
          brand: true,
          errors: { 400: [fields, { error: ['invalid_brand', 'credential_required', 'google_login_disabled', 'google_link_not_allowed'] }], 401: [{ error: ['invalid_google_credential'] }], 403: [{ error: ['user_inactive'] }] },
          descriptions: { 200: 'The token pair (the account is created on first sign-in)' },
          requestExample: { credential: 'eyJhbGciOiJSUzI1NiIsImtpZCI6Imdvb2dsZS1rZXkifQ.eyJlbWFpbCI6ImFkYUBleGFtcGxlLm9yZyJ9.c2lnbmF0dXJl', locale: 'en' },
          responseExample: tokenPair,
        },
      },
      schema: {
        tags,
        security: [],
        summary: 'Sign in or sign up with a Google ID token (`credential`)',
        description: 'Requires `X-Brand-Slug`. Answers the token pair. The linking rule for an existing account with the same email is in docs/accounts.md.',
        body: GoogleBody,
        response: { 200: TokenPairSchema, 400: FieldErrorsSchema.or(ErrorCodeSchema), 401: ErrorCodeSchema, 403: ErrorCodeSchema },
      },
    },
    async (request) => {
      requireBrand(request, brand);
      return accounts.googleLogin(deps, request.body.credential, request.body.locale);
    },
  );

  r.post(
    '/v1/users/forgot-password/',
    {
      config: {
        access: 'public',
        operation: {
          id: 'requestPasswordReset',
          brand: true,
          errors: { 400: [fields, invalidBrand], 429: [{ detail_code: ['throttled'] }] },
          descriptions: { 200: 'The same answer whether or not the address has an account' },
          requestExample: { email: credentials.email },
        },
      },
      schema: {
        tags,
        security: [],
        summary: 'Email a password-reset link (same answer whether or not the address has an account)',
        body: ForgotBody,
        response: { 200: MessageSchema, 400: FieldErrorsSchema.or(ErrorCodeSchema) },
      },
    },
    async (request) => {
      requireBrand(request, brand);
      await accounts.forgotPassword(deps, request.body.email, request.ip);
      return { message: accounts.FORGOT_MESSAGE };
    },
  );

  r.post(
    '/v1/users/reset-password/',
    {
      config: {
        access: 'public',
        operation: {
          id: 'resetPassword',
          brand: true,
          errors: { 400: [fields, { error: ['invalid_brand', 'invalid_reset_token'] }] },
          descriptions: { 200: 'The password is changed and every session ended' },
          requestExample: { token: 'Zm9yZ290LXBhc3N3b3JkLXRva2VuLWZyb20tdGhlLWxpbms', password: 'Lantern-Quiet-Harbour-43' },
        },
      },
      schema: {
        tags,
        security: [],
        summary: 'Set a new password with the token from the emailed link; ends every session',
        body: ResetBody,
        response: { 200: MessageSchema, 400: FieldErrorsSchema.or(ErrorCodeSchema) },
      },
    },
    async (request) => {
      requireBrand(request, brand);
      await accounts.resetPassword(deps, request.body.token, request.body.password);
      return { message: 'Your password has been changed. Sign in with the new password.' };
    },
  );

  r.post(
    '/v1/users/change-password/',
    {
      config: {
        operation: {
          id: 'changePassword',
          errors: { 400: [fields, { error: ['google_account'] }], 429: [{ detail_code: ['throttled'] }] },
          descriptions: {
            200: 'The password is changed; every other session of the account ended, this one stays signed in',
            400: 'Wrong current password (`current_password`), a weak new password (`new_password`), or a Google account without a password',
          },
          requestExample: { current_password: credentials.password, new_password: 'Lantern-Quiet-Harbour-43' },
          responseExample: { message: 'Your password has been changed. Your other sessions have been signed out.' },
        },
      },
      schema: {
        tags,
        security: bearerSecurity,
        summary: 'Change the password of the signed-in account (the current password is required)',
        description:
          'Wrong current password: 400 `{current_password: [...]}` (counts against the same per-account failure budget as sign-in; over it: 429 `throttled`). Weak new password: 400 `{new_password: [...]}` (the registration rules, in the account locale). An account that signs in with Google and has no password: 400 `google_account`. Success ends every other session of the account (this one stays signed in) and mails a notice.',
        body: ChangePasswordBody,
        response: { 200: MessageSchema, 400: FieldErrorsSchema.or(ErrorCodeSchema), 401: TokenErrorSchema.or(DetailCodeSchema), 429: DetailCodeSchema },
      },
    },
    async (request) => {
      const user = currentUser(request);
      await accounts.changePassword(deps, user.id, user.sessionId, request.body.current_password, request.body.new_password);
      return { message: accounts.PASSWORD_CHANGED_MESSAGE };
    },
  );

  r.post(
    '/v1/users/me/reauthenticate/',
    {
      config: {
        operation: {
          id: 'reauthenticate',
          errors: { 400: [fields], 409: [{ error: ['mfa_not_enrolled'] }], 429: [{ detail_code: ['throttled'] }] },
          descriptions: {
            200: 'This session may change the account’s factors and recovery codes for 5 minutes',
            400: 'Neither or both of `password` and `code`, a wrong password (`password`) or a wrong code (`code`)',
            409: 'A code from an account without a second factor',
          },
          requestExample: { password: credentials.password },
          responseExample: { reauthenticated_until: '2026-03-01T10:05:00.000Z' },
        },
      },
      schema: {
        tags,
        security: bearerSecurity,
        summary: 'Confirm it is you (password or a current code) before a security change',
        description:
          'Adding or removing a passkey, setting up an authenticator app and replacing recovery codes without a code need the session to have proved its holder within the last 5 minutes: the sign-in that opened it, or this call. Give `password`, or `code` (a current authenticator code or an unused recovery code). A wrong password counts against the sign-in failure budget, a wrong code against the code budget (over them: 429 `throttled`). An account with neither a password nor a factor (Google sign-in) signs in again instead. Changing the password asks for the current password itself.',
        body: ReauthenticateBody,
        response: { 200: ReauthenticatedSchema, 400: FieldErrorsSchema, 409: ErrorCodeSchema, 429: DetailCodeSchema },
      },
    },
    async (request) => accounts.reauthenticate(deps, currentUser(request), request.body),
  );
  mfaRoutes(app, deps);
  return Promise.resolve();
}
