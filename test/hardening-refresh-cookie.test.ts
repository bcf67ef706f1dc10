// Issue 43: the web app kept the 14-day refresh token in localStorage. A client that asks
// (`X-Session-Cookie: 1`) gets it in an `HttpOnly; Secure; SameSite=Strict` cookie scoped to the
// refresh path; the refresh endpoint takes the cookie when the body has none, only with that header
// (CSRF); it rotates; sign-out clears it. Other clients see the JSON token pair as before
// (src/modules/accounts/refresh-cookie.ts, docs/accounts.md "The refresh cookie").
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from '../src/modules/accounts/passwords.ts';
import { call, createTestContext, PASSWORD, seedPatient, type Patient, type TestContext } from './support/harness.ts';

let ctx: TestContext;
let hash: string;
beforeAll(async () => {
  ctx = await createTestContext();
  hash = await hashPassword(PASSWORD);
});
afterAll(async () => ctx?.close());

const COOKIE = { 'x-session-cookie': '1' };

async function account(): Promise<Patient> {
  return seedPatient(ctx, { password_hash: hash });
}

function cookieOf(res: { headers: Record<string, unknown> }): { value: string; attributes: string[] } | null {
  const raw = res.headers['set-cookie'];
  const line = (Array.isArray(raw) ? raw : raw ? [raw] : []).map(String).find((c) => c.startsWith('pts_refresh='));
  if (!line) return null;
  const [pair, ...attributes] = line.split(';').map((s) => s.trim());
  return { value: pair!.slice('pts_refresh='.length), attributes };
}

const signIn = (p: Patient, headers: Record<string, string> = {}) => call(ctx, 'POST', '/v1/users/token/', { brand: true, json: { email: p.email, password: PASSWORD }, headers });
const refreshByCookie = (value: string, headers: Record<string, string> = COOKIE) => call(ctx, 'POST', '/v1/users/token/refresh/', { brand: true, json: {}, headers: { cookie: `other=1; pts_refresh=${value}`, ...headers } });

