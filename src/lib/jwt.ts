// Verification of the service's own HS256 tokens (access and refresh).
//
// fast-jwt computes the HMAC with node:crypto on the calling thread (~15 µs a token here). jose,
// which still signs them and verifies Google's RS256 ID tokens, verifies through WebCrypto, where
// every HMAC is a job on the libuv pool (~70 µs, queued behind argon2 while people sign in): that
// was 12 % of the list route's CPU. The expiry is checked here against the service's
// clock (deps.clock, which tests move), not by fast-jwt, whose clock is fixed when a verifier is made.
import { createDecoder, createVerifier, TokenError } from 'fast-jwt';
import type { Key, KeyRing } from './keys.ts';

/** Why a token was refused: `expired`, or anything else (bad signature, issuer, key, shape). */
export class TokenRejected extends Error {
  constructor(readonly expired: boolean) {
    super(expired ? 'token expired' : 'token invalid');
  }
}

type Verify = (token: string) => Record<string, unknown>;

/** The claims of every token the service signs, checked for shape before anything reads them. */
export interface ServiceClaims {
  iss: string;
  aud: string;
  token_type: 'access' | 'refresh';
  user_id: string;
  sid: string;
  jti: string;
  iat: number;
  exp: number;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** A key id as JWT_SIGNING_KEYS allows them (src/lib/keys.ts), or the generated key's `db`. */
const KID = /^[A-Za-z0-9_-]{1,32}$/;
const isUuid = (v: unknown): v is string => typeof v === 'string' && UUID.test(v);
const isTime = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;

/** The payload as ServiceClaims, or undefined when a claim is missing or of another shape. */
function claimsOf(p: Record<string, unknown>, issuer: string, audience: string): ServiceClaims | undefined {
  const { iss, aud, token_type, user_id, sid, jti, iat, exp } = p;
  if (iss !== issuer || aud !== audience) return undefined;
  if (token_type !== 'access' && token_type !== 'refresh') return undefined;
  if (!isUuid(user_id) || !isUuid(sid) || !isUuid(jti) || !isTime(iat) || !isTime(exp)) return undefined;
  return { iss, aud, token_type, user_id, sid, jti, iat, exp };
}

const decodeHeader = createDecoder({ complete: true });

type TokenVerifier = (token: string, now: Date) => Record<string, unknown>;
/** Verified tokens remembered per verifier (a few hundred bytes each). */
const VERIFIED_TOKENS = 4096;
const verifiers = new WeakMap<KeyRing, Map<string, TokenVerifier>>();

/** verifyServiceToken for one ring, issuer and audience, made once (the ring lives as long as the process). */
export function verifyServiceToken(ring: KeyRing, issuer: string, token: string, now: Date, audience: string = issuer): ServiceClaims {
  let byIssuer = verifiers.get(ring);
  if (!byIssuer) verifiers.set(ring, (byIssuer = new Map<string, TokenVerifier>()));
  let verify = byIssuer.get(`${issuer} ${audience}`);
  if (!verify) byIssuer.set(`${issuer} ${audience}`, (verify = serviceTokenVerifier(ring, issuer, audience)));
  const payload = verify(token, now);
  const claims = claimsOf(payload, issuer, audience);
  if (!claims) throw new TokenRejected(false);
  return claims;
}

/**
 * A verifier for tokens signed with one of the ring's keys: the token's `kid` (required, a string
 * key id; a missing, numeric or unknown one is refused, never a fallback to another key) picks it;
 * only HS256, only from `issuer` for `audience`, with an `exp` in the future of `now`. Returns the
 * payload; throws TokenRejected.
 */
function serviceTokenVerifier(ring: KeyRing, issuer: string, audience: string): TokenVerifier {
  const byKey = new WeakMap<Key, Verify>();
  const verifierFor = (key: Key): Verify => {
    let verify = byKey.get(key);
    if (!verify) {
      // Expiry is ours (see above); fast-jwt checks signature, algorithm, issuer and `nbf`.
      verify = createVerifier({
        key: key.key,
        algorithms: ['HS256'],
        allowedIss: issuer,
        allowedAud: audience,
        requiredClaims: ['iss', 'aud', 'exp', 'iat', 'jti'],
        ignoreExpiration: true,
      }) as Verify;
      byKey.set(key, verify);
    }
    return verify;
  };
  // Tokens whose signature, key, issuer and audience were already checked, by their exact text: a
  // client sends the same access token on every request, and the HMAC, the two decodes and the checks
  // were ~4 % of a cached list request's CPU. Only tokens that passed enter (garbage cannot
  // fill it); the expiry below and the session check (src/http/auth.ts) still run on every request, so
  // an expired token, a revoked session or a disabled account is refused as before. Bounded: the
  // oldest entries go first.
  const verified = new Map<string, Record<string, unknown>>();
  return (token, now) => {
    let payload = verified.get(token);
    if (payload === undefined) {
      payload = verifySigned(token);
      if (verified.size >= VERIFIED_TOKENS) verified.delete(verified.keys().next().value as string);
      verified.set(token, payload);
    }
    if (typeof payload.exp !== 'number') throw new TokenRejected(false);
    if (payload.exp * 1000 <= now.getTime()) throw new TokenRejected(true);
    return payload;
  };

  function verifySigned(token: string): Record<string, unknown> {
    let payload: Record<string, unknown>;
    try {
      const { header } = decodeHeader(token) as { header: { kid?: unknown } };
      const key = typeof header.kid === 'string' && KID.test(header.kid) ? ring.byId(header.kid) : undefined;
      if (!key) throw new TokenRejected(false);
      payload = verifierFor(key)(token);
    } catch (err) {
      if (err instanceof TokenRejected || err instanceof TokenError) throw new TokenRejected(false);
      throw err;
    }
    return payload;
  }
}
