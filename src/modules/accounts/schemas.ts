// Request and response shapes of the account endpoints.
import { z } from 'zod';
import { LOCALES } from '../../lib/locales.ts';

const LocaleSchema = z.enum(LOCALES);
const email = z.string().trim().max(254).pipe(z.email({ error: 'Enter a valid email address.' }));

export const RegisterBody = z.object({
  email,
  password: z.string().max(1024),
  first_name: z.string().max(150).optional(),
  last_name: z.string().max(150).optional(),
  locale: LocaleSchema.optional(),
  referral_code: z.string().max(32).optional().meta({ description: "A referrer's code: the new account is attributed to that referrer" }),
});

// Missing fields answer VERIFY_EMAIL_INVALID_REQUEST rather than field errors (spec 4.1), so the
// schema accepts anything and the service checks.
export const VerifyBody = z.object({ email: z.unknown().optional(), otp: z.unknown().optional() }).meta({
  description: '`email` and `otp` (the 6-digit code) are both required',
});

export const TokenBody = z.object({ email: z.string().max(254), password: z.string().max(1024) });
export const RefreshBody = z.object({
  refresh: z.string().max(4096).optional().meta({ description: 'The refresh token. A browser that signed in with `X-Session-Cookie: 1` leaves it out and sends the `pts_refresh` cookie and that header instead' }),
});
export const LogoutBody = z.object({ refresh: z.string().max(4096).optional() });
export const GoogleBody = z.object({
  credential: z.unknown().optional().meta({ description: 'The Google ID token (Google Identity Services `credential`)' }),
  locale: LocaleSchema.optional(),
});
export const ForgotBody = z.object({ email: z.string().max(254) });
export const ResetBody = z.object({ token: z.string().max(512), password: z.string().max(1024) });

export const ChangePasswordBody = z.object({
  current_password: z.string().max(1024),
  new_password: z.string().max(1024).meta({ description: 'The same rules as at registration (8 to 128 characters, not common, not like the email, not easy to guess)' }),
});

export const MessageSchema = z.object({ message: z.string() });

export const TokenPairSchema = z.object({
  access: z.string(),
  refresh: z.string(),
  is_doctor: z.boolean(),
  is_backoffice_admin: z.boolean(),
  is_marketer: z.boolean(),
  is_pharmacist: z.boolean(),
});

export const VerifiedSchema = TokenPairSchema.extend({ message: z.string() });
export const RefreshedSchema = z.object({ access: z.string(), refresh: z.string() });

// ---------------------------------------------------------------- second factor (docs/accounts.md)

const mfaCode = z.string().max(64).meta({ description: 'A 6-digit code of the authenticator app, or one of the recovery codes (`xxxxx-xxxxx`)', examples: ['492039'] });
const ticket = (what: string) => z.string().min(1).max(512).meta({ description: what });

export const EnrolmentBody = z.object({ enrolment_token: ticket('The `enrolment_token` of the 403 `mfa_enrolment_required` answer (15 minutes; it allows only the enrolment)') });
export const EnrolmentConfirmBody = EnrolmentBody.extend({ code: z.string().max(64).meta({ description: 'A 6-digit code the authenticator app shows for the new secret', examples: ['492039'] }) });
export const TotpCodeBody = z.object({ code: z.string().max(64).meta({ description: 'A 6-digit code of the authenticator app', examples: ['492039'] }) });
export const MfaCodeBody = z.object({ code: mfaCode });
export const RecoveryCodesBody = z.object({
  code: z.string().max(64).optional().meta({ description: 'A current 6-digit authenticator code; leave it out after a recent re-authentication (an account whose only factor is a passkey has none)' }),
});
export const ReauthenticateBody = z.object({
  password: z.string().max(1024).optional().meta({ description: 'The account’s password' }),
  code: mfaCode.optional().meta({ description: 'Instead of the password: a current authenticator code or an unused recovery code' }),
});
export const ReauthenticatedSchema = z.object({
  reauthenticated_until: z.string().meta({ description: 'Until when (ISO 8601, 5 minutes) this session may change the account’s factors and recovery codes' }),
});

export const TotpSetupSchema = z.object({
  secret: z.string().meta({ description: 'The new base32 secret, for typing into an authenticator app by hand' }),
  otpauth_uri: z.string().meta({ description: 'The `otpauth://totp/...` URI to show as a QR code' }),
});
const recoveryCodes = z.array(z.string()).meta({ description: 'Ten single-use recovery codes, shown this once (only their hashes are kept)' });
export const RecoveryCodesSchema = z.object({ recovery_codes: recoveryCodes });
export const EnrolledSchema = TokenPairSchema.extend({ recovery_codes: recoveryCodes });
export const MfaStatusSchema = z.object({
  methods: z.array(z.enum(['totp', 'webauthn'])).meta({ description: 'The confirmed second factors (empty: none)' }),
  required: z.boolean().meta({ description: 'Whether this account must have a second factor (staff with `STAFF_MFA=required`)' }),
  recovery_codes_left: z.number().int().meta({ description: 'Unused recovery codes' }),
});

// ---------------------------------------------------------------- passkeys (docs/accounts.md, "Passkeys")

const b64url = (max: number) => z.string().min(1).max(max).regex(/^[A-Za-z0-9_-]+={0,2}$/, { error: 'Must be base64url.' });
const credentialType = z.literal('public-key');
const attachment = z.enum(['platform', 'cross-platform']).optional();
const extensionResults = z.record(z.string().max(64), z.unknown()).meta({ description: 'The client extension results (`getClientExtensionResults()`)' });

