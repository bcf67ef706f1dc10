// Account rules: registration with an emailed one-time code, verification with lockout, sign-in with
// failure budgets, rotating refresh tokens with reuse detection, Google sign-in, password reset,
// staff accounts and disabling. Design decisions: docs/accounts.md.
import { TokenRejected, verifyServiceToken, type ServiceClaims } from '../../lib/jwt.ts';
import { jwtVerify, createRemoteJWKSet } from 'jose';
import type { Queryable } from '../../db/index.ts';
import type { Deps } from '../../deps.ts';
import { ApiError, fail, fieldErrors, tokenNotValid } from '../../http/errors.ts';
import { SECOND_FACTOR_MISSING, TOKEN_AUDIENCE, TOKEN_ISSUER } from '../../http/auth.ts';
import { isStaff } from '../../http/access.ts';
import { keyedHash, randomToken, safeEqual, sha256, sixDigitCode } from '../../lib/crypto.ts';
import { enqueueMail, isSuppressed, suppressEmail } from '../../mail/outbox.ts';
import { passwordChangedMail, passwordChangedSignedInMail, passwordResetMail, verificationCodeMail } from './mail.ts';
import { burnPasswordCheck, hashPassword, passwordProblems, verifyPassword, type PasswordContext } from './passwords.ts';
import {
  claimResetToken,
  deleteVerification,
  findPasswordHolder,
  findRefreshForUpdate,
  findResetHolder,
  findUserByEmail,
  findUserByGoogleSub,
  findUserById,
  findVerification,
  hasRecentResetToken,
  insertResetToken,
  insertUser,
  linkGoogle,
  markEmailVerified,
  markRefreshGraceUsed,
  markRefreshUsed,
  normaliseEmail,
  promoteToStaff,
  referrerIdByCode,
  replacePasswordHash,
  revokeFamilies,
  revokeOtherSessions,
  setDisabled,
  setPasswordFromReset,
  spendResetTokens,
  updatePendingSignup,
  updateVerificationFailures,
  upsertVerification,
  type StaffFlag,
  type UserRow,
} from './repository.ts';
import { accessToken, credentialsRevoked, issueTokenPair, refreshToken, revokeAllSessions, type TokenPair } from './tokens.ts';
import { enrolTotpSecret, factorRequired, markReauthenticated, parseTotpSecret, reauthenticateWithCode, requireSecondStep, shieldedFromLockout } from './mfa.ts';
import { appLinks } from '../../mail/links.ts';

export const REGISTER_MESSAGE = 'Check your inbox: we sent a 6-digit verification code to this address.';

const roleFlags = (u: Pick<UserRow, 'is_doctor' | 'is_backoffice_admin' | 'is_marketer' | 'is_pharmacist'>) => ({
  is_doctor: u.is_doctor,
  is_backoffice_admin: u.is_backoffice_admin,
  is_marketer: u.is_marketer,
  is_pharmacist: u.is_pharmacist,
});
const retryAfter = (seconds: number) => ({ 'retry-after': String(Math.max(1, Math.ceil(seconds))) });

const registrationRateLimited = (seconds: number) =>
  fail('REGISTRATION_RATE_LIMITED', { extra: { retry_after: Math.max(1, Math.ceil(seconds)) }, headers: retryAfter(seconds) });

function weakPassword(password: string, context: PasswordContext): void {
  const problems = passwordProblems(password, context);
  if (problems.length) throw fieldErrors({ password: problems });
}

// ---------------------------------------------------------------- registration and verification

export interface RegisterInput {
  email: string;
  password: string;
  first_name?: string;
  last_name?: string;
  locale?: string;
  referral_code?: string;
}

