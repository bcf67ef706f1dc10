// POST /v1/users/change-password/: the signed-in owner changes the password (docs/accounts.md).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { passwordProblems } from '../src/modules/accounts/passwords.ts';
import { issueTokenPair } from '../src/modules/accounts/tokens.ts';
import { call, createTestContext, newPatient, PASSWORD, uniqueEmail, type Patient, type TestContext } from './support/harness.ts';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext({ SIGNIN_FAILURES_PER_ACCOUNT: '4' });
});
afterAll(async () => ctx?.close());

const NEW_PASSWORD = 'Brand-New-Lantern-88';
const change = (token: string, current_password: string, new_password: string) =>
  call(ctx, 'POST', '/v1/users/change-password/', { token, json: { current_password, new_password } });
const signIn = (email: string, password: string) => call(ctx, 'POST', '/v1/users/token/', { brand: true, json: { email, password } });
const profile = (token: string) => call(ctx, 'GET', '/v1/users/profile/', { token });
const refresh = (token: string) => call(ctx, 'POST', '/v1/users/token/refresh/', { brand: true, json: { refresh: token } });
const mailsTo = (to: string) => ctx.mails.filter((m) => m.to === to);
const passwordHash = async (id: string) => (await ctx.db.query<{ password_hash: string | null }>('select password_hash from users where id = $1', [id]))[0]!.password_hash;

