// The second factor at sign-in (docs/accounts.md "Second factor"): TOTP (RFC 6238, with
// otpauth), 10 single-use recovery codes, and the tickets that carry a sign-in from the right
// password to its second step (`mfa_token`) or to the enrolment a staff account must make first
// (`enrolment_token`). Passkeys (passkeys.ts) are a second kind of factor beside TOTP.
import { randomInt } from 'node:crypto';
import type { z } from 'zod';
import { Secret, TOTP } from 'otpauth';
import type { Queryable } from '../../db/index.ts';
import type { Deps } from '../../deps.ts';
import { isStaff, type RoleFlags } from '../../http/access.ts';
import { fail, fieldErrors, notFound, type ApiError, type ErrorCode } from '../../http/errors.ts';
import { decrypt, encrypt, keyedHash, randomToken, sha256 } from '../../lib/crypto.ts';
import {
  claimTotpStep,
  deleteTotp,
  confirmTotp,
  countTicketFailure,
  countUnusedRecoveryCodes,
  deleteFactors,
  findTicketForUpdate,
  findTotp,
  hasConfirmedTotp,
  insertTicket,
  markTicketUsed,
  replaceRecoveryCodes,
  setConfirmedTotp,
  spendRecoveryCode,
  upsertPendingTotp,
  type TicketPurpose,
} from './mfa.repository.ts';
import { authenticationOptions, passkeyOut, type CreationOptions, type RequestOptions, registerCredential, registrationOptions, verifyAssertion } from './passkeys.ts';
import { deletePasskey, hasPasskey, listPasskeys } from './passkeys.repository.ts';
import { findUserByEmail, findUserById, markSessionReauthenticated, markSessionSecondFactor, sessionReauthenticatedAt, type UserRow } from './repository.ts';
import { enqueueMail } from '../../mail/outbox.ts';
import { securityChangedMail, type SecurityChange } from './mail.ts';
import type { AuthenticationResponseSchema, RegistrationResponseSchema } from './schemas.ts';
import { issueTokenPair, revokeAllSessions, type TokenPair } from './tokens.ts';

export type MfaMethod = 'totp' | 'webauthn';
/** The factors a staff account may enrol at sign-in. */
const ENROLLABLE: MfaMethod[] = ['totp', 'webauthn'];

const PERIOD_SECONDS = 30;
const DIGITS = 6;
/** Codes of the step before and after the current one are accepted too (clock drift, typing time). */
const WINDOW_STEPS = 1;
const TICKET_TTL_SECONDS: Record<TicketPurpose, number> = { sign_in: 5 * 60, enrol: 15 * 60 };
/** Wrong codes one ticket takes before it is used up (the account and address budgets also count). */
export const TICKET_MAX_WRONG = 5;
export const RECOVERY_CODE_COUNT = 10;
/** 160-bit secrets (RFC 4226 section 4 recommends 160, requires at least 128). */
const SECRET_BYTES = 20;
const MIN_SECRET_BYTES = 16;


/** Whether this account must have a second factor (staff, with STAFF_MFA=required). */
export const factorRequired = (deps: Deps, u: RoleFlags) => isStaff(u) && deps.config.STAFF_MFA === 'required';

const totpOf = (deps: Deps, secret: Secret, label: string) =>
  new TOTP({ issuer: deps.config.BRAND_SLUG, label, secret, algorithm: 'SHA1', digits: DIGITS, period: PERIOD_SECONDS });

/**
 * The 30-second step a 6-digit code belongs to (within the window around now), or undefined.
 * TOTP follows the wall clock of the user's device, so it is checked against the system clock, not
 * the service's clock (which the sandbox test clock may have moved forward).
 */
function matchingStep(secret: Secret, code: string): number | undefined {
  if (!/^\d{6}$/.test(code)) return undefined;
  const now = Date.now();
  const totp = new TOTP({ secret, algorithm: 'SHA1', digits: DIGITS, period: PERIOD_SECONDS });
  const delta = totp.validate({ token: code, timestamp: now, window: WINDOW_STEPS });
  return delta === null ? undefined : Math.floor(now / 1000 / PERIOD_SECONDS) + delta;
}

