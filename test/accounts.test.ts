// Accounts over HTTP: registration, verification, sign-in, tokens, logout, password reset, disabling.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setAccountDisabled } from '../src/modules/accounts/service.ts';
import { call, createTestContext, latestCode, newPatient, newStaff, PASSWORD, uniqueEmail, type TestContext, firstRow } from './support/harness.ts';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(async () => ctx?.close());

const register = (email: string, password = PASSWORD, extra: Record<string, unknown> = {}, ip?: string) =>
  call(ctx, 'POST', '/v1/users/register/', { brand: true, json: { email, password, ...extra }, ip });
const verify = (email: string, otp: string) => call(ctx, 'POST', '/v1/users/verify-email/', { brand: true, json: { email, otp } });
const signIn = (email: string, password = PASSWORD, brand: boolean | string = true, ip?: string) =>
  call(ctx, 'POST', '/v1/users/token/', { brand, json: { email, password }, ip });
const mailsTo = (to: string) => ctx.mails.filter((m) => m.to === to);
const minutes = (n: number) => n * 60_000;

describe('register', () => {
  it('answers 200 {message}, creates an unverified account and emails a 6-digit code in the account locale', async () => {
    const email = uniqueEmail('reg');
    const r = await register(email, PASSWORD, { locale: 'de' });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ message: expect.any(String) });
    const code = await latestCode(ctx, email);
    expect(code).toMatch(/^\d{6}$/);
    expect(mailsTo(email).at(-1)!.subject).toBe('Ihr Bestätigungscode');
    const row = firstRow(await ctx.db.query('select email_verified_at, password_hash from users where email = $1', [email]));
    expect(row.email_verified_at).toBeNull();
    expect(row.password_hash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    const v = firstRow(await ctx.db.query('select code_hash from email_verifications v join users u on u.id = v.user_id where u.email = $1', [email]));
    expect(v.code_hash).not.toContain(code);
  });

  it('refuses weak passwords with a field-keyed 400', async () => {
    const email = uniqueEmail('weak');
    for (const password of ['short', 'password123', 'x'.repeat(129), `${email.split('@')[0]}-Secure-9`]) {
      const r = await register(email, password);
      expect(r.status, password).toBe(400);
      expect(r.body.password[0]).toEqual(expect.any(String));
    }
    const ok = await register(email, 'Correct-Horse-Battery-7');
    expect(ok.status).toBe(200);
  });

  it('refuses easily guessed passwords, and ones built from the person’s names, in the request’s locale', async () => {
    for (const password of ['aaaaaaaa', 'qwerty123456', 'Password123!', 'Summer2024!']) {
      const r = await register(uniqueEmail('guess'), password);
      expect(r.status, password).toBe(400);
      expect(r.body.password[0], password).toMatch(/too easy to guess/);
    }
    // The same password is guessable for Grace Hopper (her name is the first guess) but not for Ada.
    const named = await register(uniqueEmail('named'), 'Hopper1906!', { first_name: 'Grace', last_name: 'Hopper', locale: 'de' });
    expect(named.status).toBe(400);
    expect(named.body.password[0]).toMatch(/zu leicht zu erraten/);
    expect((await register(uniqueEmail('other'), 'Hopper1906!', { first_name: 'Ada', last_name: 'Lovelace' })).status).toBe(200);
  });

  it('validates the email with a field-keyed 400', async () => {
    const r = await register('not-an-email');
    expect(r.status).toBe(400);
    expect(r.body.email).toEqual([expect.any(String)]);
  });

  it('refuses the address of an active, staff or Google account with one identical 400 and mails nothing', async () => {
    const active = await newPatient(ctx, 'active');
    const staff = await newStaff(ctx, 'doctor');
    const googleEmail = uniqueEmail('goog');
    await ctx.db.query("insert into users (email, google_sub, email_verified_at, referral_code) values ($1, 'sub-x-1', now(), 'GOOGLE01')", [googleEmail]);
    const bodies = [];
    for (const email of [active.email, staff.email, googleEmail]) {
      await ctx.flushMail();
      const before = mailsTo(email).length;
      const r = await register(email, 'Another-Strong-Pass-77');
      expect(r.status).toBe(400);
      bodies.push(r.body);
      await ctx.flushMail();
      expect(mailsTo(email).length).toBe(before);
    }
    expect(bodies[1]).toEqual(bodies[0]);
    expect(bodies[2]).toEqual(bodies[0]);
    expect(bodies[0].code).toBe('registration_not_allowed');
    expect((await signIn(active.email)).status).toBe(200);
  });

  it('re-issues a code for a pending signup only after the cooldown; inside it 429 and the first code stays valid', async () => {
    const email = uniqueEmail('cool');
    expect((await register(email)).status).toBe(200);
    const first = await latestCode(ctx, email);
    const again = await register(email);
    expect(again.status).toBe(429);
    expect(again.body.error_name).toBe('REGISTRATION_RATE_LIMITED');
    expect(Number(again.headers['retry-after'])).toBeGreaterThan(0);
    const { n } = firstRow(await ctx.db.query('select count(*)::int as n from users where lower(email) = $1', [email]));
    expect(n).toBe(1);
    await ctx.deps.clock.advance(61_000);
    expect((await register(email)).status).toBe(200);
    const second = await latestCode(ctx, email);
    if (second !== first) expect((await verify(email, first)).status).toBe(400);
    const ok = await verify(email, second);
    expect(ok.status).toBe(200);
    expect((await signIn(email)).status).toBe(200);
  });

  it('refuses a suppressed address with 406 REGISTRATION_EMAIL_UNDELIVERABLE', async () => {
    const email = uniqueEmail('bounced');
    await ctx.db.query("insert into email_suppressions (email, reason) values ($1, 'hard_bounce')", [email]);
    const r = await register(email);
    expect(r.status).toBe(406);
    expect(r.body.error_name).toBe('REGISTRATION_EMAIL_UNDELIVERABLE');
  });

  it('requires X-Brand-Slug', async () => {
    const r = await call(ctx, 'POST', '/v1/users/register/', { json: { email: uniqueEmail('nobrand'), password: PASSWORD } });
    expect(r.status).toBe(400);
    expect(r.body.code).toBe('invalid_brand');
  });

  it('attributes a registration to a referrer by referral_code', async () => {
    const referrer = await newPatient(ctx, 'referrer');
    const { referral_code } = firstRow(await ctx.db.query('select referral_code from users where id = $1', [referrer.id]));
    const p = await newPatient(ctx, 'referred', { referral_code: referral_code.toLowerCase() });
    const row = firstRow(await ctx.db.query('select referred_by from users where id = $1', [p.id]));
    expect(row.referred_by).toBe(referrer.id);
  });
});