/** The fields every WebAuthn credential JSON carries around its `response`. */
const credentialEnvelope = {
  id: b64url(1400),
  rawId: b64url(1400),
  type: credentialType,
  authenticatorAttachment: attachment,
  clientExtensionResults: extensionResults,
};

/** What `startRegistration()` of @simplewebauthn/browser returns (WebAuthn RegistrationResponseJSON). */
export const RegistrationResponseSchema = z
  .object({
    ...credentialEnvelope,
    response: z.object({
      clientDataJSON: b64url(8192),
      attestationObject: b64url(65536),
      authenticatorData: b64url(65536).optional(),
      transports: z.array(z.string().max(32)).max(16).optional(),
      publicKeyAlgorithm: z.number().int().optional(),
      publicKey: b64url(8192).optional(),
    }),
  })
  .meta({ description: 'The new credential as `startRegistration()` of @simplewebauthn/browser returns it (WebAuthn `RegistrationResponseJSON`)' });

/** What `startAuthentication()` of @simplewebauthn/browser returns (WebAuthn AuthenticationResponseJSON). */
export const AuthenticationResponseSchema = z
  .object({
    ...credentialEnvelope,
    response: z.object({
      clientDataJSON: b64url(8192),
      authenticatorData: b64url(65536),
      signature: b64url(8192),
      userHandle: b64url(1024).optional(),
    }),
  })
  .meta({ description: 'The assertion as `startAuthentication()` of @simplewebauthn/browser returns it (WebAuthn `AuthenticationResponseJSON`)' });

const passkeyName = z.string().trim().min(1).max(64).optional().meta({ description: 'A label for the passkey (default "Passkey"), shown on the account page', examples: ['Work laptop'] });

export const MfaTokenBody = z.object({ mfa_token: ticket('The `mfa_token` of the 403 `mfa_required` answer (5 minutes, single use)') });
export const PasskeyCreateBody = z.object({ credential: RegistrationResponseSchema, name: passkeyName });
export const PasskeyEnrolBody = EnrolmentBody.extend({ credential: RegistrationResponseSchema, name: passkeyName });

const descriptor = z.object({ id: z.string(), type: z.string().meta({ examples: ['public-key'] }), transports: z.array(z.string()).optional() });
/** PublicKeyCredentialCreationOptionsJSON: for `startRegistration({optionsJSON})`. */
export const CreationOptionsSchema = z
  .object({
    rp: z.object({ name: z.string(), id: z.string().optional() }),
    user: z.object({ id: z.string(), name: z.string(), displayName: z.string() }),
    challenge: z.string(),
    pubKeyCredParams: z.array(z.object({ alg: z.number(), type: z.string().meta({ examples: ['public-key'] }) })),
    timeout: z.number().optional(),
    excludeCredentials: z.array(descriptor).optional(),
    authenticatorSelection: z
      .object({
        authenticatorAttachment: attachment,
        requireResidentKey: z.boolean().optional(),
        residentKey: z.enum(['discouraged', 'preferred', 'required']).optional(),
        userVerification: z.enum(['discouraged', 'preferred', 'required']).optional(),
      })
      .optional(),
    hints: z.array(z.string()).optional(),
    attestation: z.enum(['direct', 'enterprise', 'indirect', 'none']).optional(),
    attestationFormats: z.array(z.string()).optional(),
    extensions: z.record(z.string(), z.unknown()).optional(),
  })
  .meta({ description: 'WebAuthn `PublicKeyCredentialCreationOptionsJSON`: pass it to `startRegistration({optionsJSON})` of @simplewebauthn/browser. The challenge is single-use and valid 5 minutes.' });

/** PublicKeyCredentialRequestOptionsJSON: for `startAuthentication({optionsJSON})`. */
export const RequestOptionsSchema = z
  .object({
    challenge: z.string(),
    timeout: z.number().optional(),
    rpId: z.string().optional(),
    allowCredentials: z.array(descriptor).optional(),
    userVerification: z.enum(['discouraged', 'preferred', 'required']).optional(),
    hints: z.array(z.string()).optional(),
    extensions: z.record(z.string(), z.unknown()).optional(),
  })
  .meta({ description: 'WebAuthn `PublicKeyCredentialRequestOptionsJSON`: pass it to `startAuthentication({optionsJSON})` of @simplewebauthn/browser. The challenge is single-use, valid 5 minutes and bound to this `mfa_token`.' });

export const PasskeySchema = z.object({
  id: z.uuid(),
  name: z.string(),
  backed_up: z.boolean().meta({ description: 'Whether the authenticator says the passkey is backed up (synced)' }),
  created_at: z.iso.datetime({ offset: true }),
  last_used_at: z.iso.datetime({ offset: true }).nullable(),
});
export const PasskeyListSchema = z.object({ results: z.array(PasskeySchema) });
export const PasskeyCreatedSchema = z.object({
  passkey: PasskeySchema,
  recovery_codes: recoveryCodes.meta({ description: 'Ten single-use recovery codes when this passkey is the account’s first factor (shown this once); empty otherwise' }),
});
export const PasskeyIdParams = z.object({ id: z.uuid() });

export const MfaSignInBody = z.object({
  mfa_token: ticket('The `mfa_token` of the 403 `mfa_required` answer (5 minutes, single use)'),
  code: mfaCode.optional().meta({ description: 'A 6-digit code of the authenticator app, or one of the recovery codes (`xxxxx-xxxxx`); or give `webauthn` instead', examples: ['492039'] }),
  webauthn: AuthenticationResponseSchema.optional().meta({ description: 'Instead of `code`: a passkey assertion for the challenge of `POST /v1/users/token/mfa/webauthn/options/`' }),
});