/** Parses a base32 TOTP secret (operator enrolment); throws a readable message when it is unusable. */
export function parseTotpSecret(base32: string): Secret {
  let secret: Secret;
  try {
    secret = Secret.fromBase32(base32.replace(/[\s=]/g, '').toUpperCase());
  } catch {
    throw new Error('the TOTP secret must be base32 (A-Z, 2-7)');
  }
  if (secret.bytes.length < MIN_SECRET_BYTES) throw new Error(`the TOTP secret must hold at least ${MIN_SECRET_BYTES * 8} bits (${Math.ceil((MIN_SECRET_BYTES * 8) / 5)} base32 characters)`);
  return secret;
}

// ---------------------------------------------------------------- recovery codes

const RECOVERY_ALPHABET = 'abcdefghijkmnpqrstuvwxyz23456789'; // no 0/o, 1/l
const normaliseRecoveryCode = (code: string) => code.toLowerCase().replace(/[\s-]/g, '');
const recoveryHash = (deps: Deps, code: string) => keyedHash(deps.secrets.codeKey, `recovery:${normaliseRecoveryCode(code)}`);

/** 10 new codes (50 bits each, shown once as `xxxxx-xxxxx`); only their keyed hashes are stored. */
async function newRecoveryCodes(deps: Deps, q: Queryable, userId: string): Promise<string[]> {
  const codes = Array.from({ length: RECOVERY_CODE_COUNT }, () => {
    const raw = Array.from({ length: 10 }, () => RECOVERY_ALPHABET.charAt(randomInt(RECOVERY_ALPHABET.length))).join('');
    return `${raw.slice(0, 5)}-${raw.slice(5)}`;
  });
  await replaceRecoveryCodes(q, userId, codes.map((c) => recoveryHash(deps, c)));
  return codes;
}

// ---------------------------------------------------------------- checking a code

/**
 * Checks a second-factor code of the account inside `q`'s transaction and spends it: a TOTP code of a
 * step not used before (replay refused), or, when `recovery` allows it, an unused recovery code.
 * `pending` checks the secret of an enrolment not yet confirmed.
 */
async function spendCode(deps: Deps, q: Queryable, userId: string, rawCode: string, opts: { recovery: boolean; pending?: boolean }): Promise<boolean> {
  const code = rawCode.replace(/\s/g, '');
  const totp = await findTotp(q, userId, true);
  if (/^\d+$/.test(code)) {
    if (!totp || (opts.pending ? totp.confirmed_at !== null : totp.confirmed_at === null)) return false;
    const step = matchingStep(Secret.fromBase32(decrypt(deps.secrets.documentKeys, totp.secret_enc)), code);
    return step !== undefined && (await claimTotpStep(q, userId, step));
  }
  if (!opts.recovery || normaliseRecoveryCode(code).length !== 10) return false;
  if (!totp?.confirmed_at && !(await hasPasskey(q, userId))) return false;
  return spendRecoveryCode(q, userId, recoveryHash(deps, code));
}

/** The failure budgets of second-factor codes: per account (its own counter) and per address (sign-in's). */
function budgets(deps: Deps) {
  const { config } = deps;
  return {
    perIp: deps.limiters.budget('signin-fail-ip', config.SIGNIN_FAILURES_PER_IP, config.SIGNIN_FAILURE_WINDOW_SECONDS),
    perAccount: deps.limiters.budget('mfa-fail-account', config.SIGNIN_FAILURES_PER_ACCOUNT, config.SIGNIN_FAILURE_WINDOW_SECONDS),
  };
}

// ---------------------------------------------------------------- sign-in: the second step

/** The factors the account has confirmed. */
export async function methodsOf(q: Queryable, userId: string): Promise<MfaMethod[]> {
  const [totp, passkey] = await Promise.all([hasConfirmedTotp(q, userId), hasPasskey(q, userId)]);
  return [...(totp ? (['totp'] as const) : []), ...(passkey ? (['webauthn'] as const) : [])];
}

