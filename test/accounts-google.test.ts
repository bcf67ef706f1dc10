// Google sign-in against a local JWKS server with real RS256-signed ID tokens.
import { generateKeyPair } from 'jose';
import { Secret, TOTP } from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGoogleStandIn, type GoogleStandIn } from './support/google.ts';
import { call, createTestContext, latestCode, newPatient, newStaff, PASSWORD, uniqueEmail, type TestContext } from './support/harness.ts';

const AUDIENCE = 'test-client.apps.googleusercontent.com';
let ctx: TestContext;
let googleStandIn: GoogleStandIn;

beforeAll(async () => {
  googleStandIn = await startGoogleStandIn(AUDIENCE);
  ctx = await createTestContext({ GOOGLE_CLIENT_IDS: AUDIENCE, GOOGLE_JWKS_URL: googleStandIn.jwksUrl });
});
afterAll(async () => {
  await ctx?.close();
  googleStandIn?.close();
});

const idToken = (claims: Record<string, unknown>, key?: CryptoKey) => googleStandIn.idToken(claims, key);
const google = (credential: unknown) => call(ctx, 'POST', '/v1/users/google-login/', { brand: true, json: { credential } });

describe('google-login', () => {
  it('asks an account with a second factor for it (403 mfa_required), and the code finishes the sign-in', async () => {
    const email = uniqueEmail('gmfa');
    const first = await google(await idToken({ email, sub: `sub-${email}` }));
    expect(first.status).toBe(200);
    const setup = await call(ctx, 'POST', '/v1/users/mfa/totp/', { token: first.body.access });
    const code = (steps: number) => new TOTP({ secret: Secret.fromBase32(setup.body.secret) }).generate({ timestamp: Date.now() + steps * 30_000 });
    expect((await call(ctx, 'POST', '/v1/users/mfa/totp/confirm/', { token: first.body.access, json: { code: code(0) } })).status).toBe(200);
    const again = await google(await idToken({ email, sub: `sub-${email}` }));
    expect(again.status).toBe(403);
    expect(again.body).toEqual({ error: expect.any(String), code: 'mfa_required', mfa_token: expect.any(String), methods: ['totp'] });
    const done = await call(ctx, 'POST', '/v1/users/token/mfa/', { brand: true, json: { mfa_token: again.body.mfa_token, code: code(1) } });
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({ access: expect.any(String), is_doctor: false });
  });

  it('answers 400 with an error saying the credential is required', async () => {
    const r = await call(ctx, 'POST', '/v1/users/google-login/', { brand: true, json: {} });
    expect(r.status).toBe(400);
    expect(r.body.error).toMatch(/credential is required/);
  });

  it('creates a passwordless Google account, signs it in again, and refuses password sign-in with google_account', async () => {
    const email = uniqueEmail('gnew');
    const token = await idToken({ email, sub: `sub-${email}` });
    const first = await google(token);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ access: expect.any(String), refresh: expect.any(String), is_doctor: false });
    const profile = await call(ctx, 'GET', '/v1/users/profile/', { token: first.body.access });
    expect(profile.body).toMatchObject({ email, first_name: 'Grace', last_name: 'Hopper' });
    expect((await google(await idToken({ email, sub: `sub-${email}` }))).status).toBe(200);
    const pw = await call(ctx, 'POST', '/v1/users/token/', { brand: true, json: { email, password: PASSWORD } });
    expect(pw.status).toBe(400);
    expect(pw.body.code).toBe('google_account');
  });

  it('refuses a wrong audience, a wrong issuer, an unverified email and a token signed by another key', async () => {
    const other = (await generateKeyPair('RS256')).privateKey as CryptoKey;
    for (const token of [
      await idToken({ email: uniqueEmail('aud'), aud: 'someone-else' }),
      await idToken({ email: uniqueEmail('iss'), iss: 'https://evil.example' }),
      await idToken({ email: uniqueEmail('unv'), email_verified: false }),
      await idToken({ email: uniqueEmail('key') }, other),
    ]) {
      const r = await google(token);
      expect(r.status).toBe(401);
      expect(r.body.code).toBe('invalid_google_credential');
    }
  });

  it('links a verified password account with the same email; the password keeps working', async () => {
    const p = await newPatient(ctx, 'glink');
    const r = await google(await idToken({ email: p.email }));
    expect(r.status).toBe(200);
    const me = await call(ctx, 'GET', '/v1/users/profile/', { token: r.body.access });
    expect(me.body.id).toBe(p.id);
    expect((await call(ctx, 'POST', '/v1/users/token/', { brand: true, json: { email: p.email, password: PASSWORD } })).status).toBe(200);
  });

  it('takes over an unverified signup and drops the password its registrant chose', async () => {
    const email = uniqueEmail('gpending');
    await call(ctx, 'POST', '/v1/users/register/', { brand: true, json: { email, password: 'Attacker-Chosen-Pass-1' } });
    await latestCode(ctx, email);
    expect((await google(await idToken({ email }))).status).toBe(200);
    const attacker = await call(ctx, 'POST', '/v1/users/token/', { brand: true, json: { email, password: 'Attacker-Chosen-Pass-1' } });
    expect(attacker.status).toBe(400);
    expect(attacker.body.code).toBe('google_account');
  });

  it('never links a staff account', async () => {
    const doc = await newStaff(ctx, 'doctor');
    const r = await google(await idToken({ email: doc.email }));
    expect(r.status).toBe(400);
    expect(r.body.code).toBe('google_link_not_allowed');
  });
});
