// A stand-in for Google's sign-in keys: a local JWKS server and real RS256-signed ID tokens, so the
// service's Google verification runs unchanged without network (GOOGLE_JWKS_URL points here).
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';

export interface GoogleStandIn {
  /** The value for GOOGLE_JWKS_URL. */
  jwksUrl: string;
  /** A signed ID token for `audience`; claims override the defaults (aud, iss, sub included). */
  idToken(claims: Record<string, unknown>, key?: CryptoKey): Promise<string>;
  close(): void;
}

export async function startGoogleStandIn(audience: string, subjectPrefix = 'google'): Promise<GoogleStandIn> {
  const pair = await generateKeyPair('RS256');
  const privateKey = pair.privateKey as CryptoKey;
  const jwk = { ...(await exportJWK(pair.publicKey)), kid: 'test-key', alg: 'RS256', use: 'sig' };
  const server = createServer((_req, res) => {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ keys: [jwk] }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  let sub = 0;
  return {
    jwksUrl: `http://127.0.0.1:${port}/certs`,
    idToken: (claims, key = privateKey) =>
      new SignJWT({ email_verified: true, given_name: 'Grace', family_name: 'Hopper', ...claims })
        .setProtectedHeader({ alg: 'RS256', kid: 'test-key' })
        .setIssuer((claims.iss as string | undefined) ?? 'https://accounts.google.com')
        .setAudience((claims.aud as string | undefined) ?? audience)
        .setSubject((claims.sub as string | undefined) ?? `${subjectPrefix}-${++sub}-${Date.now()}`)
        .setIssuedAt()
        .setExpirationTime('10m')
        .sign(key),
    close: () => server.close(),
  };
}