async function newTicket(deps: Deps, userId: string, purpose: TicketPurpose): Promise<string> {
  const token = randomToken(32);
  await insertTicket(deps.db, sha256(token), userId, purpose, new Date(deps.clock.now().getTime() + TICKET_TTL_SECONDS[purpose] * 1000));
  return token;
}

/**
 * After the right password (or Google identity): throws the 403 that asks for the second factor
 * (`mfa_required`) or for an enrolment first (`mfa_enrolment_required`); returns when the account
 * signs in with the password alone.
 */
export async function requireSecondStep(deps: Deps, user: UserRow): Promise<void> {
  const methods = await methodsOf(deps.db, user.id);
  if (methods.length) throw fail('mfa_required', { extra: { mfa_token: await newTicket(deps, user.id, 'sign_in'), methods } });
  if (factorRequired(deps, user)) throw fail('mfa_enrolment_required', { extra: { enrolment_token: await newTicket(deps, user.id, 'enrol'), methods: ENROLLABLE } });
}

/** Whether anonymous password failures may count against this account (not for staff with a factor). */
export async function shieldedFromLockout(q: Queryable, user: UserRow | undefined): Promise<boolean> {
  return Boolean(user && isStaff(user) && (await methodsOf(q, user.id)).length > 0);
}

type TicketOutcome<T> = { ok: T } | { error: ApiError } | { wrongCode: string; refusal: WrongFactor };
/** The refusal of a wrong second factor: a code, or a passkey response. */
type WrongFactor = Extract<ErrorCode, 'invalid_mfa_code' | 'invalid_passkey'>;
/** What a ticket's `use` returns for a wrong factor (counted; the answer is `code`). */
class Refused {
  constructor(readonly code: WrongFactor) {}
}
const WRONG_MFA_CODE = new Refused('invalid_mfa_code');
const WRONG_PASSKEY = new Refused('invalid_passkey');

/**
 * Runs `use` on the account of a valid ticket inside one transaction. A wrong code counts against
 * the ticket (used up after TICKET_MAX_WRONG), the account and the address, and answers 401
 * invalid_mfa_code; the counts are saved although the answer is an error.
 */
async function withTicket<T>(
  deps: Deps,
  token: string,
  purpose: TicketPurpose,
  ip: string,
  use: (q: Queryable, user: UserRow, spend: () => Promise<void>) => Promise<T | Refused>,
): Promise<T> {
  const { perIp, perAccount } = budgets(deps);
  await perIp.check(ip);
  const hash = sha256(token);
  const invalidTicket = fail('invalid_mfa_token');
  const outcome = await deps.db.tx<TicketOutcome<T>>(async (q) => {
    const ticket = await findTicketForUpdate(q, hash, purpose);
    if (!ticket || ticket.used_at || ticket.expires_at <= deps.clock.now()) return { error: invalidTicket };
    const user = await findUserById(q, ticket.user_id);
    if (!user || user.disabled_at || !user.email_verified_at) return { error: invalidTicket };
    await perAccount.check(user.id);
    const result = await use(q, user, () => markTicketUsed(q, hash, user.id));
    if (result instanceof Refused) {
      await countTicketFailure(q, hash, user.id, TICKET_MAX_WRONG);
      return { wrongCode: user.id, refusal: result.code };
    }
    return { ok: result };
  });
  if ('error' in outcome) throw outcome.error;
  if ('wrongCode' in outcome) {
    await Promise.all([perIp.penalise(ip), perAccount.penalise(outcome.wrongCode)]);
    throw fail(outcome.refusal);
  }
  return outcome.ok;
}

export interface SignedIn extends TokenPair {
  is_doctor: boolean;
  is_backoffice_admin: boolean;
  is_marketer: boolean;
  is_pharmacist: boolean;
}

const signedIn = (pair: TokenPair, u: UserRow): SignedIn => ({ ...pair, is_doctor: u.is_doctor, is_backoffice_admin: u.is_backoffice_admin, is_marketer: u.is_marketer, is_pharmacist: u.is_pharmacist });

