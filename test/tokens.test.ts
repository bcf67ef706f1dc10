// The service's own bearer tokens are verified by src/lib/jwt.ts (fast-jwt, node:crypto HMAC on
// the calling thread): only HS256, only our issuer, only a known key id, an `exp` in the future of
// the service's clock, and only an access token as a bearer. Every refusal is the same 401 body.
import { randomBytes } from 'node:crypto';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOKEN_AUDIENCE, TOKEN_ISSUER } from '../src/http/auth.ts';
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

  it('requires iss, aud and a string kid of the ring (a numeric or missing kid never falls back to another key)', async () => {
    const [, body] = patient.access.split('.');
    const claims = JSON.parse(Buffer.from(body!, 'base64url').toString()) as Record<string, unknown>;
    expect(claims.aud).toBe(TOKEN_AUDIENCE);
    const key = ctx.deps.secrets.jwtKeys.active.key;
    const { iss: _iss, exp: _exp, aud: _aud, ...rest } = claims;
    const now = Math.floor(ctx.deps.clock.now().getTime() / 1000);
    const signed = (header: Record<string, unknown>, extra: Record<string, unknown>) =>
      new SignJWT({ ...rest, exp: now + 300, ...extra }).setProtectedHeader({ alg: 'HS256', typ: 'JWT', ...header } as { alg: string }).sign(key);
    const refusals = {
      'no iss': await signed({ kid: 'k1' }, { aud: TOKEN_AUDIENCE }),
      'no aud': await signed({ kid: 'k1' }, { iss: TOKEN_ISSUER }),
      'another aud': await signed({ kid: 'k1' }, { iss: TOKEN_ISSUER, aud: 'another-service' }),
      'aud as a list with another': await signed({ kid: 'k1' }, { iss: TOKEN_ISSUER, aud: ['another-service'] }),
      'no kid': await signed({}, { iss: TOKEN_ISSUER, aud: TOKEN_AUDIENCE }),
      'numeric kid': await signed({ kid: 1 }, { iss: TOKEN_ISSUER, aud: TOKEN_AUDIENCE }),
      'kid db (the generated key, not this one)': await signed({ kid: 'db' }, { iss: TOKEN_ISSUER, aud: TOKEN_AUDIENCE }),
      'kid of another shape': await signed({ kid: '../k1' }, { iss: TOKEN_ISSUER, aud: TOKEN_AUDIENCE }),
    };
    // The control: the same construction with every claim is accepted.
    expect((await profile(await signed({ kid: 'k1' }, { iss: TOKEN_ISSUER, aud: TOKEN_AUDIENCE }))).status).toBe(200);
    for (const [why, bad] of Object.entries(refusals)) {
      const res = await profile(bad);
      expect(res.status, why).toBe(401);
      expect(res.body, why).toMatchObject({ code: 'token_not_valid', messages: [{ message: 'Token is invalid or expired' }] });
      expect(res.headers['www-authenticate'], why).toContain('Bearer');
    }
  });

  it('checks the claims’ shapes before any query: a well-signed token with a malformed claim is a 401, never a 500', async () => {
    const shapes: Record<string, Record<string, unknown>> = {
      'user_id not a UUID': { user_id: 'not-a-uuid' },
      'user_id a number': { user_id: 42 },
      'sid not a UUID': { sid: 'x' },
      'sid an object': { sid: { $ne: null } },
      'jti missing': { jti: undefined },
      'token_type unknown': { token_type: 'admin' },
      'iat a string': { iat: 'yesterday' },
    };
    for (const [why, claims] of Object.entries(shapes)) {
      const res = await profile(await token({ claims }));
      expect(res.status, why).toBe(401);
      expect(res.body.code, why).toBe('token_not_valid');
    }
    // As a refresh token too: the refresh route answers the same 401.
    const bad = await token({ claims: { token_type: 'refresh', user_id: 'not-a-uuid' } });
    const refreshed = await call(ctx, 'POST', '/v1/users/token/refresh/', { brand: true, json: { refresh: bad } });
    expect(refreshed.status).toBe(401);
    expect(refreshed.body.code).toBe('token_not_valid');
  });

  it('refuses an accepted token at once when its session ends or its account is disabled, and its text with another signature', async () => {
    // The service remembers tokens whose signature it checked (src/lib/jwt.ts): nothing else about them.
    const p = await seedPatient(ctx);
    expect((await profile(p.access)).status).toBe(200);
    const [head, body, signature] = p.access.split('.') as [string, string, string];
    const forged = `${head}.${body}.${signature[0] === 'A' ? 'B' : 'A'}${signature.slice(1)}`;
    expect((await profile(forged)).status).toBe(401);
    await ctx.db.query('update users set disabled_at = $2 where id = $1', [p.id, ctx.deps.clock.now()]);
    expect((await profile(p.access)).status).toBe(401);
    await ctx.db.query('update users set disabled_at = null where id = $1', [p.id]);
    expect((await profile(p.access)).status).toBe(200);
    await ctx.db.query('update refresh_families set revoked_at = $2 where user_id = $1', [p.id, ctx.deps.clock.now()]);
    const ended = await profile(p.access);
    expect(ended.status).toBe(401);
    expect(ended.body.messages[0].message).toBe('User is inactive or the session has ended');
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

// Token rotation (src/modules/accounts/tokens.ts and the accounts service's `refresh`): each refusal
// with its exact message, and the stored row that the rotation reads. Mutation testing (docs/testing.md)
// found these branches unasserted.
describe('refresh token rotation', () => {
  const refresh = (value: string) => call(ctx, 'POST', '/v1/users/token/refresh/', { brand: true, json: { refresh: value } });
  const claimsOf = (jwt: string) => JSON.parse(Buffer.from(jwt.split('.')[1]!, 'base64url').toString()) as { jti: string; sid: string; exp: number; user_id: string };
  const refused = async (value: string, message: string) => {
    const r = await refresh(value);
    expect(r.status, message).toBe(401);
    expect(r.body, message).toMatchObject({ code: 'token_not_valid', messages: [{ token_type: 'refresh', message }] });
  };

  it('stores the token under its hashed jti in its session, expiring with the token itself', async () => {
    const p = await seedPatient(ctx);
    const c = claimsOf(p.refresh);
    const rows = await ctx.db.query<{ family_id: string; expires_at: Date; used_at: Date | null; jti_hash: string }>('select t.* from refresh_tokens t join refresh_families f on f.id = t.family_id where f.user_id = $1', [p.id]);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.family_id).toBe(c.sid);
    expect(rows[0]!.jti_hash).not.toContain(c.jti);
    expect(rows[0]!.used_at).toBeNull();
    // The JWT's exp is whole seconds, the row's expiry the same instant in milliseconds.
    expect(Math.abs(new Date(rows[0]!.expires_at).getTime() / 1000 - c.exp)).toBeLessThan(1);
    expect(c.exp - Math.floor(ctx.deps.clock.now().getTime() / 1000)).toBeGreaterThan(ctx.deps.config.REFRESH_TOKEN_TTL_SECONDS - 60);
  });

  it('rotates within the session: the new refresh token is a new row of the same family, the old one marked used', async () => {
    const p = await seedPatient(ctx);
    const r = await refresh(p.refresh);
    expect(r.status).toBe(200);
    const next = claimsOf(r.body.refresh);
    expect(next.sid).toBe(claimsOf(p.refresh).sid);
    expect(next.user_id).toBe(p.id);
    expect(next.jti).not.toBe(claimsOf(p.refresh).jti);
    expect(claimsOf(r.body.access)).toMatchObject({ token_type: 'access', user_id: p.id, sid: next.sid });
    const rows = await ctx.db.query<{ used: boolean }>('select used_at is not null as used from refresh_tokens where family_id = $1 order by created_at, used_at nulls last', [next.sid]);
    expect(rows.map((x) => x.used).sort()).toEqual([false, true]);
  });

  it('a replayed token is blacklisted and ends the session it belongs to, not the account’s other sessions', async () => {
    const p = await seedPatient(ctx);
    const { issueTokenPair } = await import('../src/modules/accounts/tokens.ts');
    const otherSession = await issueTokenPair(ctx.deps, ctx.db, p.id);
    const next = (await refresh(p.refresh)).body;
    await refused(p.refresh, 'Token is blacklisted');
    await refused(next.refresh, 'Token is blacklisted');
    expect((await profile(next.access)).status).toBe(401);
    expect((await refresh(otherSession.refresh)).status).toBe(200);
  });

  it('refuses a badly signed refresh token (invalid) and an access token (wrong type), each with its message', async () => {
    const p = await seedPatient(ctx);
    await refused(await token({ claims: { ...claimsOf(p.refresh), token_type: 'refresh' }, key: randomBytes(32) }), 'Token is invalid or expired');
    await refused(p.access, 'Token has wrong type');
    // Neither refusal used the session's refresh token up.
    expect((await refresh(p.refresh)).status).toBe(200);
  });

  it('refuses a token whose jti is another account’s (blacklisted), and leaves that account’s token working', async () => {
    const a = await seedPatient(ctx);
    const b = await seedPatient(ctx);
    const stolen = await token({ claims: { ...claimsOf(a.refresh), token_type: 'refresh', user_id: b.id } });
    await refused(stolen, 'Token is blacklisted');
    expect((await refresh(a.refresh)).status).toBe(200);
  });

  it('refuses a token whose stored row has expired, and a disabled or unverified account (User is inactive)', async () => {
    const p = await seedPatient(ctx);
    await ctx.db.query("update refresh_tokens set expires_at = $2 where family_id = $1", [claimsOf(p.refresh).sid, new Date(ctx.deps.clock.now().getTime() - 1000)]);
    await refused(p.refresh, 'Token is expired');
    const disabled = await seedPatient(ctx);
    await ctx.db.query('update users set disabled_at = $2 where id = $1', [disabled.id, ctx.deps.clock.now()]);
    await refused(disabled.refresh, 'User is inactive');
    const unverified = await seedPatient(ctx);
    await ctx.db.query('update users set email_verified_at = null where id = $1', [unverified.id]);
    await refused(unverified.refresh, 'User is inactive');
    // Refused tokens were not used up: the same token works once the account is enabled again.
    await ctx.db.query('update users set disabled_at = null where id = $1', [disabled.id]);
    expect((await refresh(disabled.refresh)).status).toBe(200);
  });
});