describe('verify-email', () => {
  it('answers VERIFY_EMAIL_INVALID_REQUEST for a missing field', async () => {
    for (const json of [{ email: uniqueEmail('v') }, { otp: '123456' }, {}]) {
      const r = await call(ctx, 'POST', '/v1/users/verify-email/', { brand: true, json });
      expect(r.status).toBe(400);
      expect(r.body.error_name).toBe('VERIFY_EMAIL_INVALID_REQUEST');
    }
  });

  it('answers the same 400 for a wrong code and for an unknown address', async () => {
    const email = uniqueEmail('wrong');
    await register(email);
    const code = await latestCode(ctx, email);
    const wrong = await verify(email, code === '000000' ? '111111' : '000000');
    const unknown = await verify(uniqueEmail('ghost'), '123456');
    expect(wrong.status).toBe(400);
    expect(unknown.body).toEqual(wrong.body);
  });

  it('locks after 5 wrong codes; every attempt during the lockout extends it, even with the right code', async () => {
    const email = uniqueEmail('lock');
    await register(email);
    const code = await latestCode(ctx, email);
    const wrong = code === '000000' ? '111111' : '000000';
    const statuses = [];
    for (let i = 0; i < 5; i++) statuses.push((await verify(email, wrong)).status);
    expect(statuses).toEqual([400, 400, 400, 400, 429]);
    const right = await verify(email, code);
    expect(right.status).toBe(429);
    expect(right.body.message).toMatch(/too many incorrect codes/i);
    const lockedUntil = async () => (await ctx.db.query('select locked_until from email_verifications v join users u on u.id = v.user_id where u.email = $1', [email]))[0]?.locked_until;
    const before = await lockedUntil();
    await ctx.deps.clock.advance(minutes(10));
    expect((await verify(email, code)).status).toBe(429);
    expect((await lockedUntil()).getTime()).toBeGreaterThan(before.getTime() + minutes(9));
    // 15 quiet minutes later the lockout is over; the code has expired meanwhile, so a new one is needed.
    await ctx.deps.clock.advance(minutes(16));
    expect((await verify(email, code)).status).toBe(400);
    expect((await register(email)).status).toBe(200);
    expect((await verify(email, await latestCode(ctx, email))).status).toBe(200);
  });

  it('expires the code after 10 minutes and accepts a code once', async () => {
    const email = uniqueEmail('expire');
    await register(email);
    const code = await latestCode(ctx, email);
    await ctx.deps.clock.advance(minutes(11));
    expect((await verify(email, code)).status).toBe(400);
    await register(email);
    const fresh = await latestCode(ctx, email);
    const ok = await verify(email, fresh);
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ access: expect.any(String), refresh: expect.any(String), is_doctor: false });
    expect((await verify(email, fresh)).status).toBe(400);
  });
});

