// The service's own bearer tokens are verified by src/lib/jwt.ts (fast-jwt, node:crypto HMAC on
// the calling thread): only HS256, only our issuer, only a known key id, an `exp` in the future of
// the service's clock, and only an access token as a bearer. Every refusal is the same 401 body.
import { randomBytes } from 'node:crypto';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOKEN_ISSUER } from '../src/http/auth.ts';
import { call, createTestContext, seedPatient, type Patient, type TestContext } from './support/harness.ts';

let ctx: TestContext;
let patient: Patient;
beforeAll(async () => {
  ctx = await createTestContext({ JWT_SIGNING_KEYS: `k1:${randomBytes(32).toString('base64url')}` });
  patient = await seedPatient(ctx);
});
afterAll(async () => ctx?.close());

const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');

/** A token for the seeded patient's session with the given changes to header, claims and key. */
async function token(opts: { header?: Record<string, unknown>; claims?: Record<string, unknown>; key?: Uint8Array; issuer?: string; expiresIn?: number } = {}) {
  const [, body] = patient.access.split('.');
  const claims = JSON.parse(Buffer.from(body!, 'base64url').toString()) as Record<string, unknown>;
  const now = Math.floor(ctx.deps.clock.now().getTime() / 1000);
  const { iss: _iss, exp: _exp, ...rest } = claims;
  const jwt = new SignJWT({ ...rest, ...opts.claims })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT', kid: 'k1', ...opts.header } as { alg: string })
    .setIssuer(opts.issuer ?? TOKEN_ISSUER);
  if (opts.expiresIn !== 0) jwt.setExpirationTime(now + (opts.expiresIn ?? 300));
  return jwt.sign(opts.key ?? ctx.deps.secrets.jwtKeys.active.key);
}

const profile = (bearer: string) => call(ctx, 'GET', '/v1/users/profile/', { token: bearer });

describe('bearer token verification', () => {
  it('accepts a token we would issue (the control for every refusal below)', async () => {
    expect((await profile(await token())).status).toBe(200);
  });

  it('refuses a wrong key, a foreign issuer, an unknown kid, another algorithm, alg none and a missing exp', async () => {
    const refusals = [
      await token({ key: randomBytes(32) }),
      await token({ issuer: 'someone-else' }),
      await token({ header: { kid: 'k9' } }),
      await new SignJWT({ token_type: 'access', user_id: patient.id, sid: 'x' }).setProtectedHeader({ alg: 'HS512', kid: 'k1' }).setIssuer(TOKEN_ISSUER).setExpirationTime('5m').sign(ctx.deps.secrets.jwtKeys.active.key),
      `${b64({ alg: 'none', typ: 'JWT' })}.${patient.access.split('.')[1]}.`,
      await token({ expiresIn: 0 }),
    ];
    for (const bad of refusals) {
      const res = await profile(bad);
      expect(res.status, bad).toBe(401);
      expect(res.body).toMatchObject({ code: 'token_not_valid', messages: [{ message: 'Token is invalid or expired' }] });
    }
  });

  it('refuses a refresh token as a bearer', async () => {
    const res = await profile(patient.refresh);
    expect(res.status).toBe(401);
    expect(res.body.messages[0].message).toBe('Token has wrong type');
  });

  it("expires by the service's clock, not the machine's", async () => {
    const short = await token({ expiresIn: 60 });
    expect((await profile(short)).status).toBe(200);
    await ctx.deps.clock.advance(61_000);
    const res = await profile(short);
    expect(res.status).toBe(401);
    expect(res.body.messages[0].message).toBe('Token is expired');
    const refresh = await call(ctx, 'POST', '/v1/users/token/refresh/', { brand: true, json: { refresh: await token({ claims: { token_type: 'refresh' }, expiresIn: -1 }) } });
    expect(refresh.status).toBe(401);
    expect(refresh.body.messages[0]).toMatchObject({ token_type: 'refresh', message: 'Token is expired' });
  });
});