export async function register(deps: Deps, input: RegisterInput, ip: string): Promise<void> {
  const { config } = deps;
  const email = normaliseEmail(input.email);
  await deps.limiters.budget('register-ip', config.REGISTRATIONS_PER_IP, config.REGISTRATION_WINDOW_SECONDS).consume(ip, registrationRateLimited);
  weakPassword(input.password, { email, names: [input.first_name, input.last_name], locale: input.locale });
  if (await isSuppressed(deps.db, email)) {
    throw fail('REGISTRATION_EMAIL_UNDELIVERABLE');
  }
  const passwordHash = await hashPassword(input.password);
  const now = deps.clock.now();
  const code = sixDigitCode();

  await deps.db.tx(async (q) => {
    const existing = await findUserByEmail(q, email, true);
    let userId: string;
    let locale = input.locale ?? 'en';
    if (existing) {
      // Active, privileged, Google-backed or disabled: one identical refusal (an account-takeover path).
      if (existing.email_verified_at || isStaff(existing) || existing.google_sub || existing.disabled_at) {
        throw fail('registration_not_allowed');
      }
      const pending = await findVerification(q, existing.id);
      if (pending) {
        const wait = (pending.last_sent_at.getTime() + config.REGISTRATION_EMAIL_COOLDOWN_SECONDS * 1000 - now.getTime()) / 1000;
        if (wait > 0) throw registrationRateLimited(wait);
      }
      // The pending signup takes the latest details: whoever proves the mailbox owns the account.
      await updatePendingSignup(q, existing.id, { passwordHash, firstName: input.first_name, lastName: input.last_name, locale: input.locale });
      userId = existing.id;
      locale = input.locale ?? existing.locale;
    } else {
      const referredBy = input.referral_code ? await referrerIdByCode(q, input.referral_code) : null;
      userId = await insertUser(q, {
        email,
        passwordHash,
        verified: false,
        firstName: input.first_name,
        lastName: input.last_name,
        locale,
        referredBy,
      });
    }
    await upsertVerification(q, userId, keyedHash(deps.secrets.codeKey, code), now, config.OTP_TTL_SECONDS);
    await enqueueMail(q, email, verificationCodeMail, locale, { code, minutes: Math.round(config.OTP_TTL_SECONDS / 60) });
  });
}

type VerifyOutcome = { ok: true; pair: TokenPair; user: UserRow } | { ok: false; error: ApiError };

export async function verifyEmail(deps: Deps, rawEmail: unknown, rawOtp: unknown) {
  if (typeof rawEmail !== 'string' || !rawEmail.trim() || (typeof rawOtp !== 'string' && typeof rawOtp !== 'number') || String(rawOtp).trim() === '') {
    throw fail('VERIFY_EMAIL_INVALID_REQUEST');
  }
  const otp = String(rawOtp).trim();
  const { config } = deps;
  const now = deps.clock.now();
  const invalid = fail('VERIFY_EMAIL_INVALID_CODE');
  const lockedOut = (until: Date) => fail('VERIFY_EMAIL_TOO_MANY_ATTEMPTS', { headers: retryAfter((until.getTime() - now.getTime()) / 1000) });

  // The failure counters must be saved even though the answer is an error: the transaction returns
  // the outcome and the error is thrown after it commits.
  const outcome = await deps.db.tx<VerifyOutcome>(async (q) => {
    const user = await findUserByEmail(q, rawEmail, true);
    if (!user || user.email_verified_at) return { ok: false, error: invalid };
    const v = await findVerification(q, user.id);
    if (!v) return { ok: false, error: invalid };
    const lockFor = new Date(now.getTime() + config.OTP_LOCKOUT_SECONDS * 1000);
    if (v.locked_until && v.locked_until > now) {
      // Every attempt during the lockout extends it, even with the right code.
      await updateVerificationFailures(q, user.id, undefined, lockFor);
      return { ok: false, error: lockedOut(lockFor) };
    }
    const matches = /^\d{6}$/.test(otp) && safeEqual(keyedHash(deps.secrets.codeKey, otp), v.code_hash);
    if (!matches || v.expires_at <= now) {
      // A lockout that has run out starts a fresh count.
      const failures = (v.locked_until && v.locked_until <= now ? 0 : v.failed_attempts) + 1;
      if (failures >= config.OTP_MAX_WRONG) {
        await updateVerificationFailures(q, user.id, failures, lockFor);
        return { ok: false, error: lockedOut(lockFor) };
      }
      await updateVerificationFailures(q, user.id, failures, null);
      return { ok: false, error: invalid };
    }
    await deleteVerification(q, user.id);
    await markEmailVerified(q, user.id, now);
    return { ok: true, pair: await issueTokenPair(deps, q, user.id), user };
  });
  if (!outcome.ok) throw outcome.error;
  return { message: 'Your email address is verified.', ...outcome.pair, ...roleFlags(outcome.user) };
}