type Assertion = z.infer<typeof AuthenticationResponseSchema>;
type NewCredential = z.infer<typeof RegistrationResponseSchema>;

/** POST /v1/users/token/mfa/: the mfa_token and a TOTP or recovery code, or a passkey assertion -> a token pair. */
export async function completeSignIn(deps: Deps, mfaToken: string, factor: { code: string } | { webauthn: Assertion }, ip: string): Promise<SignedIn> {
  return withTicket(deps, mfaToken, 'sign_in', ip, async (q, user, spendTicket) => {
    if ('webauthn' in factor) {
      if (!(await verifyAssertion(deps, q, user.id, sha256(mfaToken), factor.webauthn))) return WRONG_PASSKEY;
    } else if (!(await spendCode(deps, q, user.id, factor.code, { recovery: true }))) return WRONG_MFA_CODE;
    await spendTicket();
    return signedIn(await issueTokenPair(deps, q, user.id, { secondFactor: true }), user);
  });
}

// ---------------------------------------------------------------- enrolment

export interface TotpSetup {
  secret: string;
  otpauth_uri: string;
}

/** Starts a TOTP enrolment (a new secret each time until one is confirmed). */
async function startTotp(deps: Deps, q: Queryable, user: Pick<UserRow, 'id' | 'email'>): Promise<TotpSetup> {
  const secret = new Secret({ size: SECRET_BYTES });
  if (!(await upsertPendingTotp(q, user.id, encrypt(deps.secrets.documentKeys, secret.base32)))) throw fail('mfa_already_enrolled');
  return { secret: secret.base32, otpauth_uri: totpOf(deps, secret, user.email).toString() };
}

/** Confirms the pending enrolment with a code of its secret and issues the recovery codes; false for a wrong code. */
async function confirmPendingTotp(deps: Deps, q: Queryable, userId: string, code: string): Promise<string[] | false> {
  const totp = await findTotp(q, userId, true);
  if (!totp) throw fail('mfa_enrolment_not_started');
  if (totp.confirmed_at) throw fail('mfa_already_enrolled');
  if (!(await spendCode(deps, q, userId, code, { recovery: false, pending: true }))) return false;
  await confirmTotp(q, userId);
  return newRecoveryCodes(deps, q, userId);
}

/** POST /v1/users/token/mfa/enrol/: the enrolment token -> a new secret and its otpauth URI. */
export async function startEnrolment(deps: Deps, enrolmentToken: string, ip: string): Promise<TotpSetup> {
  return withTicket(deps, enrolmentToken, 'enrol', ip, (q, user) => startTotp(deps, q, user));
}

/** POST /v1/users/token/mfa/enrol/confirm/: the enrolment token and a code -> recovery codes and a token pair. */
export async function confirmEnrolment(deps: Deps, enrolmentToken: string, code: string, ip: string): Promise<SignedIn & { recovery_codes: string[] }> {
  return withTicket(deps, enrolmentToken, 'enrol', ip, async (q, user, spendTicket) => {
    const codes = await confirmPendingTotp(deps, q, user.id, code);
    if (!codes) return WRONG_MFA_CODE;
    await spendTicket();
    return { recovery_codes: codes, ...signedIn(await issueTokenPair(deps, q, user.id, { secondFactor: true }), user) };
  });
}

// ---------------------------------------------------------------- the signed-in account

/** How long a re-authentication (or the sign-in that opened the session) allows security changes. */
export const REAUTH_WINDOW_SECONDS = 5 * 60;

/** The session proved its holder (sign-in or re-authentication) within the window, or 403 `reauthentication_required`. */
export async function requireRecentAuthentication(deps: Deps, user: { id: string; sessionId: string }): Promise<void> {
  const at = await sessionReauthenticatedAt(deps.db, user.id, user.sessionId);
  if (!at || deps.clock.now().getTime() - at.getTime() > REAUTH_WINDOW_SECONDS * 1000) throw fail('reauthentication_required');
}

