// Passkeys (WebAuthn level 2, with @simplewebauthn/server) as a second factor (
// docs/accounts.md "Passkeys"): the options a browser needs to create or use a passkey, and the
// checks of what it sends back. Challenges are kept server-side (only their SHA-256), used once,
// valid 5 minutes and bound to the account (and, for a sign-in, to its mfa_token); the counter is
// checked by the library and saved with a compare-and-set. The flows around them (tickets, budgets,
// recovery codes) are in mfa.ts.
import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
  type AuthenticationResponseJSON,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
  type RegistrationResponseJSON,
} from '@simplewebauthn/server';
import type { z } from 'zod';
import type { Queryable } from '../../db/index.ts';
import type { Deps } from '../../deps.ts';
import { sha256 } from '../../lib/crypto.ts';
import { findPasskeyForUpdate, insertChallenge, insertPasskey, listPasskeys, recordPasskeyUse, takeChallenge, type PasskeyRow } from './passkeys.repository.ts';
import type { AuthenticationResponseSchema, RegistrationResponseSchema } from './schemas.ts';

export type CreationOptions = ReturnType<typeof creationJson>;
export type RequestOptions = ReturnType<typeof requestJson>;

export const CHALLENGE_TTL_SECONDS = 5 * 60;
export const DEFAULT_PASSKEY_NAME = 'Passkey';

type RegistrationBody = z.infer<typeof RegistrationResponseSchema>;
type AuthenticationBody = z.infer<typeof AuthenticationResponseSchema>;

const toRegistration = (b: RegistrationBody): RegistrationResponseJSON => b;
const toAuthentication = (b: AuthenticationBody): AuthenticationResponseJSON => b;

/** The challenge the browser signed, read from clientDataJSON (undefined when unreadable). */
function signedChallenge(clientDataJSON: string): string | undefined {
  try {
    const parsed: unknown = JSON.parse(Buffer.from(clientDataJSON, 'base64url').toString('utf8'));
    const challenge = typeof parsed === 'object' && parsed !== null ? (parsed as { challenge?: unknown }).challenge : undefined;
    return typeof challenge === 'string' && challenge.length > 0 && challenge.length <= 512 ? challenge : undefined;
  } catch {
    return undefined;
  }
}

/** The options as plain JSON data (the library's interface types have no index signature). */
const plain = (e: object | undefined): Record<string, unknown> | undefined => e && Object.fromEntries(Object.entries(e));
const creationJson = (o: PublicKeyCredentialCreationOptionsJSON) => ({ ...o, extensions: plain(o.extensions) });
const requestJson = (o: PublicKeyCredentialRequestOptionsJSON) => ({ ...o, extensions: plain(o.extensions) });

const expiry = (deps: Deps) => new Date(deps.clock.now().getTime() + CHALLENGE_TTL_SECONDS * 1000);

/** Spends the challenge the response answers; true when it was the account's, unused and in time. */
async function spendChallenge(deps: Deps, q: Queryable, userId: string, clientDataJSON: string, purpose: 'register' | 'sign_in', ticketHash: string | null): Promise<string | undefined> {
  const challenge = signedChallenge(clientDataJSON);
  if (!challenge) return undefined;
  const expiresAt = await takeChallenge(q, sha256(challenge), userId, purpose, ticketHash);
  return expiresAt && expiresAt > deps.clock.now() ? challenge : undefined;
}

export const passkeyOut = (p: PasskeyRow) => ({ id: p.id, name: p.name, backed_up: p.backed_up, created_at: p.created_at.toISOString(), last_used_at: p.last_used_at?.toISOString() ?? null });

