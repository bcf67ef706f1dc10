// The second factor over HTTP (docs/accounts.md "Second factor"): the 403 of sign-in, the
// second step with TOTP and recovery codes (replay, expiry, single use, another account's ticket),
// the failure budgets, the staff lockout rule, enrolment where it is required, a patient's optional
// factor, and STAFF_MFA's validation.
import { Secret, TOTP } from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.ts';
import { createStaff } from '../src/modules/accounts/service.ts';
import { call, createTestContext, firstRow, newPatient, PASSWORD, uniqueEmail, type TestContext } from './support/harness.ts';

const PER_ACCOUNT = 6;
const PER_IP = 8;

let ctx: TestContext;
let required: TestContext;
beforeAll(async () => {
  [ctx, required] = await Promise.all([
    createTestContext({ SIGNIN_FAILURES_PER_ACCOUNT: String(PER_ACCOUNT), SIGNIN_FAILURES_PER_IP: String(PER_IP) }),
    createTestContext({ STAFF_MFA: 'required' }),
  ]);
});
afterAll(async () => Promise.all([ctx?.close(), required?.close()]));

/** The code an authenticator app shows for `secret`, `steps` 30-second steps from now. */
const codeOf = (secret: string, steps = 0) =>
  new TOTP({ secret: Secret.fromBase32(secret), algorithm: 'SHA1', digits: 6, period: 30 }).generate({ timestamp: Date.now() + steps * 30_000 });

/** A 6-digit code that is none of the codes the window around now accepts. */
function wrongCode(secret: string): string {
  const near = [-1, 0, 1, 2].map((steps) => codeOf(secret, steps));
  for (let n = 0; ; n++) {
    const code = String(n).padStart(6, '0');
    if (!near.includes(code)) return code;
  }
}

let ipSeq = 0;
/** A fresh client address, so that the address budget of one test does not reach another. */
const freshIp = () => `198.51.100.${++ipSeq}`;

interface Staff {
  email: string;
  secret: string;
}
async function staffWithTotp(c: TestContext = ctx, role: 'doctor' | 'backoffice_admin' = 'doctor'): Promise<Staff> {
  const email = uniqueEmail('mfa');
  const secret = new Secret({ size: 20 }).base32;
  await createStaff(c.deps, { email, password: PASSWORD, role, firstName: 'Zofia', lastName: 'Wójcik', licenseNumber: role === 'doctor' ? 'LANR-1' : undefined, totpSecret: secret });
  return { email, secret };
}

const signIn = (email: string, opts: { c?: TestContext; ip?: string; password?: string } = {}) =>
  call(opts.c ?? ctx, 'POST', '/v1/users/token/', { brand: true, ip: opts.ip ?? freshIp(), json: { email, password: opts.password ?? PASSWORD } });
const secondStep = (mfa_token: string, code: string, opts: { c?: TestContext; ip?: string } = {}) =>
  call(opts.c ?? ctx, 'POST', '/v1/users/token/mfa/', { brand: true, ip: opts.ip ?? freshIp(), json: { mfa_token, code } });

async function mfaToken(email: string, c: TestContext = ctx): Promise<string> {
  const r = await signIn(email, { c });
  expect(r.status, r.text).toBe(403);
  return r.body.mfa_token as string;
}