// ---------------------------------------------------------------- sign-in and tokens

const invalidCredentials = () => fail('invalid_credentials');

export async function signIn(deps: Deps, email: string, password: string, ip: string, brandOk: boolean) {
  const user = await checkCredentials(deps, email, password, ip, brandOk);
  // An account with a second factor (or staff that must enrol one) gets a 403 with a ticket instead.
  await requireSecondStep(deps, user);
  const pair = await issueTokenPair(deps, deps.db, user.id);
  return { ...pair, ...roleFlags(user) };
}

/** The sign-in rules (failure budgets, unverified, disabled) without issuing tokens: also used by the assistant connector's sign-in page. */
export async function checkCredentials(deps: Deps, email: string, password: string, ip: string, brandOk = true): Promise<UserRow> {
  const { config } = deps;
  const window = config.SIGNIN_FAILURE_WINDOW_SECONDS;
  const perIp = deps.limiters.budget('signin-fail-ip', config.SIGNIN_FAILURES_PER_IP, window);
  const perAccount = deps.limiters.budget('signin-fail-account', config.SIGNIN_FAILURES_PER_ACCOUNT, window);
  const accountKey = sha256(normaliseEmail(email));
  await perIp.check(ip);
  const user = brandOk ? await findUserByEmail(deps.db, email) : undefined;
  // Anonymous failures do not lock a staff account that has a second factor (the factor protects
  // it; its codes have their own budget): only the address budget counts for it.
  const shielded = await shieldedFromLockout(deps.db, user);
  if (!shielded) await perAccount.check(accountKey);

  const refuseSignIn = async () => {
    await Promise.all([perIp.penalise(ip), shielded ? undefined : perAccount.penalise(accountKey)]);
    return invalidCredentials();
  };
  if (!user || !user.password_hash) {
    await burnPasswordCheck(password); // same cost as a real check
    if (user && !user.password_hash && user.google_sub) {
      throw fail('google_account');
    }
    throw await refuseSignIn();
  }
  if (!(await verifyPassword(user.password_hash, password))) throw await refuseSignIn();
  if (!user.email_verified_at) throw await refuseSignIn();
  if (user.disabled_at) throw fail('user_inactive');
  if (!shielded) await perAccount.reset(accountKey);
  return user;
}

/**
 * Rotates a refresh token. `transport: 'cookie'` is the web app's HttpOnly cookie, which every tab of
 * the browser shares: two tabs refreshing at once, or a reload that drops a refresh's answer (and its
 * new cookie), present the rotated cookie again. Within REFRESH_COOKIE_REUSE_GRACE_SECONDS of the
 * rotation that second presentation gets one more pair of the same session; any other reuse, and a
 * body token's reuse at any time, ends the session (a client holding its own token serialises).
 */
export async function refresh(deps: Deps, token: string, transport: 'body' | 'cookie' = 'body') {
  let payload: ServiceClaims;
  try {
    payload = verifyServiceToken(deps.secrets.jwtKeys, TOKEN_ISSUER, token, deps.clock.now(), TOKEN_AUDIENCE);
  } catch (err) {
    if (!(err instanceof TokenRejected)) throw err;
    throw tokenNotValid(err.expired ? 'Token is expired' : 'Token is invalid or expired', 'refresh');
  }
  if (payload.token_type !== 'refresh') {
    throw tokenNotValid('Token has wrong type', 'refresh');
  }
  const jtiHash = sha256(payload.jti);
  const outcome = await deps.db.tx(async (q) => {
    const row = await findRefreshForUpdate(q, jtiHash);
    if (!row || row.revoked_at || row.user_id !== payload.user_id) return { error: 'Token is blacklisted' };
    const now = deps.clock.now();
    const graceMs = deps.config.REFRESH_COOKIE_REUSE_GRACE_SECONDS * 1000;
    const inGrace = transport === 'cookie' && row.used_at !== null && !row.grace_used_at && now.getTime() - row.used_at.getTime() <= graceMs;
    if (row.used_at && !inGrace) {
      // Reuse of a rotated token: someone else may hold it. End the whole session.
      await revokeFamilies(q, row.user_id, [row.family_id], 'refresh_reuse');
      return { error: 'Token is blacklisted' };
    }
    if (row.expires_at <= now) return { error: 'Token is expired' };
    const user = await findUserById(q, row.user_id);
    if (!user || user.disabled_at || !user.email_verified_at) return { error: 'User is inactive' };
    // A staff session that began with the password alone (before STAFF_MFA=required, or before the
    // account became staff) does not live on: it ends, and the next sign-in asks for the factor.
    if (factorRequired(deps, user) && !row.second_factor_at) {
      await revokeFamilies(q, row.user_id, [row.family_id], 'mfa_required');
      return { error: SECOND_FACTOR_MISSING };
    }
    if (inGrace) await markRefreshGraceUsed(q, jtiHash, now);
    else await markRefreshUsed(q, jtiHash, now);
    return {
      pair: { access: await accessToken(deps, user.id, row.family_id), refresh: await refreshToken(deps, q, user.id, row.family_id) },
    };
  });
  if ('error' in outcome) throw tokenNotValid(outcome.error, 'refresh');
  return outcome.pair;
}