/** Marks the session re-authenticated now; answers until when that allows security changes. */
export async function markReauthenticated(deps: Deps, q: Queryable, user: { id: string; sessionId: string }): Promise<{ reauthenticated_until: string }> {
  const now = deps.clock.now();
  await markSessionReauthenticated(q, user.id, user.sessionId, now);
  return { reauthenticated_until: new Date(now.getTime() + REAUTH_WINDOW_SECONDS * 1000).toISOString() };
}

/** Re-authentication with a current factor: a TOTP or recovery code (wrong: 400 `{code}`, counted); no factor: 409. */
export async function reauthenticateWithCode(deps: Deps, user: { id: string; sessionId: string }, code: string): Promise<{ reauthenticated_until: string }> {
  if ((await methodsOf(deps.db, user.id)).length === 0) throw fail('mfa_not_enrolled');
  return withCodeBudget(deps, user.id, async (q) => (await spendCode(deps, q, user.id, code, { recovery: true })) && markReauthenticated(deps, q, user));
}

/** Tells the account's owner of a change of its sign-in security, in their locale (never what the factor is). */
async function notifyOwner(q: Queryable, userId: string, change: SecurityChange): Promise<void> {
  const user = await findUserById(q, userId);
  if (user) await enqueueMail(q, user.email, securityChangedMail, user.locale, { change });
}

const WRONG_CODE = 'The code is not correct. Enter the current code from your authenticator app.';

/**
 * Runs `use` for a signed-in account under the per-account code budget: `use` answers false for a
 * wrong code, which counts and answers 400 `{code: [...]}` (the session stays valid: no 401 here).
 */
async function withCodeBudget<T>(deps: Deps, userId: string, use: (q: Queryable) => Promise<T | false>): Promise<T> {
  const { perAccount } = budgets(deps);
  await perAccount.check(userId);
  const result = await deps.db.tx(use);
  if (result === false) {
    await perAccount.penalise(userId);
    throw fieldErrors({ code: [WRONG_CODE] });
  }
  return result;
}

export interface MfaStatus {
  methods: MfaMethod[];
  required: boolean;
  recovery_codes_left: number;
}

export async function mfaStatus(deps: Deps, user: { id: string } & RoleFlags): Promise<MfaStatus> {
  const methods = await methodsOf(deps.db, user.id);
  return { methods, required: factorRequired(deps, user), recovery_codes_left: methods.length ? await countUnusedRecoveryCodes(deps.db, user.id) : 0 };
}

export async function startTotpForUser(deps: Deps, user: { id: string; email: string; sessionId: string }): Promise<TotpSetup> {
  await requireRecentAuthentication(deps, user);
  return deps.db.tx((q) => startTotp(deps, q, user));
}

/** Confirms the authenticator app; the session that confirmed it has now passed a second factor. */
export async function confirmTotpForUser(deps: Deps, userId: string, code: string, sessionId: string): Promise<{ recovery_codes: string[] }> {
  return withCodeBudget(deps, userId, async (q) => {
    const codes = await confirmPendingTotp(deps, q, userId, code);
    if (codes) {
      await markSessionSecondFactor(q, userId, sessionId, deps.clock.now());
      await notifyOwner(q, userId, 'totp_enabled');
    }
    return codes && { recovery_codes: codes };
  });
}

const NO_AUTHENTICATOR_APP = 'This account has no authenticator app. Confirm with your password or a recovery code (POST /v1/users/me/reauthenticate/), then ask again without a code.';

/**
 * New recovery codes (the old ones stop working), for an account with any factor: confirmed with a
 * current authenticator code, or without one after a recent re-authentication (a passkey-only
 * account has no authenticator code to give).
 */