describe('sign-in of an account with TOTP', () => {
  it('answers 403 mfa_required with a ticket and the methods, and no tokens; the code finishes the sign-in', async () => {
    const s = await staffWithTotp();
    const r = await signIn(s.email);
    expect(r.status).toBe(403);
    expect(r.body).toEqual({ error: expect.any(String), code: 'mfa_required', mfa_token: expect.any(String), methods: ['totp'] });
    expect(r.text).not.toMatch(/"access"|"refresh"/);
    // The ticket is stored hashed, for 5 minutes.
    const ticket = firstRow(await ctx.db.query("select token_hash, purpose, expires_at - now() < interval '301 seconds' as short from mfa_tickets where token_hash <> $1 order by created_at desc limit 1", [r.body.mfa_token]));
    expect(ticket).toMatchObject({ purpose: 'sign_in', short: true });
    expect(ticket.token_hash).not.toContain(r.body.mfa_token);

    const done = await secondStep(r.body.mfa_token, codeOf(s.secret));
    expect(done.status, done.text).toBe(200);
    expect(done.body).toEqual({ access: expect.any(String), refresh: expect.any(String), is_doctor: true, is_backoffice_admin: false, is_marketer: false, is_pharmacist: false });
    const me = await call(ctx, 'GET', '/v1/users/mfa/', { token: done.body.access });
    expect(me.body).toEqual({ methods: ['totp'], required: false, recovery_codes_left: 0 });
    // The secret is not stored in clear.
    const row = firstRow(await ctx.db.query('select t.secret_enc from mfa_totp t join users u on u.id = t.user_id where u.email = $1', [s.email]));
    expect(row.secret_enc).not.toContain(s.secret);
  });

  it('answers a wrong password exactly as before (401 invalid_credentials, no ticket)', async () => {
    const s = await staffWithTotp();
    const r = await signIn(s.email, { password: 'Wrong-Password-1' });
    expect(r.status).toBe(401);
    expect(r.body).toEqual({ error: expect.any(String), code: 'invalid_credentials' });
  });

  it('refuses a wrong code with 401 invalid_mfa_code, and the ticket still takes the right one', async () => {
    const s = await staffWithTotp();
    const token = await mfaToken(s.email);
    for (const code of [wrongCode(s.secret), '12345', 'abcdef', '']) {
      const r = await secondStep(token, code);
      expect(r.status, code).toBe(401);
      expect(r.body, code).toEqual({ error: expect.any(String), code: 'invalid_mfa_code' });
    }
    expect((await secondStep(token, codeOf(s.secret))).status).toBe(200);
  });

  it('refuses a code already used, even within its 30 seconds; the next step’s code works', async () => {
    const s = await staffWithTotp();
    const code = codeOf(s.secret);
    expect((await secondStep(await mfaToken(s.email), code)).status).toBe(200);
    const replay = await secondStep(await mfaToken(s.email), code);
    expect(replay.status).toBe(401);
    expect(replay.body.code).toBe('invalid_mfa_code');
    // A code of an earlier step than the one accepted is refused too.
    expect((await secondStep(await mfaToken(s.email), codeOf(s.secret, -1))).status).toBe(401);
    expect((await secondStep(await mfaToken(s.email), codeOf(s.secret, 1))).status).toBe(200);
  });

  it('accepts one of two concurrent requests with the same code', async () => {
    const s = await staffWithTotp();
    const [a, b] = [await mfaToken(s.email), await mfaToken(s.email)];
    const code = codeOf(s.secret);
    const statuses = (await Promise.all([secondStep(a, code), secondStep(b, code)])).map((r) => r.status).sort();
    expect(statuses).toEqual([200, 401]);
  });

  it('refuses codes far from now (outside the one-step window)', async () => {
    const s = await staffWithTotp();
    const token = await mfaToken(s.email);
    expect((await secondStep(token, codeOf(s.secret, -4))).status).toBe(401);
    expect((await secondStep(token, codeOf(s.secret, 4))).status).toBe(401);
  });

  it('makes the mfa_token single-use: after a success it is refused with 401 invalid_mfa_token', async () => {
    const s = await staffWithTotp();
    const token = await mfaToken(s.email);
    expect((await secondStep(token, codeOf(s.secret))).status).toBe(200);
    const again = await secondStep(token, codeOf(s.secret, 1));
    expect(again.status).toBe(401);
    expect(again.body).toEqual({ error: expect.any(String), code: 'invalid_mfa_token' });
    expect((await secondStep('not-a-ticket', codeOf(s.secret, 1))).body.code).toBe('invalid_mfa_token');
  });

  it('lets the mfa_token expire after 5 minutes', async () => {
    const s = await staffWithTotp();
    const early = await mfaToken(s.email);
    const late = await mfaToken(s.email);
    await ctx.deps.clock.advance(4 * 60_000 + 50_000);
    expect((await secondStep(early, codeOf(s.secret))).status).toBe(200);
    await ctx.deps.clock.advance(20_000);
    const expired = await secondStep(late, codeOf(s.secret, 1));
    expect(expired.status).toBe(401);
    expect(expired.body.code).toBe('invalid_mfa_token');
  });

  it('binds the mfa_token to its account: another account’s code is wrong, and so is its token', async () => {
    const a = await staffWithTotp();
    const b = await staffWithTotp();
    const tokenA = await mfaToken(a.email);
    const crossed = await secondStep(tokenA, codeOf(b.secret));
    expect(crossed.status).toBe(401);
    expect(crossed.body.code).toBe('invalid_mfa_code');
    const ok = await secondStep(tokenA, codeOf(a.secret));
    expect(ok.status).toBe(200);
    // The session is A's.
    const me = await call(ctx, 'GET', '/v1/users/profile/me/', { token: ok.body.access });
    expect(me.body.email).toBe(a.email);
  });

  it('uses a ticket up after 5 wrong codes', async () => {
    const s = await staffWithTotp();
    const token = await mfaToken(s.email);
    for (let i = 0; i < 5; i++) expect((await secondStep(token, wrongCode(s.secret))).body.code).toBe('invalid_mfa_code');
    const r = await secondStep(token, codeOf(s.secret));
    expect(r.status).toBe(401);
    expect(r.body.code).toBe('invalid_mfa_token');
  });

  it('refuses the enrolment token kind of ticket as an mfa_token and the mfa_token as a bearer token', async () => {
    const s = await staffWithTotp();
    const token = await mfaToken(s.email);
    const asBearer = await call(ctx, 'GET', '/v1/users/mfa/', { token });
    expect(asBearer.status).toBe(401);
    const asEnrolment = await call(ctx, 'POST', '/v1/users/token/mfa/enrol/', { brand: true, json: { enrolment_token: token } });
    expect(asEnrolment.body.code).toBe('invalid_mfa_token');
  });

  it('requires X-Brand-Slug on the second step', async () => {
    const s = await staffWithTotp();
    const r = await call(ctx, 'POST', '/v1/users/token/mfa/', { json: { mfa_token: await mfaToken(s.email), code: codeOf(s.secret) } });
    expect(r.status).toBe(400);
    expect(r.body.code).toBe('invalid_brand');
  });
});