/** Ends the caller's session, and the session of the given refresh token when it is the caller's. */
export async function logout(deps: Deps, userId: string, sessionId: string, refreshTokenValue?: string) {
  const families = [sessionId];
  if (refreshTokenValue) {
    try {
      const payload = verifyServiceToken(deps.secrets.jwtKeys, TOKEN_ISSUER, refreshTokenValue, deps.clock.now(), TOKEN_AUDIENCE);
      if (payload.user_id === userId) families.push(payload.sid);
    } catch {
      /* an invalid refresh token changes nothing more */
    }
  }
  await revokeFamilies(deps.db, userId, families, 'logout');
}

// ---------------------------------------------------------------- Google sign-in

let jwks: { url: string; set: ReturnType<typeof createRemoteJWKSet> } | undefined;

interface GoogleIdentity {
  sub: string;
  email: string;
  givenName: string;
  familyName: string;
}

/** The Google ID token verified against Google's keys, our client ids and Google's issuers. */
async function verifyGoogleCredential(deps: Deps, credential: unknown): Promise<GoogleIdentity> {
  const { config } = deps;
  if (typeof credential !== 'string' || !credential.trim()) {
    throw fail('credential_required');
  }
  if (config.GOOGLE_CLIENT_IDS.length === 0) throw fail('google_login_disabled');
  if (!jwks || jwks.url !== config.GOOGLE_JWKS_URL) jwks = { url: config.GOOGLE_JWKS_URL, set: createRemoteJWKSet(new URL(config.GOOGLE_JWKS_URL)) };
  let claims: Record<string, unknown>;
  try {
    ({ payload: claims } = await jwtVerify(credential, jwks.set, {
      algorithms: ['RS256'],
      audience: config.GOOGLE_CLIENT_IDS,
      issuer: config.GOOGLE_ISSUERS,
      currentDate: deps.clock.now(),
    }));
  } catch {
    throw fail('invalid_google_credential', { message: 'The Google credential could not be verified.' });
  }
  const sub = typeof claims.sub === 'string' ? claims.sub : '';
  const email = typeof claims.email === 'string' ? normaliseEmail(claims.email) : '';
  if (!sub || !email || claims.email_verified !== true) {
    throw fail('invalid_google_credential', { message: 'The Google account has no verified email address.' });
  }
  return {
    sub,
    email,
    givenName: typeof claims.given_name === 'string' ? claims.given_name.slice(0, 150) : '',
    familyName: typeof claims.family_name === 'string' ? claims.family_name.slice(0, 150) : '',
  };
}