/** Options to create a passkey for the account (its existing passkeys excluded); the challenge is stored. */
export async function registrationOptions(deps: Deps, q: Queryable, user: { id: string; email: string }): Promise<CreationOptions> {
  const existing = await listPasskeys(q, user.id);
  const options = await generateRegistrationOptions({
    rpName: deps.config.BRAND_SLUG,
    rpID: deps.config.WEBAUTHN_RP_ID,
    userName: user.email,
    userDisplayName: user.email,
    // The account's id (no personal data), so that one authenticator keeps one passkey per account.
    userID: new TextEncoder().encode(user.id),
    attestationType: 'none',
    timeout: CHALLENGE_TTL_SECONDS * 1000,
    excludeCredentials: existing.map((p) => ({ id: p.credential_id, transports: p.transports })),
    authenticatorSelection: { residentKey: 'preferred', userVerification: 'preferred' },
  });
  await insertChallenge(q, sha256(options.challenge), user.id, 'register', null, expiry(deps));
  return creationJson(options);
}

/** Checks a new credential against the account's registration challenge and stores it; undefined when refused. */
export async function registerCredential(deps: Deps, q: Queryable, userId: string, body: RegistrationBody, name: string | undefined): Promise<PasskeyRow | undefined> {
  const challenge = await spendChallenge(deps, q, userId, body.response.clientDataJSON, 'register', null);
  if (!challenge) return undefined;
  let verified;
  try {
    verified = await verifyRegistrationResponse({
      response: toRegistration(body),
      expectedChallenge: challenge,
      expectedOrigin: deps.config.WEBAUTHN_ORIGINS,
      expectedRPID: deps.config.WEBAUTHN_RP_ID,
      // A second factor: presence is enough (the password was the first).
      requireUserVerification: false,
    });
  } catch {
    return undefined;
  }
  if (!verified.verified) return undefined;
  const { credential, credentialBackedUp } = verified.registrationInfo;
  return insertPasskey(q, userId, {
    credential_id: credential.id,
    public_key: Buffer.from(credential.publicKey).toString('base64url'),
    counter: credential.counter,
    transports: credential.transports ?? body.response.transports ?? [],
    backed_up: credentialBackedUp,
    name: name ?? DEFAULT_PASSKEY_NAME,
  });
}

/** Options to sign in with one of the account's passkeys, bound to the sign-in's ticket; undefined without a passkey. */
export async function authenticationOptions(deps: Deps, q: Queryable, userId: string, ticketHash: string): Promise<RequestOptions | undefined> {
  const passkeys = await listPasskeys(q, userId);
  if (passkeys.length === 0) return undefined;
  const options = await generateAuthenticationOptions({
    rpID: deps.config.WEBAUTHN_RP_ID,
    allowCredentials: passkeys.map((p) => ({ id: p.credential_id, transports: p.transports })),
    userVerification: 'discouraged',
    timeout: CHALLENGE_TTL_SECONDS * 1000,
  });
  await insertChallenge(q, sha256(options.challenge), userId, 'sign_in', ticketHash, expiry(deps));
  return requestJson(options);
}

/**
 * Checks an assertion of one of the account's passkeys against the challenge issued for this
 * ticket: true when it is valid (the challenge is then spent and the counter saved).
 */
export async function verifyAssertion(deps: Deps, q: Queryable, userId: string, ticketHash: string, body: AuthenticationBody): Promise<boolean> {
  const challenge = await spendChallenge(deps, q, userId, body.response.clientDataJSON, 'sign_in', ticketHash);
  if (!challenge) return false;
  const passkey = await findPasskeyForUpdate(q, userId, body.id);
  if (!passkey) return false;
  let result;
  try {
    result = await verifyAuthenticationResponse({
      response: toAuthentication(body),
      expectedChallenge: challenge,
      expectedOrigin: deps.config.WEBAUTHN_ORIGINS,
      expectedRPID: deps.config.WEBAUTHN_RP_ID,
      credential: { id: passkey.credential_id, publicKey: new Uint8Array(Buffer.from(passkey.public_key, 'base64url')), counter: passkey.counter, transports: passkey.transports },
      requireUserVerification: false,
    });
  } catch {
    // Includes a counter that did not grow (a cloned authenticator, WebAuthn 6.1.1 step 21).
    return false;
  }
  if (!result.verified) return false;
  return recordPasskeyUse(q, userId, passkey.id, passkey.counter, result.authenticationInfo.newCounter);
}
