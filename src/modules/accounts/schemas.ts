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
export const RefreshBody = z.object({ refresh: z.string().max(4096) });
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

export const MfaSignInBody = z.object({ mfa_token: ticket('The `mfa_token` of the 403 `mfa_required` answer (5 minutes, single use)'), code: mfaCode });
export const EnrolmentBody = z.object({ enrolment_token: ticket('The `enrolment_token` of the 403 `mfa_enrolment_required` answer (15 minutes; it allows only the enrolment)') });
export const EnrolmentConfirmBody = EnrolmentBody.extend({ code: z.string().max(64).meta({ description: 'A 6-digit code the authenticator app shows for the new secret', examples: ['492039'] }) });
export const TotpCodeBody = z.object({ code: z.string().max(64).meta({ description: 'A 6-digit code of the authenticator app', examples: ['492039'] }) });
export const MfaCodeBody = z.object({ code: mfaCode });

export const TotpSetupSchema = z.object({
  secret: z.string().meta({ description: 'The new base32 secret, for typing into an authenticator app by hand' }),
  otpauth_uri: z.string().meta({ description: 'The `otpauth://totp/...` URI to show as a QR code' }),
});
const recoveryCodes = z.array(z.string()).meta({ description: 'Ten single-use recovery codes, shown this once (only their hashes are kept)' });
export const RecoveryCodesSchema = z.object({ recovery_codes: recoveryCodes });
export const EnrolledSchema = TokenPairSchema.extend({ recovery_codes: recoveryCodes });
export const MfaStatusSchema = z.object({
  methods: z.array(z.enum(['totp'])).meta({ description: 'The confirmed second factors (empty: none)' }),
  required: z.boolean().meta({ description: 'Whether this account must have a second factor (staff with `STAFF_MFA=required`)' }),
  recovery_codes_left: z.number().int().meta({ description: 'Unused recovery codes' }),
});