describe('failure budgets of the second step', () => {
  it('limits wrong codes per account, from any address (429 throttled + Retry-After), leaving other accounts alone', async () => {
    const s = await staffWithTotp();
    const other = await staffWithTotp();
    let token = await mfaToken(s.email);
    for (let i = 0; i < PER_ACCOUNT; i++) {
      if (i === 5) token = await mfaToken(s.email); // a ticket takes 5 wrong codes
      expect((await secondStep(token, wrongCode(s.secret))).status).toBe(401);
    }
    const blocked = await secondStep(await mfaToken(s.email), codeOf(s.secret));
    expect(blocked.status).toBe(429);
    expect(blocked.body.code).toBe('throttled');
    expect(blocked.headers['retry-after']).toBeDefined();
    expect((await secondStep(await mfaToken(other.email), codeOf(other.secret))).status).toBe(200);
  });

  it('limits wrong codes per address with the sign-in budget of that address', async () => {
    const ip = freshIp();
    const staff = await Promise.all([staffWithTotp(), staffWithTotp()]);
    for (let i = 0; i < PER_IP; i++) {
      const s = staff[i % 2]!;
      expect((await secondStep(await mfaToken(s.email), wrongCode(s.secret), { ip })).status).toBe(401);
    }
    const s = staff[0]!;
    const blocked = await secondStep(await mfaToken(s.email), codeOf(s.secret), { ip });
    expect(blocked.status).toBe(429);
    // Sign-in from that address is over the same budget.
    expect((await signIn(s.email, { ip })).status).toBe(429);
    expect((await secondStep(await mfaToken(s.email), codeOf(s.secret))).status).toBe(200);
  });
});