describe('token', () => {
  it('answers the token pair with all three role flags', async () => {
    const p = await newPatient(ctx, 'pair');
    const r = await signIn(p.email);
    expect(r.body).toEqual({ access: expect.any(String), refresh: expect.any(String), is_doctor: false, is_backoffice_admin: false, is_marketer: false, is_pharmacist: false });
    const doc = await newStaff(ctx, 'doctor');
    expect((await signIn(doc.email)).body.is_doctor).toBe(true);
  });

  it('answers one non-specific 401 for wrong password, unknown email, unverified account and a missing or wrong brand', async () => {
    const p = await newPatient(ctx, 'nonspecific');
    const pending = uniqueEmail('pending');
    await register(pending);
    const responses = [
      await signIn(p.email, 'Wrong-Password-000'),
      await signIn(uniqueEmail('nobody')),
      await signIn(pending),
      await signIn(p.email, PASSWORD, false),
      await signIn(p.email, PASSWORD, 'other-brand'),
    ];
    for (const r of responses) {
      expect(r.status).toBe(401);
      expect(r.body).toEqual(responses[0]?.body);
    }
    expect(responses[0]?.body.code).toBe('invalid_credentials');
  });

  it('answers 403 user_inactive for a disabled account and 400 google_account for a Google account', async () => {
    const p = await newPatient(ctx, 'disabled');
    await setAccountDisabled(ctx.deps, ctx.db, p.id, true);
    const r = await signIn(p.email);
    expect(r.status).toBe(403);
    expect(r.body.code).toBe('user_inactive');
    const g = uniqueEmail('googleonly');
    await ctx.db.query("insert into users (email, google_sub, email_verified_at, referral_code) values ($1, 'sub-g-2', now(), 'GOOGLE02')", [g]);
    const gr = await signIn(g);
    expect(gr.status).toBe(400);
    expect(gr.body.code).toBe('google_account');
  });

  it('rate-limits repeated failures per account with 429 and Retry-After, even for the right password', async () => {
    const p = await newPatient(ctx, 'brute');
    for (let i = 0; i < 10; i++) expect((await signIn(p.email, `wrong-${i}-password`)).status).toBe(401);
    const limited = await signIn(p.email);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
  });
});