/** The account of a Google identity: found, linked or created (docs/accounts.md), inside `q`'s transaction. */
async function googleUser(q: Queryable, google: GoogleIdentity, locale: string | undefined): Promise<{ error: ApiError } | { user: UserRow }> {
  let user = await findUserByGoogleSub(q, google.sub);
  if (!user) {
    const byEmail = await findUserByEmail(q, google.email, true);
    if (byEmail) {
      // Linking rule (docs/accounts.md): staff accounts never link; a verified password account
      // links (both sides proved the mailbox); an unverified signup is taken over by the Google
      // owner of the address and its password, set by whoever registered it, is removed.
      if (isStaff(byEmail)) return { error: fail('google_link_not_allowed') };
      if (byEmail.google_sub && byEmail.google_sub !== google.sub) return { error: fail('google_link_not_allowed') };
      const takeOver = !byEmail.email_verified_at;
      await linkGoogle(q, byEmail.id, google.sub, takeOver);
      if (takeOver) await deleteVerification(q, byEmail.id);
      user = await findUserById(q, byEmail.id);
    } else {
      const id = await insertUser(q, {
        email: google.email,
        passwordHash: null,
        googleSub: google.sub,
        verified: true,
        firstName: google.givenName,
        lastName: google.familyName,
        locale: locale ?? 'en',
      });
      user = await findUserById(q, id);
    }
  }
  // Found or written a moment ago inside this transaction.
  if (!user) throw new Error('the Google account vanished inside its own transaction');
  if (user.disabled_at) return { error: fail('user_inactive') };
  return { user };
}

/** /v1/users/google-login/: the account of the Google identity and a new session (token pair). */
export async function googleLogin(deps: Deps, credential: unknown, locale?: string) {
  const google = await verifyGoogleCredential(deps, credential);
  const found = await deps.db.tx((q) => googleUser(q, google, locale));
  if ('error' in found) throw found.error;
  // A Google identity replaces the password, not the second factor.
  await requireSecondStep(deps, found.user);
  const pair = await issueTokenPair(deps, deps.db, found.user.id);
  return { ...pair, ...roleFlags(found.user) };
}

/**
 * The account of a Google identity under the same rules as googleLogin, without opening a session:
 * for the assistant connector's authorization page, which issues its own grant.
 */
export async function googleAccount(deps: Deps, credential: unknown, locale?: string) {
  const google = await verifyGoogleCredential(deps, credential);
  const found = await deps.db.tx((q) => googleUser(q, google, locale));
  if ('error' in found) throw found.error;
  return { id: found.user.id, email: found.user.email, ...roleFlags(found.user) };
}

// ---------------------------------------------------------------- password reset

export const FORGOT_MESSAGE = 'If an account exists for this address, we sent a link to reset the password.';

export async function forgotPassword(deps: Deps, rawEmail: string, ip: string): Promise<void> {
  const { config } = deps;
  // Per address as well as per account: one client cannot mail-bomb many accounts.
  await deps.limiters.budget('forgot-password-ip', config.FORGOT_PASSWORD_PER_IP, config.FORGOT_PASSWORD_WINDOW_SECONDS).consume(ip);
  const email = normaliseEmail(rawEmail);
  await deps.db.tx(async (q) => {
    const user = await findUserByEmail(q, email, true);
    if (!user || user.disabled_at || (!user.email_verified_at && !user.google_sub)) return;
    if (await isSuppressed(q, email)) return;
    const now = deps.clock.now();
    // Cooldown: the link already sent stays valid.
    if (await hasRecentResetToken(q, user.id, new Date(now.getTime() - config.FORGOT_PASSWORD_COOLDOWN_SECONDS * 1000))) return;
    const token = randomToken(32);
    await insertResetToken(q, sha256(token), user.id, new Date(now.getTime() + config.RESET_TOKEN_TTL_SECONDS * 1000), now);
    const link = appLinks.resetPassword(config, token);
    await enqueueMail(q, user.email, passwordResetMail, user.locale, { link, minutes: Math.round(config.RESET_TOKEN_TTL_SECONDS / 60) });
  });
}

export async function resetPassword(deps: Deps, token: string, password: string): Promise<void> {
  const invalid = fail('invalid_reset_token');
  const row = await findResetHolder(deps.db, sha256(token), deps.clock.now());
  if (!row) throw invalid;
  weakPassword(password, { email: row.email, names: [row.first_name, row.last_name], locale: row.locale });
  const passwordHash = await hashPassword(password);
  const done = await deps.db.tx(async (q) => {
    // Single use, also under concurrency: only the request that marks the token used goes on.
    if (!(await claimResetToken(q, sha256(token)))) return false;
    await spendResetTokens(q, row.user_id);
    // The link proved the mailbox, so a pending signup becomes verified; a Google account gains a password.
    await setPasswordFromReset(q, row.user_id, passwordHash);
    await deleteVerification(q, row.user_id);
    await revokeAllSessions(q, row.user_id, 'password_reset');
    await enqueueMail(q, row.email, passwordChangedMail, row.locale, {});
    return true;
  });
  if (!done) throw invalid;
}

