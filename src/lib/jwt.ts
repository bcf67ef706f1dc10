// Verification of the service's own HS256 tokens (access and refresh).
//
// fast-jwt computes the HMAC with node:crypto on the calling thread (~15 µs a token here). jose,
// which still signs them and verifies Google's RS256 ID tokens, verifies through WebCrypto, where
// every HMAC is a job on the libuv pool (~70 µs, queued behind argon2 while people sign in): that
// was 12 % of the list route's CPU (issue 11). The expiry is checked here against the service's
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

const decodeHeader = createDecoder({ complete: true });

type TokenVerifier = (token: string, now: Date) => Record<string, unknown>;
const verifiers = new WeakMap<KeyRing, Map<string, TokenVerifier>>();

/** verifyServiceToken for one ring and issuer, made once (the ring lives as long as the process). */
export function verifyServiceToken(ring: KeyRing, issuer: string, token: string, now: Date): Record<string, unknown> {
  let byIssuer = verifiers.get(ring);
  if (!byIssuer) verifiers.set(ring, (byIssuer = new Map<string, TokenVerifier>()));
  let verify = byIssuer.get(issuer);
  if (!verify) byIssuer.set(issuer, (verify = serviceTokenVerifier(ring, issuer)));
  return verify(token, now);
}

/**
 * A verifier for tokens signed with one of the ring's keys (the token's `kid` picks it; a token
 * without one was signed with the generated key `db`), only HS256, only from `issuer`, with an
 * `exp` in the future of `now`. Returns the payload; throws TokenRejected.
 */
function serviceTokenVerifier(ring: KeyRing, issuer: string): TokenVerifier {
  const byKey = new WeakMap<Key, Verify>();
  const verifierFor = (key: Key): Verify => {
    let verify = byKey.get(key);
    if (!verify) {
      // Expiry is ours (see above); fast-jwt checks signature, algorithm, issuer and `nbf`.
      verify = createVerifier({ key: key.key, algorithms: ['HS256'], allowedIss: issuer, ignoreExpiration: true }) as Verify;
      byKey.set(key, verify);
    }
    return verify;
  };
  return (token, now) => {
    let payload: Record<string, unknown>;
    try {
      const { header } = decodeHeader(token) as { header: { kid?: unknown } };
      const key = ring.byId(typeof header.kid === 'string' ? header.kid : 'db');
      if (!key) throw new TokenRejected(false);
      payload = verifierFor(key)(token);
    } catch (err) {
      if (err instanceof TokenRejected || err instanceof TokenError) throw new TokenRejected(false);
      throw err;
    }
    if (typeof payload.exp !== 'number') throw new TokenRejected(false);
    if (payload.exp * 1000 <= now.getTime()) throw new TokenRejected(true);
    return payload;
  };
}