describe('refresh, logout and sessions', () => {
  const refresh = (token: string) => call(ctx, 'POST', '/v1/users/token/refresh/', { brand: true, json: { refresh: token } });

  it('rotates: answers {access, refresh} and the new access token works', async () => {
    const p = await newPatient(ctx, 'rotate');
    const r = await refresh(p.refresh);
    expect(r.status).toBe(200);
    expect(Object.keys(r.body).sort()).toEqual(['access', 'refresh']);
    expect((await call(ctx, 'GET', '/v1/users/profile/', { token: r.body.access })).status).toBe(200);
    expect((await refresh(r.body.refresh)).status).toBe(200);
  });

  it('reuse of a rotated refresh token revokes the whole family', async () => {
    const p = await newPatient(ctx, 'reuse');
    const next = (await refresh(p.refresh)).body;
    const replay = await refresh(p.refresh);
    expect(replay.status).toBe(401);
    expect(replay.body.code).toBe('token_not_valid');
    expect((await refresh(next.refresh)).status).toBe(401);
    expect((await call(ctx, 'GET', '/v1/users/profile/', { token: next.access })).status).toBe(401);
  });

  it('parallel refreshes of one token yield exactly one success', async () => {
    const p = await newPatient(ctx, 'race');
    const results = await Promise.all(Array.from({ length: 10 }, () => refresh(p.refresh)));
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(results.filter((r) => r.status === 401)).toHaveLength(9);
  });

  it('refuses an access token as a refresh token, and requires the brand', async () => {
    const p = await newPatient(ctx, 'wrongtype');
    const r = await refresh(p.access);
    expect(r.status).toBe(401);
    expect(r.body.messages[0]).toMatchObject({ token_type: 'refresh', message: 'Token has wrong type' });
    const noBrand = await call(ctx, 'POST', '/v1/users/token/refresh/', { json: { refresh: p.refresh } });
    expect(noBrand.status).toBe(400);
  });

  it('logout ends the session: access and refresh tokens stop working', async () => {
    const p = await newPatient(ctx, 'logout');
    const r = await call(ctx, 'POST', '/v1/users/logout/', { token: p.access, json: { refresh: p.refresh } });
    expect(r.status).toBe(200);
    expect((await call(ctx, 'GET', '/v1/users/profile/', { token: p.access })).status).toBe(401);
    expect((await refresh(p.refresh)).status).toBe(401);
  });

  it('logout with no body (with or without a JSON content type) ends the session of the access token', async () => {
    for (const headers of [{}, { 'content-type': 'application/json' }] as Record<string, string>[]) {
      const p = await newPatient(ctx, 'logout-nobody');
      const r = await call(ctx, 'POST', '/v1/users/logout/', { token: p.access, headers });
      expect(r.status, JSON.stringify(headers)).toBe(200);
      expect(r.body).toEqual({ message: 'Signed out.' });
      expect((await call(ctx, 'GET', '/v1/users/profile/', { token: p.access })).status).toBe(401);
      expect((await refresh(p.refresh)).status).toBe(401);
    }
  });

  it('disabling an account mid-session refuses its tokens at once; enabling needs a new sign-in', async () => {
    const p = await newPatient(ctx, 'midsession');
    expect((await call(ctx, 'GET', '/v1/users/profile/', { token: p.access })).status).toBe(200);
    await ctx.db.tx((q) => setAccountDisabled(ctx.deps, q, p.id, true));
    const r = await call(ctx, 'GET', '/v1/users/profile/', { token: p.access });
    expect(r.status).toBe(401);
    expect(r.body.code).toBe('token_not_valid');
    expect((await refresh(p.refresh)).status).toBe(401);
    await ctx.db.tx((q) => setAccountDisabled(ctx.deps, q, p.id, false));
    expect((await call(ctx, 'GET', '/v1/users/profile/', { token: p.access })).status).toBe(401);
    expect((await signIn(p.email)).status).toBe(200);
  });

  it('refuses an expired access token', async () => {
    const p = await newPatient(ctx, 'expired');
    await ctx.deps.clock.advance(minutes(16));
    const r = await call(ctx, 'GET', '/v1/users/profile/', { token: p.access });
    expect(r.status).toBe(401);
    expect(r.body.messages[0].message).toMatch(/expired/);
  });
});