// ---------------------------------------------------------------- password change (signed in)

export const PASSWORD_CHANGED_MESSAGE = 'Your password has been changed. Your other sessions have been signed out.';
const WRONG_CURRENT_PASSWORD = 'Your current password is incorrect.';

/**
 * The signed-in owner changes the password: the current one must be given (a stolen access token
 * alone must not be enough), wrong guesses count against the same per-account budget as sign-in
 * failures, the new one follows the registration rules, and on success every other session ends
 * while this one stays signed in.
 */
export async function changePassword(deps: Deps, userId: string, sessionId: string, currentPassword: string, newPassword: string): Promise<void> {
  const { config } = deps;
  const user = await findPasswordHolder(deps.db, userId);
  // The access check let the caller in, so the account exists and is enabled; a disable that raced
  // in between is the same refusal as a wrong password.
  const wrongCurrent = () => fieldErrors({ current_password: [WRONG_CURRENT_PASSWORD] });
  if (!user) throw wrongCurrent();
  // The same budget, key and rules as sign-in failures for this account (so the two endpoints do
  // not add up to twice the guesses).
  const perAccount = deps.limiters.budget('signin-fail-account', config.SIGNIN_FAILURES_PER_ACCOUNT, config.SIGNIN_FAILURE_WINDOW_SECONDS);
  const accountKey = sha256(normaliseEmail(user.email));
  await perAccount.check(accountKey);
  if (!user.password_hash) {
    await burnPasswordCheck(currentPassword);
    if (user.google_sub) {
      throw fail('google_account');
    }
    await perAccount.penalise(accountKey);
    throw wrongCurrent();
  }
  if (!(await verifyPassword(user.password_hash, currentPassword))) {
    await perAccount.penalise(accountKey);
    throw wrongCurrent();
  }
  const problems = passwordProblems(newPassword, { email: user.email, names: [user.first_name, user.last_name], locale: user.locale });
  if (problems.length) throw fieldErrors({ new_password: problems });
  const newHash = await hashPassword(newPassword);
  const expectedHash = user.password_hash;
  const changed = await deps.db.tx(async (q) => {
    if (!(await replacePasswordHash(q, userId, expectedHash, newHash))) return false;
    await spendResetTokens(q, userId);
    await revokeOtherSessions(q, userId, sessionId, 'password_change');
    await credentialsRevoked(q, userId, 'password_change');
    await enqueueMail(q, user.email, passwordChangedSignedInMail, user.locale, {});
    return true;
  });
  // Another change won the race: the password checked above is no longer the current one.
  if (!changed) throw wrongCurrent();
  await perAccount.reset(accountKey);
}

// ---------------------------------------------------------------- operators

export type StaffRole = 'doctor' | 'backoffice_admin' | 'marketer' | 'pharmacist';

export async function createStaff(
  deps: Deps,
  input: { email: string; password: string; role: StaffRole; firstName?: string; lastName?: string; licenseNumber?: string; totpSecret?: string },
): Promise<string> {
  const email = normaliseEmail(input.email);
  // A prescription names its prescriber: a doctor has a first and last name and a licence number.
  const clean = (v: string | undefined) => (v?.trim() ? v.trim() : undefined);
  input = { ...input, firstName: clean(input.firstName), lastName: clean(input.lastName), licenseNumber: clean(input.licenseNumber) };
  if (input.role === 'doctor' && (!input.firstName || !input.lastName || !input.licenseNumber)) throw new Error('a doctor needs a first name, a last name and a licence number');
  // Every staff member is named (issue 43): the patient's access log shows who read their record.
  if (!input.firstName || !input.lastName) throw new Error('a staff account needs a first name and a last name (shown in the patient\'s access log)');
  const problems = passwordProblems(input.password, { email, names: [input.firstName, input.lastName] });
  if (problems.length) throw new Error(`weak password: ${problems.join(' ')}`);
  // Operator enrolment of TOTP (automation): the secret is checked before anything is written.
  const totpSecret = input.totpSecret === undefined ? undefined : parseTotpSecret(input.totpSecret);
  const passwordHash = await hashPassword(input.password);
  return deps.db.tx(async (q) => {
    const existing = await findUserByEmail(q, email, true);
    const flag = `is_${input.role}` as const;
    let id: string;
    if (existing) {
      // Promoting an existing account: it becomes verified staff with this password.
      await promoteToStaff(q, existing.id, flag, { passwordHash, licenseNumber: input.licenseNumber, firstName: input.firstName, lastName: input.lastName });
      id = existing.id;
      // The operator replaced the password: whoever held the account's sessions or connector grants
      // signed in with the old one, and they must not carry over into a staff role.
      await revokeAllSessions(q, id, 'password_reset');
    } else {
      id = await insertStaff(q, email, passwordHash, flag, input);
    }
    if (totpSecret) await enrolTotpSecret(deps, q, id, totpSecret);
    return id;
  });
}