describe('staff lockout', () => {
  async function failPasswords(email: string, n: number) {
    for (let i = 0; i < n; i++) expect((await signIn(email, { password: 'Wrong-Password-1' })).status).toBe(401);
  }

  it('does not let anonymous password failures lock a staff account that has a second factor', async () => {
    const s = await staffWithTotp();
    await failPasswords(s.email, PER_ACCOUNT + 2);
    const r = await signIn(s.email);
    expect(r.status).toBe(403);
    expect(r.body.code).toBe('mfa_required');
  });

  it('still locks patients and staff without a factor after the per-account budget', async () => {
    const patient = await newPatient(ctx, 'lock');
    const staffEmail = uniqueEmail('nofactor');
    await createStaff(ctx.deps, { email: staffEmail, password: PASSWORD, role: 'backoffice_admin', firstName: 'Olga', lastName: 'Ops' });
    for (const email of [patient.email, staffEmail]) {
      await failPasswords(email, PER_ACCOUNT);
      const r = await signIn(email);
      expect(r.status, email).toBe(429);
    }
  });

  it('keeps the per-address budget for staff with a second factor', async () => {
    const s = await staffWithTotp();
    const ip = freshIp();
    for (let i = 0; i < PER_IP; i++) expect((await signIn(s.email, { ip, password: 'Wrong-Password-1' })).status).toBe(401);
    expect((await signIn(s.email, { ip })).status).toBe(429);
  });
});

describe('recovery codes', () => {
  it('are 10 hashed single-use codes that finish a sign-in instead of a TOTP code', async () => {
    // A patient enrols from the account page and gets the codes.
    const p = await newPatient(ctx, 'rec');
    const setup = await call(ctx, 'POST', '/v1/users/mfa/totp/', { token: p.access });
    expect(setup.status).toBe(200);
    const confirmed = await call(ctx, 'POST', '/v1/users/mfa/totp/confirm/', { token: p.access, json: { code: codeOf(setup.body.secret) } });
    expect(confirmed.status, confirmed.text).toBe(200);
    const codes: string[] = confirmed.body.recovery_codes;
    expect(codes).toHaveLength(10);
    expect(new Set(codes).size).toBe(10);
    for (const c of codes) expect(c).toMatch(/^[a-z2-9]{5}-[a-z2-9]{5}$/);
    const stored = (await ctx.db.query('select code_hash from mfa_recovery_codes where user_id = $1', [p.id])).map((r) => r.code_hash as string);
    expect(stored).toHaveLength(10);
    for (const c of codes) expect(stored.join(' ')).not.toContain(c.replace('-', ''));

    const used = await secondStep(await mfaToken(p.email), codes[0]!.toUpperCase());
    expect(used.status, used.text).toBe(200);
    expect(used.body.is_doctor).toBe(false);
    const again = await secondStep(await mfaToken(p.email), codes[0]!);
    expect(again.status).toBe(401);
    expect(again.body.code).toBe('invalid_mfa_code');
    expect((await call(ctx, 'GET', '/v1/users/mfa/', { token: used.body.access })).body.recovery_codes_left).toBe(9);

    // New codes replace the old ones (a current TOTP code confirms it).
    const fresh = await call(ctx, 'POST', '/v1/users/mfa/recovery-codes/', { token: used.body.access, json: { code: codeOf(setup.body.secret, 1) } });
    expect(fresh.status, fresh.text).toBe(200);
    expect((await secondStep(await mfaToken(p.email), codes[1]!)).status).toBe(401);
    expect((await secondStep(await mfaToken(p.email), fresh.body.recovery_codes[0])).status).toBe(200);
  });
});

describe('a patient’s optional factor (account page)', () => {
  it('signs in as before without one, and with one asks for it; it can be turned off again', async () => {
    const p = await newPatient(ctx, 'opt');
    const plain = await signIn(p.email);
    expect(plain.status).toBe(200);
    expect(Object.keys(plain.body).sort()).toEqual(['access', 'is_backoffice_admin', 'is_doctor', 'is_marketer', 'is_pharmacist', 'refresh']);
    expect((await call(ctx, 'GET', '/v1/users/mfa/', { token: p.access })).body).toEqual({ methods: [], required: false, recovery_codes_left: 0 });

    // Confirming before starting, then a wrong code.
    expect((await call(ctx, 'POST', '/v1/users/mfa/totp/confirm/', { token: p.access, json: { code: '123456' } })).body.code).toBe('mfa_enrolment_not_started');
    const setup = await call(ctx, 'POST', '/v1/users/mfa/totp/', { token: p.access });
    expect(setup.body.otpauth_uri).toMatch(new RegExp(`^otpauth://totp/test-brand:${encodeURIComponent(p.email).replace(/[.]/g, '\\.')}\\?.*secret=${setup.body.secret}`));
    // An unconfirmed secret changes nothing at sign-in.
    expect((await signIn(p.email)).status).toBe(200);
    const wrong = await call(ctx, 'POST', '/v1/users/mfa/totp/confirm/', { token: p.access, json: { code: codeOf(setup.body.secret, 5) } });
    expect(wrong.status).toBe(400);
    expect(wrong.body).toEqual({ code: [expect.any(String)] });
    expect((await call(ctx, 'POST', '/v1/users/mfa/totp/confirm/', { token: p.access, json: { code: codeOf(setup.body.secret) } })).status).toBe(200);
    expect((await call(ctx, 'POST', '/v1/users/mfa/totp/', { token: p.access })).body.code).toBe('mfa_already_enrolled');

    const r = await signIn(p.email);
    expect(r.status).toBe(403);
    expect(r.body.code).toBe('mfa_required');

    const off = await call(ctx, 'POST', '/v1/users/mfa/totp/remove/', { token: p.access, json: { code: codeOf(setup.body.secret, 1) } });
    expect(off.status, off.text).toBe(200);
    expect((await signIn(p.email)).status).toBe(200);
    expect((await call(ctx, 'POST', '/v1/users/mfa/totp/remove/', { token: p.access, json: { code: '123456' } })).body.code).toBe('mfa_not_enrolled');
  });
});