export async function regenerateRecoveryCodes(deps: Deps, user: { id: string; sessionId: string }, code: string | undefined): Promise<{ recovery_codes: string[] }> {
  const methods = await methodsOf(deps.db, user.id);
  if (methods.length === 0) throw fail('mfa_not_enrolled');
  const replace = async (q: Queryable) => {
    const codes = await newRecoveryCodes(deps, q, user.id);
    await notifyOwner(q, user.id, 'recovery_codes_replaced');
    return { recovery_codes: codes };
  };
  if (code === undefined) {
    await requireRecentAuthentication(deps, user);
    return deps.db.tx(replace);
  }
  if (!methods.includes('totp')) throw fieldErrors({ code: [NO_AUTHENTICATOR_APP] });
  return withCodeBudget(deps, user.id, async (q) => (await spendCode(deps, q, user.id, code, { recovery: false })) && replace(q));
}

/** Turns the factor off (a TOTP or recovery code confirms it); not where the account must have one. */
export async function removeTotp(deps: Deps, user: { id: string } & RoleFlags, code: string): Promise<void> {
  if (!(await hasConfirmedTotp(deps.db, user.id))) throw fail('mfa_not_enrolled');
  // Where a factor is required, the authenticator app may go only while a passkey stays.
  if (factorRequired(deps, user) && !(await hasPasskey(deps.db, user.id))) throw fail('mfa_removal_not_allowed');
  await withCodeBudget(deps, user.id, async (q) => {
    if (!(await spendCode(deps, q, user.id, code, { recovery: true }))) return false;
    // The recovery codes go with the last factor.
    if (await hasPasskey(q, user.id)) await deleteTotp(q, user.id);
    else await deleteFactors(q, user.id);
    await notifyOwner(q, user.id, 'totp_removed');
    return 'removed' as const;
  });
}

// ---------------------------------------------------------------- passkeys

const PASSKEY_REFUSED = 'The passkey could not be verified. Start again and use the passkey when the browser asks.';

/**
 * Stores a verified new passkey for the account inside `q`; the recovery codes when it is the
 * account's first factor (else none); undefined when the response is refused.
 */
async function addPasskey(deps: Deps, q: Queryable, userId: string, credential: NewCredential, name: string | undefined) {
  const first = (await methodsOf(q, userId)).length === 0;
  const passkey = await registerCredential(deps, q, userId, credential, name);
  if (!passkey) return undefined;
  return { passkey: passkeyOut(passkey), recovery_codes: first ? await newRecoveryCodes(deps, q, userId) : [] };
}

/** POST /v1/users/mfa/passkeys/options/: options to create a passkey (signed in). */
export async function passkeyOptionsForUser(deps: Deps, user: { id: string; email: string; sessionId: string }): Promise<CreationOptions> {
  await requireRecentAuthentication(deps, user);
  return deps.db.tx((q) => registrationOptions(deps, q, user));
}

/** POST /v1/users/mfa/passkeys/: stores the new passkey (400 `{credential: [...]}` when refused). */
export async function createPasskeyForUser(deps: Deps, userId: string, credential: NewCredential, name: string | undefined, sessionId: string) {
  await requireRecentAuthentication(deps, { id: userId, sessionId });
  const created = await deps.db.tx(async (q) => {
    const added = await addPasskey(deps, q, userId, credential, name);
    if (added) {
      // The passkey answered its challenge: this session has passed a second factor.
      await markSessionSecondFactor(q, userId, sessionId, deps.clock.now());
      await notifyOwner(q, userId, 'passkey_added');
    }
    return added;
  });
  if (!created) throw fieldErrors({ credential: [PASSKEY_REFUSED] });
  return created;
}

export async function passkeysOf(deps: Deps, userId: string) {
  return { results: (await listPasskeys(deps.db, userId)).map(passkeyOut) };
}

/** DELETE /v1/users/mfa/passkeys/{id}/: not the last factor where one is required; the recovery codes go with the last factor. */
export async function removePasskey(deps: Deps, user: { id: string; sessionId: string } & RoleFlags, id: string): Promise<void> {
  await requireRecentAuthentication(deps, user);
  await deps.db.tx(async (q) => {
    const mine = (await listPasskeys(q, user.id)).some((p) => p.id === id);
    if (!mine) throw notFound();
    const others = (await methodsOf(q, user.id)).includes('totp') || (await listPasskeys(q, user.id)).length > 1;
    if (!others && factorRequired(deps, user)) throw fail('mfa_removal_not_allowed');
    await deletePasskey(q, user.id, id);
    if (!others) await deleteFactors(q, user.id);
    await notifyOwner(q, user.id, 'passkey_removed');
  });
}