describe('the refresh token in an HttpOnly cookie', () => {
  it('sign-in with X-Session-Cookie sets it HttpOnly, Secure, SameSite=Strict on the refresh path only; the JSON pair is unchanged', async () => {
    const p = await account();
    const res = await signIn(p, COOKIE);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ access: expect.any(String), refresh: expect.any(String) });
    const c = cookieOf(res);
    expect(c).not.toBeNull();
    expect(c!.value).toBe(res.body.refresh);
    expect(c!.attributes).toEqual(expect.arrayContaining(['HttpOnly', 'Secure', 'SameSite=Strict', 'Path=/v1/users/token/refresh/', `Max-Age=${ctx.deps.config.REFRESH_TOKEN_TTL_SECONDS}`]));
    expect(c!.attributes.some((a) => a.toLowerCase().startsWith('domain='))).toBe(false);
    // Other clients (no header): the pair in JSON, no cookie.
    const plain = await signIn(p);
    expect(plain.status).toBe(200);
    expect(cookieOf(plain)).toBeNull();
    expect(plain.body.refresh).toEqual(expect.any(String));
  });

  it('refresh by cookie rotates it; the used cookie then ends the session (reuse detection)', async () => {
    const p = await account();
    const first = cookieOf(await signIn(p, COOKIE))!.value;
    const r1 = await refreshByCookie(first);
    expect(r1.status, r1.text).toBe(200);
    expect(r1.body).toMatchObject({ access: expect.any(String), refresh: expect.any(String) });
    const second = cookieOf(r1)!.value;
    expect(second).toBe(r1.body.refresh);
    expect(second).not.toBe(first);
    expect((await call(ctx, 'GET', '/v1/users/profile/me/', { token: r1.body.access })).status).toBe(200);
    // The first cookie again after the reuse grace (a stolen copy): refused, and the whole session ends.
    await ctx.deps.clock.advance((ctx.deps.config.REFRESH_COOKIE_REUSE_GRACE_SECONDS + 1) * 1000);
    expect((await refreshByCookie(first)).status).toBe(401);
    expect((await refreshByCookie(second)).status).toBe(401);
  });

  it('two tabs presenting one cookie at once both get a pair of the same session; a third presentation ends it', async () => {
    const p = await account();
    const first = cookieOf(await signIn(p, COOKIE))!.value;
    const [a, b] = await Promise.all([refreshByCookie(first), refreshByCookie(first)]);
    expect([a.status, b.status]).toEqual([200, 200]);
    const sid = (t: string) => (JSON.parse(Buffer.from(t.split('.')[1]!, 'base64url').toString()) as { sid: string }).sid;
    expect(sid(a.body.refresh)).toBe(sid(first));
    expect(sid(b.body.refresh)).toBe(sid(first));
    expect(a.body.refresh).not.toBe(b.body.refresh);
    // Within the grace, but the one extra answer is spent: reuse, the whole session ends.
    const third = await refreshByCookie(first);
    expect(third.status).toBe(401);
    expect(third.body).toMatchObject({ code: 'token_not_valid', messages: [{ message: 'Token is blacklisted' }] });
    expect((await refreshByCookie(a.body.refresh)).status).toBe(401);
    expect((await refreshByCookie(b.body.refresh)).status).toBe(401);
  });

  it('the grace is for the shared cookie only: the same token in the body is reuse at once', async () => {
    const p = await account();
    const first = cookieOf(await signIn(p, COOKIE))!.value;
    expect((await refreshByCookie(first)).status).toBe(200);
    const replay = await call(ctx, 'POST', '/v1/users/token/refresh/', { brand: true, json: { refresh: first } });
    expect(replay.status).toBe(401);
    expect(replay.body).toMatchObject({ messages: [{ message: 'Token is blacklisted' }] });
  });

  it('with REFRESH_COOKIE_REUSE_GRACE_SECONDS=0 a reused cookie ends the session at once', async () => {
    const strict = await createTestContext({ REFRESH_COOKIE_REUSE_GRACE_SECONDS: '0' });
    try {
      const p = await seedPatient(strict, { password_hash: hash });
      const signedIn = await call(strict, 'POST', '/v1/users/token/', { brand: true, json: { email: p.email, password: PASSWORD }, headers: COOKIE });
      const first = cookieOf(signedIn)!.value;
      const again = (value: string) => call(strict, 'POST', '/v1/users/token/refresh/', { brand: true, json: {}, headers: { cookie: `pts_refresh=${value}`, ...COOKIE } });
      const r1 = await again(first);
      expect(r1.status).toBe(200);
      expect((await again(first)).status).toBe(401);
      expect((await again(r1.body.refresh)).status).toBe(401);
    } finally {
      await strict.close();
    }
  });

  it('without the custom header the cookie is not taken (CSRF): 400 refresh required, nothing rotated', async () => {
    const p = await account();
    const value = cookieOf(await signIn(p, COOKIE))!.value;
    const forged = await refreshByCookie(value, {});
    expect(forged.status).toBe(400);
    expect(forged.body).toEqual({ refresh: ['This field is required.'] });
    expect(cookieOf(forged)).toBeNull();
    expect((await refreshByCookie(value)).status).toBe(200);
  });

  it('a body token still wins and works without any cookie (other clients)', async () => {
    const p = await account();
    const pair = (await signIn(p)).body;
    const r = await call(ctx, 'POST', '/v1/users/token/refresh/', { brand: true, json: { refresh: pair.refresh } });
    expect(r.status).toBe(200);
    expect(cookieOf(r)).toBeNull();
    expect((await call(ctx, 'POST', '/v1/users/token/refresh/', { brand: true, json: {} })).status).toBe(400);
  });

  it('sign-out clears the cookie and ends its session', async () => {
    const p = await account();
    const res = await signIn(p, COOKIE);
    const value = cookieOf(res)!.value;
    const out = await call(ctx, 'POST', '/v1/users/logout/', { token: res.body.access, headers: COOKIE });
    expect(out.status).toBe(200);
    const cleared = cookieOf(out);
    expect(cleared).toEqual({ value: '', attributes: expect.arrayContaining(['Max-Age=0', 'Path=/v1/users/token/refresh/', 'HttpOnly', 'Secure', 'SameSite=Strict']) });
    expect((await refreshByCookie(value)).status).toBe(401);
  });

  it('another account cannot use its cookie to act as someone else: the cookie is the account\'s own session', async () => {
    const a = await account();
    const b = await account();
    const aCookie = cookieOf(await signIn(a, COOKIE))!.value;
    await signIn(b, COOKIE);
    const r = await refreshByCookie(aCookie);
    const me = await call(ctx, 'GET', '/v1/users/profile/me/', { token: r.body.access });
    expect(me.body.email).toBe(a.email);
  });

  it('CORS lets a listed origin send the header', async () => {
    const pre = await call(ctx, 'OPTIONS', '/v1/users/token/refresh/', {
      headers: { origin: 'http://localhost:5173', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type,x-session-cookie' },
    });
    if (pre.headers['access-control-allow-origin']) expect(String(pre.headers['access-control-allow-headers']).toLowerCase()).toContain('x-session-cookie');
  });
});