describe('STAFF_MFA=required', () => {
  it('applies to a pharmacist like other staff: enrolment first, then the pharmacy desk', async () => {
    const email = uniqueEmail('pharm');
    await createStaff(required.deps, { email, password: PASSWORD, role: 'pharmacist', firstName: 'Lena', lastName: 'Apotheker' });
    const r = await signIn(email, { c: required });
    expect(r.status).toBe(403);
    expect(r.body.code).toBe('mfa_enrolment_required');
    expect((await call(required, 'GET', '/v1/pharmacy/orders/', { token: r.body.enrolment_token })).status).toBe(401);
    const start = await call(required, 'POST', '/v1/users/token/mfa/enrol/', { brand: true, json: { enrolment_token: r.body.enrolment_token } });
    const done = await call(required, 'POST', '/v1/users/token/mfa/enrol/confirm/', { brand: true, json: { enrolment_token: r.body.enrolment_token, code: codeOf(start.body.secret) } });
    expect(done.status, done.text).toBe(200);
    expect(done.body).toMatchObject({ is_pharmacist: true, is_doctor: false });
    expect((await call(required, 'GET', '/v1/pharmacy/orders/', { token: done.body.access })).status).toBe(200);
    expect((await call(required, 'GET', '/v1/users/mfa/', { token: done.body.access })).body).toMatchObject({ required: true });
  });

  it('sends staff without a factor through enrolment; the enrolment token allows nothing else', async () => {
    const email = uniqueEmail('enrol');
    await createStaff(required.deps, { email, password: PASSWORD, role: 'doctor', firstName: 'Zofia', lastName: 'Wójcik', licenseNumber: 'LANR-2' });
    const r = await signIn(email, { c: required });
    expect(r.status).toBe(403);
    expect(r.body).toEqual({ error: expect.any(String), code: 'mfa_enrolment_required', enrolment_token: expect.any(String), methods: ['totp', 'webauthn'] });
    const enrolment: string = r.body.enrolment_token;

    // Not a bearer token, not an mfa_token.
    expect((await call(required, 'GET', '/v1/users/mfa/', { token: enrolment })).status).toBe(401);
    expect((await call(required, 'GET', '/v1/clinician/consultations/', { token: enrolment })).status).toBe(401);
    expect((await secondStep(enrolment, '123456', { c: required })).body.code).toBe('invalid_mfa_token');

    const start = await call(required, 'POST', '/v1/users/token/mfa/enrol/', { brand: true, json: { enrolment_token: enrolment } });
    expect(start.status, start.text).toBe(200);
    expect(start.body).toEqual({ secret: expect.stringMatching(/^[A-Z2-7]{32}$/), otpauth_uri: expect.stringMatching(/^otpauth:\/\/totp\//) });
    const wrong = await call(required, 'POST', '/v1/users/token/mfa/enrol/confirm/', { brand: true, json: { enrolment_token: enrolment, code: codeOf(start.body.secret, 5) } });
    expect(wrong.status).toBe(401);
    expect(wrong.body.code).toBe('invalid_mfa_code');
    const done = await call(required, 'POST', '/v1/users/token/mfa/enrol/confirm/', { brand: true, json: { enrolment_token: enrolment, code: codeOf(start.body.secret) } });
    expect(done.status, done.text).toBe(200);
    expect(done.body).toEqual({ recovery_codes: expect.any(Array), access: expect.any(String), refresh: expect.any(String), is_doctor: true, is_backoffice_admin: false, is_marketer: false, is_pharmacist: false });
    expect(done.body.recovery_codes).toHaveLength(10);
    expect((await call(required, 'GET', '/v1/clinician/consultations/', { token: done.body.access })).status).toBe(200);

    // The enrolment token is spent; from now on sign-in asks for the code.
    expect((await call(required, 'POST', '/v1/users/token/mfa/enrol/', { brand: true, json: { enrolment_token: enrolment } })).body.code).toBe('invalid_mfa_token');
    const next = await signIn(email, { c: required });
    expect(next.body.code).toBe('mfa_required');
    expect((await secondStep(next.body.mfa_token, codeOf(start.body.secret, 1), { c: required })).status).toBe(200);

    // Staff must keep it.
    const off = await call(required, 'POST', '/v1/users/mfa/totp/remove/', { token: done.body.access, json: { code: done.body.recovery_codes[0] } });
    expect(off.status).toBe(403);
    expect(off.body.code).toBe('mfa_removal_not_allowed');
    expect((await call(required, 'GET', '/v1/users/mfa/', { token: done.body.access })).body).toEqual({ methods: ['totp'], required: true, recovery_codes_left: 10 });
  });

  it('leaves patients without a factor as they are', async () => {
    const p = await newPatient(required, 'reqpat');
    const r = await signIn(p.email, { c: required });
    expect(r.status).toBe(200);
  });

  it('signs staff enrolled by the operator (create-staff --totp-secret) in with the code', async () => {
    const s = await staffWithTotp(required, 'backoffice_admin');
    const token = await mfaToken(s.email, required);
    const done = await secondStep(token, codeOf(s.secret), { c: required });
    expect(done.status).toBe(200);
    expect(done.body.is_backoffice_admin).toBe(true);
  });
});

describe('STAFF_MFA setting', () => {
  const seller = { SELLER_NAME: 'Clinic GmbH', SELLER_ADDRESS: 'Street 1, Berlin', SELLER_VAT_ID: 'DE123456789', SELLER_COUNTRY: 'DEU', DISTANCE_SELLING_REGISTER_URL: 'https://register.example.de/versandapotheke/1', DISTANCE_SELLING_PHARMACY_NAME: 'Example Apotheke', DISTANCE_SELLING_COUNTRY: 'DEU', SELLER_PHONE: '+4930123456' };
  it('defaults to required in production and optional elsewhere, and refuses other values at start', () => {
    expect(loadConfig({}).STAFF_MFA).toBe('optional');
    expect(loadConfig({ NODE_ENV: 'production', ...seller }).STAFF_MFA).toBe('required');
    expect(loadConfig({ NODE_ENV: 'production', STAFF_MFA: 'optional', ...seller }).STAFF_MFA).toBe('optional');
    expect(loadConfig({ STAFF_MFA: 'required' }).STAFF_MFA).toBe('required');
    expect(() => loadConfig({ STAFF_MFA: 'sometimes' })).toThrow(ConfigError);
    expect(() => loadConfig({ STAFF_MFA: 'sometimes' })).toThrow(/STAFF_MFA: must be required or optional/);
  });

  it('refuses an unusable operator secret before writing anything', async () => {
    const email = uniqueEmail('badsecret');
    await expect(createStaff(ctx.deps, { email, password: PASSWORD, role: 'backoffice_admin', firstName: 'Olga', lastName: 'Ops', totpSecret: 'not base32!' })).rejects.toThrow(/base32/);
    await expect(createStaff(ctx.deps, { email, password: PASSWORD, role: 'backoffice_admin', firstName: 'Olga', lastName: 'Ops', totpSecret: 'JBSWY3DPEHPK3PXP' })).rejects.toThrow(/128 bits/);
    expect(await ctx.db.query('select 1 from users where email = $1', [email])).toHaveLength(0);
  });
});