describe('forgot and reset password', () => {
  const forgot = (email: string) => call(ctx, 'POST', '/v1/users/forgot-password/', { brand: true, json: { email } });
  const linkToken = (text: string) => /token=([A-Za-z0-9_-]+)/.exec(text)![1];

  it('answers the same for known and unknown addresses and mails only the known one', async () => {
    const p = await newPatient(ctx, 'forgot');
    const ghost = uniqueEmail('ghost');
    const a = await forgot(p.email);
    const b = await forgot(ghost);
    expect(a.status).toBe(200);
    expect(b.body).toEqual(a.body);
    await ctx.flushMail();
    expect(mailsTo(ghost)).toHaveLength(0);
    expect(mailsTo(p.email).at(-1)!.text).toContain('http://api.test.local/reset-password?token=');
  });

  it('resets once: new password works, old does not, sessions end, a notice is mailed; cooldown between links', async () => {
    const p = await newPatient(ctx, 'reset');
    await forgot(p.email);
    await ctx.flushMail();
    const token = linkToken(mailsTo(p.email).at(-1)!.text);
    const count = mailsTo(p.email).length;
    await forgot(p.email); // inside the cooldown: no second link
    await ctx.flushMail();
    expect(mailsTo(p.email).length).toBe(count);
    const weak = await call(ctx, 'POST', '/v1/users/reset-password/', { brand: true, json: { token, password: 'password123' } });
    expect(weak.status).toBe(400);
    expect(weak.body.password).toBeDefined();
    const ok = await call(ctx, 'POST', '/v1/users/reset-password/', { brand: true, json: { token, password: 'Brand-New-Lantern-88' } });
    expect(ok.status).toBe(200);
    expect((await signIn(p.email)).status).toBe(401);
    expect((await signIn(p.email, 'Brand-New-Lantern-88')).status).toBe(200);
    expect((await call(ctx, 'GET', '/v1/users/profile/', { token: p.access })).status).toBe(401);
    await ctx.flushMail();
    expect(mailsTo(p.email).at(-1)!.subject).toBe('Your password was changed');
    const again = await call(ctx, 'POST', '/v1/users/reset-password/', { brand: true, json: { token, password: 'Another-New-Lantern-99' } });
    expect(again.status).toBe(400);
    expect(again.body.code).toBe('invalid_reset_token');
  });

  it('expires reset links after an hour and gives a Google account a password', async () => {
    const email = uniqueEmail('googlereset');
    await ctx.db.query("insert into users (email, google_sub, email_verified_at, referral_code) values ($1, 'sub-g-3', now(), 'GOOGLE03')", [email]);
    await forgot(email);
    await ctx.flushMail();
    const stale = linkToken(mailsTo(email).at(-1)!.text);
    await ctx.deps.clock.advance(minutes(61));
    expect((await call(ctx, 'POST', '/v1/users/reset-password/', { brand: true, json: { token: stale, password: 'Google-Gets-Password-5' } })).status).toBe(400);
    await forgot(email);
    await ctx.flushMail();
    const fresh = linkToken(mailsTo(email).at(-1)!.text);
    expect((await call(ctx, 'POST', '/v1/users/reset-password/', { brand: true, json: { token: fresh, password: 'Google-Gets-Password-5' } })).status).toBe(200);
    expect((await signIn(email, 'Google-Gets-Password-5')).status).toBe(200);
  });
});