describe('change password', () => {
  it('changes the password, keeps this session, ends every other one and mails a notice in the account locale', async () => {
    const p = await newPatient(ctx, 'chpw', { locale: 'de' });
    const other = await signIn(p.email, PASSWORD);
    expect(other.status).toBe(200);

    const r = await change(p.access, PASSWORD, NEW_PASSWORD);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ message: expect.any(String) });

    expect((await signIn(p.email, PASSWORD)).status).toBe(401);
    expect((await signIn(p.email, NEW_PASSWORD)).status).toBe(200);
    // This session: its access token and its refresh token keep working.
    expect((await profile(p.access)).status).toBe(200);
    expect((await refresh(p.refresh)).status).toBe(200);
    // The other session ended at once.
    expect((await profile(other.body.access)).status).toBe(401);
    expect((await refresh(other.body.refresh)).status).toBe(401);

    await ctx.flushMail();
    const notice = mailsTo(p.email).at(-1)!;
    expect(notice.subject).toBe('Ihr Passwort wurde geändert');
    expect(notice.text).not.toContain(NEW_PASSWORD);
  });

  it('refuses a wrong current password with a field-keyed 400 and changes nothing', async () => {
    const p = await newPatient(ctx, 'chpwwrong');
    const before = await passwordHash(p.id);
    const r = await change(p.access, 'Not-The-Password-7', NEW_PASSWORD);
    expect(r.status).toBe(400);
    expect(Object.keys(r.body)).toEqual(['current_password']);
    expect(r.body.current_password).toEqual([expect.any(String)]);
    expect(await passwordHash(p.id)).toBe(before);
    expect((await signIn(p.email, PASSWORD)).status).toBe(200);
  });

  it('applies the registration rules to the new password, with the account as context and in its locale', async () => {
    const p = await newPatient(ctx, 'chpwweak', { locale: 'fr' });
    const local = p.email.split('@')[0]!;
    // 'Ada.Lovelace' passes without the account's names as context and fails with them.
    for (const weak of ['short', 'password123', 'x'.repeat(129), `${local}-Secure-9`, 'Ada.Lovelace']) {
      const r = await change(p.access, PASSWORD, weak);
      expect(r.status, weak).toBe(400);
      expect(Object.keys(r.body), weak).toEqual(['new_password']);
      const expected = passwordProblems(weak, { email: p.email, names: ['Ada', 'Lovelace'], locale: 'fr' });
      expect(expected.length, weak).toBeGreaterThan(0);
      expect(r.body.new_password, weak).toEqual(expected);
    }
    expect((await signIn(p.email, PASSWORD)).status).toBe(200);
  });

  it('answers 400 google_account for a Google account without a password', async () => {
    const email = uniqueEmail('chpwgoogle');
    const [row] = await ctx.db.query<{ id: string }>(
      "insert into users (email, google_sub, email_verified_at, referral_code) values ($1, $2, now(), $3) returning id",
      [email, `sub-${email}`, `G${Date.now().toString(36).toUpperCase().slice(-7)}`],
    );
    const { access } = await issueTokenPair(ctx.deps, ctx.db, row!.id);
    const r = await change(access, 'Anything-At-All-1', NEW_PASSWORD);
    expect(r.status).toBe(400);
    expect(r.body.code).toBe('google_account');
    expect(await passwordHash(row!.id)).toBeNull();
  });

  it('needs a signed-in caller and a well-formed body', async () => {
    const anonymous = await call(ctx, 'POST', '/v1/users/change-password/', { json: { current_password: PASSWORD, new_password: NEW_PASSWORD } });
    expect(anonymous.status).toBe(401);
    const p = await newPatient(ctx, 'chpwbody');
    const missing = await call(ctx, 'POST', '/v1/users/change-password/', { token: p.access, json: { new_password: NEW_PASSWORD } });
    expect(missing.status).toBe(400);
    expect(missing.body.current_password).toBeDefined();
  });

  it('counts wrong current passwords against the account’s sign-in failure budget', async () => {
    const p = await newPatient(ctx, 'chpwlimit');
    for (let i = 0; i < 4; i++) expect((await change(p.access, `Wrong-Guess-${i}-Lantern`, NEW_PASSWORD)).status).toBe(400);
    const blocked = await change(p.access, PASSWORD, NEW_PASSWORD);
    expect(blocked.status).toBe(429);
    expect(blocked.body.code).toBe('throttled');
    expect(blocked.headers['retry-after']).toMatch(/^\d+$/);
    // The same budget as sign-in: password sign-in to this account is throttled too.
    expect((await signIn(p.email, PASSWORD)).status).toBe(429);
    expect((await signIn(p.email, NEW_PASSWORD)).status).toBe(429);
  });

  it('changes only the caller’s account: another account’s password and sessions are untouched', async () => {
    const a = await newPatient(ctx, 'chpwa');
    const b: Patient = await newPatient(ctx, 'chpwb');
    const bHash = await passwordHash(b.id);
    expect((await change(a.access, PASSWORD, NEW_PASSWORD)).status).toBe(200);
    expect(await passwordHash(b.id)).toBe(bHash);
    expect((await profile(b.access)).status).toBe(200);
    expect((await refresh(b.refresh)).status).toBe(200);
    expect((await signIn(b.email, PASSWORD)).status).toBe(200);
    // A's token cannot be used to change B's password by giving B's current password either.
    const c = await newPatient(ctx, 'chpwc');
    const r = await change(c.access, NEW_PASSWORD, 'Some-Other-Lantern-77');
    expect(r.status).toBe(400);
    expect(r.body.current_password).toBeDefined();
    expect((await signIn(a.email, NEW_PASSWORD)).status).toBe(200);
  });

  it('lets exactly one of two concurrent changes with the same current password win, whatever the order', async () => {
    const p = await newPatient(ctx, 'chpwrace');
    const results = await Promise.all([change(p.access, PASSWORD, 'First-Racer-Lantern-11'), change(p.access, PASSWORD, 'Second-Racer-Lantern-22')]);
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([200, 400]);
    const winner = results[0]!.status === 200 ? 'First-Racer-Lantern-11' : 'Second-Racer-Lantern-22';
    const loser = winner === 'First-Racer-Lantern-11' ? 'Second-Racer-Lantern-22' : 'First-Racer-Lantern-11';
    expect(results.find((r) => r.status === 400)!.body.current_password).toBeDefined();
    expect((await signIn(p.email, winner)).status).toBe(200);
    expect((await signIn(p.email, loser)).status).toBe(401);
  });

  it('spends a reset link mailed before the change', async () => {
    const p = await newPatient(ctx, 'chpwreset');
    expect((await call(ctx, 'POST', '/v1/users/forgot-password/', { brand: true, json: { email: p.email } })).status).toBe(200);
    await ctx.flushMail();
    const token = /token=([A-Za-z0-9_-]+)/.exec(mailsTo(p.email).at(-1)!.text)![1];
    expect((await change(p.access, PASSWORD, NEW_PASSWORD)).status).toBe(200);
    const reset = await call(ctx, 'POST', '/v1/users/reset-password/', { brand: true, json: { token, password: 'Attacker-Chosen-Lantern-3' } });
    expect(reset.status).toBe(400);
    expect(reset.body.code).toBe('invalid_reset_token');
    expect((await signIn(p.email, NEW_PASSWORD)).status).toBe(200);
  });
});