function insertStaff(q: Queryable, email: string, passwordHash: string, flag: StaffFlag, input: { firstName?: string; lastName?: string; licenseNumber?: string }) {
  return insertUser(q, {
    email,
    passwordHash,
    verified: true,
    firstName: input.firstName,
    lastName: input.lastName,
    roles: { [flag]: true },
    doctorLicenseNumber: input.licenseNumber ?? null,
  });
}

/** Disables an account and ends every session at once (access tokens are refused immediately). */
export async function setAccountDisabled(deps: Deps, q: Queryable, userId: string, disabled: boolean): Promise<boolean> {
  const found = await setDisabled(q, userId, disabled);
  if (found && disabled) await revokeAllSessions(q, userId, 'disabled');
  return found;
}

export async function setDisabledByEmail(deps: Deps, email: string, disabled: boolean): Promise<boolean> {
  return deps.db.tx(async (q) => {
    const user = await findUserByEmail(q, email, true);
    return user ? setAccountDisabled(deps, q, user.id, disabled) : false;
  });
}

export async function addSuppression(deps: Deps, email: string, reason: string): Promise<void> {
  await suppressEmail(deps.db, email, reason);
}

const WRONG_PASSWORD = 'The password is incorrect.';

/**
 * Confirms the signed-in owner with the account's password before an irreversible step (erasure):
 * a wrong password is 400 `{password: [...]}` and counts against the same per-account failure budget
 * as sign-in (over it: 429 `throttled`). `false`: the account has no password (Google sign-in).
 */
export async function confirmOwnPassword(deps: Deps, userId: string, password: string | undefined): Promise<boolean> {
  const { config } = deps;
  const user = await findPasswordHolder(deps.db, userId);
  const wrong = () => fieldErrors({ password: [password ? WRONG_PASSWORD : 'This field is required.'] });
  if (!user) throw wrong();
  if (!user.password_hash) return false;
  const perAccount = deps.limiters.budget('signin-fail-account', config.SIGNIN_FAILURES_PER_ACCOUNT, config.SIGNIN_FAILURE_WINDOW_SECONDS);
  const accountKey = sha256(normaliseEmail(user.email));
  await perAccount.check(accountKey);
  if (!password) throw wrong();
  if (!(await verifyPassword(user.password_hash, password))) {
    await perAccount.penalise(accountKey);
    throw wrong();
  }
  return true;
}

/**
 * POST /v1/users/me/reauthenticate/: the session proves its holder again with the password (the
 * sign-in failure budget, as change-password) or a current factor's code (the code budget). Security
 * changes then go through for REAUTH_WINDOW_SECONDS (docs/accounts.md, "Re-authentication").
 */
export async function reauthenticate(deps: Deps, user: { id: string; sessionId: string }, proof: { password?: string; code?: string }): Promise<{ reauthenticated_until: string }> {
  if ((proof.password === undefined) === (proof.code === undefined)) throw fieldErrors({ password: ['Give either your password or a current code.'] });
  if (proof.code !== undefined) return reauthenticateWithCode(deps, user, proof.code);
  if (!(await confirmOwnPassword(deps, user.id, proof.password))) {
    throw fieldErrors({ password: ['This account has no password: confirm with a code of your second factor, or sign in again.'] });
  }
  return deps.db.tx((q) => markReauthenticated(deps, q, user));
}