/** POST /v1/users/token/mfa/webauthn/options/: the challenge for signing this sign-in in with a passkey. */
export async function passkeySignInOptions(deps: Deps, mfaToken: string, ip: string): Promise<RequestOptions> {
  return withTicket(deps, mfaToken, 'sign_in', ip, async (q, user) => {
    const options = await authenticationOptions(deps, q, user.id, sha256(mfaToken));
    if (!options) throw fail('mfa_not_enrolled');
    return options;
  });
}

/** POST /v1/users/token/mfa/enrol/passkey/options/: options to create a passkey with the enrolment token. */
export async function startPasskeyEnrolment(deps: Deps, enrolmentToken: string, ip: string): Promise<CreationOptions> {
  return withTicket(deps, enrolmentToken, 'enrol', ip, (q, user) => registrationOptions(deps, q, user));
}

/** POST /v1/users/token/mfa/enrol/passkey/: the new passkey -> recovery codes and a token pair. */
export async function confirmPasskeyEnrolment(deps: Deps, enrolmentToken: string, credential: NewCredential, name: string | undefined, ip: string): Promise<SignedIn & { recovery_codes: string[] }> {
  return withTicket(deps, enrolmentToken, 'enrol', ip, async (q, user, spendTicket) => {
    const created = await addPasskey(deps, q, user.id, credential, name);
    if (!created) return WRONG_PASSKEY;
    await spendTicket();
    return { recovery_codes: created.recovery_codes, ...signedIn(await issueTokenPair(deps, q, user.id, { secondFactor: true }), user) };
  });
}

// ---------------------------------------------------------------- operators

/** create-staff --totp-secret: the account's factor is this secret, confirmed (replacing any other). */
export async function enrolTotpSecret(deps: Deps, q: Queryable, userId: string, secret: Secret): Promise<void> {
  await setConfirmedTotp(q, userId, encrypt(deps.secrets.documentKeys, secret.base32));
  await replaceRecoveryCodes(q, userId, []);
}

/** Erasure (DELETE /v1/users/me/): the account's TOTP secret, passkeys, recovery codes and tickets go with it. */
export async function eraseSecondFactors(q: Queryable, userId: string): Promise<void> {
  await deleteFactors(q, userId);
}

/** reset-mfa: removes every factor and recovery code of the account and ends its sessions; false for no account. */
export async function resetMfaByEmail(deps: Deps, email: string): Promise<boolean> {
  return deps.db.tx(async (q) => {
    const user = await findUserByEmail(q, email, true);
    if (!user) return false;
    await deleteFactors(q, user.id);
    await revokeAllSessions(q, user.id, 'mfa_reset');
    return true;
  });
}

/**
 * A second factor checked outside the API's two-step sign-in (the connector's authorisation page,
 * which signs in with the password on one form): 'none' when the account has no factor, else
 * whether the TOTP or recovery code is right. Wrong codes count against the same budgets as the
 * sign-in step (per account and per address; 429 throttled over them); a TOTP step is used once.
 */
export async function checkSecondFactor(deps: Deps, userId: string, code: string, ip: string): Promise<'none' | 'ok' | 'wrong'> {
  // An account with only a passkey answers here with a recovery code (the page has no passkey step).
  if ((await methodsOf(deps.db, userId)).length === 0) return 'none';
  const { perIp, perAccount } = budgets(deps);
  await perIp.check(ip);
  await perAccount.check(userId);
  const ok = code.trim() !== '' && (await deps.db.tx((q) => spendCode(deps, q, userId, code, { recovery: true })));
  if (ok) return 'ok';
  await Promise.all([perIp.penalise(ip), perAccount.penalise(userId)]);
  return 'wrong';
}
