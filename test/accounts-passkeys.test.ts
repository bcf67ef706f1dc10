// Passkeys over HTTP (docs/accounts.md "Passkeys") with a software authenticator
// (test/support/webauthn.ts: an ES256 key, `none` attestation): adding one from the account page,
// the second step of a sign-in with one, enrolment with one where a factor is required, removal;
// and what is refused: a replayed challenge, another account's mfa_token or passkey, an expired
// challenge, another origin, a counter that does not grow; the staff lockout rule; the settings.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.ts';
import { createStaff } from '../src/modules/accounts/service.ts';
import { call, createTestContext, firstRow, newPatient, PASSWORD, TEST_BASE_URL, uniqueEmail, type Patient, type TestContext } from './support/harness.ts';
import { SoftAuthenticator, type RequestOptions } from './support/webauthn.ts';

const PER_ACCOUNT = 6;
let ctx: TestContext;
let required: TestContext;
beforeAll(async () => {
  [ctx, required] = await Promise.all([createTestContext({ SIGNIN_FAILURES_PER_ACCOUNT: String(PER_ACCOUNT) }), createTestContext({ STAFF_MFA: 'required' })]);
});
afterAll(async () => Promise.all([ctx?.close(), required?.close()]));

const ORIGIN = new URL(TEST_BASE_URL).origin;
const RP_ID = new URL(TEST_BASE_URL).hostname;
const authenticator = () => new SoftAuthenticator(ORIGIN, RP_ID);

let ipSeq = 0;
const freshIp = () => `203.0.113.${++ipSeq}`;

/** Adds a passkey to a signed-in account through the two bearer endpoints. */
async function addPasskey(p: { access: string }, a: SoftAuthenticator, c: TestContext = ctx, name?: string) {
  const options = await call(c, 'POST', '/v1/users/mfa/passkeys/options/', { token: p.access });
  expect(options.status, options.text).toBe(200);
  const created = await call(c, 'POST', '/v1/users/mfa/passkeys/', { token: p.access, json: { credential: a.create(options.body), ...(name ? { name } : {}) } });
  expect(created.status, created.text).toBe(201);
  return created.body as { passkey: { id: string; name: string }; recovery_codes: string[] };
}

const signIn = (email: string, c: TestContext = ctx, password = PASSWORD) => call(c, 'POST', '/v1/users/token/', { brand: true, ip: freshIp(), json: { email, password } });
async function mfaToken(email: string, c: TestContext = ctx): Promise<string> {
  const r = await signIn(email, c);
  expect(r.status, r.text).toBe(403);
  expect(r.body.code).toBe('mfa_required');
  return r.body.mfa_token as string;
}
const assertionOptions = (token: string, c: TestContext = ctx) => call(c, 'POST', '/v1/users/token/mfa/webauthn/options/', { brand: true, ip: freshIp(), json: { mfa_token: token } });
const secondStep = (token: string, webauthn: unknown, c: TestContext = ctx) => call(c, 'POST', '/v1/users/token/mfa/', { brand: true, ip: freshIp(), json: { mfa_token: token, webauthn } });

/** A patient with one passkey, and the authenticator holding it. */
async function patientWithPasskey(tag = 'pk'): Promise<{ p: Patient; a: SoftAuthenticator }> {
  const p = await newPatient(ctx, tag);
  const a = authenticator();
  await addPasskey(p, a);
  return { p, a };
}

describe('a passkey from the account page', () => {
  it('is added with options and the credential; the first factor brings 10 recovery codes; sign-in then asks for it and a passkey finishes it', async () => {
    const p = await newPatient(ctx, 'add');
    const a = authenticator();
    const options = await call(ctx, 'POST', '/v1/users/mfa/passkeys/options/', { token: p.access });
    expect(options.status).toBe(200);
    expect(options.body).toMatchObject({ rp: { id: RP_ID }, user: { name: p.email }, challenge: expect.any(String), attestation: 'none' });
    // Only a hash of the challenge is kept, bound to the account.
    const stored = firstRow(await ctx.db.query('select challenge_hash, purpose, user_id from webauthn_challenges where user_id = $1', [p.id]));
    expect(stored).toMatchObject({ purpose: 'register', user_id: p.id });
    expect(stored.challenge_hash).not.toBe(options.body.challenge);

    const created = await call(ctx, 'POST', '/v1/users/mfa/passkeys/', { token: p.access, json: { credential: a.create(options.body), name: 'Laptop' } });
    expect(created.status, created.text).toBe(201);
    expect(created.body.passkey).toEqual({ id: expect.any(String), name: 'Laptop', backed_up: false, created_at: expect.any(String), last_used_at: null });
    expect(created.body.recovery_codes).toHaveLength(10);
    const list = await call(ctx, 'GET', '/v1/users/mfa/passkeys/', { token: p.access });
    expect(list.body.results.map((k: { id: string }) => k.id)).toEqual([created.body.passkey.id]);
    expect((await call(ctx, 'GET', '/v1/users/mfa/', { token: p.access })).body).toEqual({ methods: ['webauthn'], required: false, recovery_codes_left: 10 });

    // A second passkey: no new recovery codes; the first one is excluded from its options.
    const second = await call(ctx, 'POST', '/v1/users/mfa/passkeys/options/', { token: p.access });
    expect(second.body.excludeCredentials.map((c: { id: string }) => c.id)).toEqual([a.id]);
    const b = authenticator();
    const again = await call(ctx, 'POST', '/v1/users/mfa/passkeys/', { token: p.access, json: { credential: b.create(second.body) } });
    expect(again.status).toBe(201);
    expect(again.body).toMatchObject({ passkey: { name: 'Passkey' }, recovery_codes: [] });

    const r = await signIn(p.email);
    expect(r.status).toBe(403);
    expect(r.body).toEqual({ error: expect.any(String), code: 'mfa_required', mfa_token: expect.any(String), methods: ['webauthn'] });
    const req = await assertionOptions(r.body.mfa_token);
    expect(req.status, req.text).toBe(200);
    expect(req.body.rpId).toBe(RP_ID);
    expect(req.body.allowCredentials.map((c: { id: string }) => c.id).sort()).toEqual([a.id, b.id].sort());
    const done = await secondStep(r.body.mfa_token, b.get(req.body));
    expect(done.status, done.text).toBe(200);
    expect(done.body).toEqual({ access: expect.any(String), refresh: expect.any(String), is_doctor: false, is_backoffice_admin: false, is_marketer: false, is_pharmacist: false });
    const me = await call(ctx, 'GET', '/v1/users/profile/me/', { token: done.body.access });
    expect(me.body.email).toBe(p.email);
    const used = firstRow(await ctx.db.query('select counter, last_used_at from mfa_passkeys where credential_id = $1', [b.id]));
    expect(Number(used.counter)).toBe(1);
    expect(used.last_used_at).not.toBeNull();
  });

  it('refuses a credential for another origin, an expired challenge, and a challenge used once already', async () => {
    const p = await newPatient(ctx, 'refuse');
    const a = authenticator();
    const opts = async () => (await call(ctx, 'POST', '/v1/users/mfa/passkeys/options/', { token: p.access })).body;
    const post = (credential: unknown) => call(ctx, 'POST', '/v1/users/mfa/passkeys/', { token: p.access, json: { credential } });

    const evil = await post(a.create(await opts(), { origin: 'https://evil.example' }));
    expect(evil.status).toBe(400);
    expect(evil.body).toEqual({ credential: [expect.any(String)] });

    const late = await opts();
    await ctx.deps.clock.advance(5 * 60_000 + 1_000);
    // The sign-in is older than 5 minutes now too: re-authenticate (docs/accounts.md), then the expired challenge is still refused.
    expect((await call(ctx, 'POST', '/v1/users/me/reauthenticate/', { token: p.access, json: { password: PASSWORD } })).status).toBe(200);
    expect((await post(a.create(late))).status).toBe(400);

    const once = a.create(await opts());
    expect((await post(once)).status).toBe(201);
    const replay = await post(once);
    expect(replay.status).toBe(400);
    // A challenge of another account is not this account's.
    const other = await newPatient(ctx, 'refuse-other');
    const theirs = (await call(ctx, 'POST', '/v1/users/mfa/passkeys/options/', { token: other.access })).body;
    expect((await post(authenticator().create(theirs))).status).toBe(400);
    expect((await call(ctx, 'GET', '/v1/users/mfa/passkeys/', { token: p.access })).body.results).toHaveLength(1);
  });

  it('removes a passkey (204); another account’s passkey is a 404; with the last one the recovery codes go', async () => {
    const { p } = await patientWithPasskey('del');
    const { p: other } = await patientWithPasskey('del-other');
    const mine = (await call(ctx, 'GET', '/v1/users/mfa/passkeys/', { token: p.access })).body.results[0].id as string;
    const theirs = (await call(ctx, 'GET', '/v1/users/mfa/passkeys/', { token: other.access })).body.results[0].id as string;
    const crossed = await call(ctx, 'DELETE', `/v1/users/mfa/passkeys/${theirs}/`, { token: p.access });
    const missing = await call(ctx, 'DELETE', '/v1/users/mfa/passkeys/00000000-0000-4000-8000-000000000000/', { token: p.access });
    expect(crossed.status).toBe(404);
    expect(crossed.body).toEqual(missing.body);
    expect((await call(ctx, 'GET', '/v1/users/mfa/passkeys/', { token: other.access })).body.results).toHaveLength(1);

    const gone = await call(ctx, 'DELETE', `/v1/users/mfa/passkeys/${mine}/`, { token: p.access });
    expect(gone.status).toBe(204);
    expect((await call(ctx, 'GET', '/v1/users/mfa/', { token: p.access })).body).toEqual({ methods: [], required: false, recovery_codes_left: 0 });
    expect(firstRow(await ctx.db.query('select count(*)::int as n from mfa_recovery_codes where user_id = $1', [p.id])).n).toBe(0);
    expect((await signIn(p.email)).status).toBe(200);
  });
});

describe('erasure', () => {
  it('removes the passkeys, their challenges and the recovery codes with the account', async () => {
    const { p } = await patientWithPasskey('erase');
    const { p: other } = await patientWithPasskey('erase-other');
    const count = async (table: string, id: string) => firstRow(await ctx.db.query(`select count(*)::int as n from ${table} where user_id = $1`, [id])).n;
    expect(await count('mfa_passkeys', p.id)).toBe(1);
    const erased = await call(ctx, 'DELETE', '/v1/users/me/', { token: p.access, json: { password: PASSWORD } });
    expect(erased.status, erased.text).toBe(204);
    for (const table of ['mfa_passkeys', 'webauthn_challenges', 'mfa_recovery_codes']) expect(await count(table, p.id), table).toBe(0);
    // Another account's factors stay.
    expect(await count('mfa_passkeys', other.id)).toBe(1);
  });
});

describe('the second step with a passkey', () => {
  it('refuses a replayed assertion (its challenge is used once), also with a new mfa_token', async () => {
    const { p, a } = await patientWithPasskey('replay');
    const token = await mfaToken(p.email);
    const assertion = a.get((await assertionOptions(token)).body);
    expect((await secondStep(token, assertion)).status).toBe(200);
    const token2 = await mfaToken(p.email);
    await assertionOptions(token2);
    const replayed = await secondStep(token2, assertion);
    expect(replayed.status).toBe(401);
    expect(replayed.body).toEqual({ error: expect.any(String), code: 'invalid_passkey' });
    // The ticket stays usable with a fresh challenge.
    expect((await secondStep(token2, a.get((await assertionOptions(token2)).body))).status).toBe(200);
  });

  it('binds the challenge to its mfa_token and the mfa_token to its account', async () => {
    const one = await patientWithPasskey('bind-a');
    const two = await patientWithPasskey('bind-b');
    const tokenA = await mfaToken(one.p.email);
    const tokenB = await mfaToken(two.p.email);
    // B's assertion for B's challenge, sent with A's mfa_token.
    const forB = two.a.get((await assertionOptions(tokenB)).body);
    const crossed = await secondStep(tokenA, forB);
    expect(crossed.status).toBe(401);
    expect(crossed.body.code).toBe('invalid_passkey');
    // B's passkey answering A's challenge: not a passkey of A.
    const challengeA = (await assertionOptions(tokenA)).body as RequestOptions;
    expect((await secondStep(tokenA, two.a.get(challengeA))).body.code).toBe('invalid_passkey');
    // A challenge issued for another sign-in of the same account does not serve this one.
    const tokenA2 = await mfaToken(one.p.email);
    const forA2 = one.a.get((await assertionOptions(tokenA2)).body);
    expect((await secondStep(tokenA, forA2)).body.code).toBe('invalid_passkey');
    // A's own passkey and challenge: signed in as A.
    const ok = await secondStep(tokenA, one.a.get((await assertionOptions(tokenA)).body));
    expect(ok.status).toBe(200);
    expect((await call(ctx, 'GET', '/v1/users/profile/me/', { token: ok.body.access })).body.email).toBe(one.p.email);
    // B's token still works for B.
    expect((await secondStep(tokenB, two.a.get((await assertionOptions(tokenB)).body))).status).toBe(200);
  });

  it('refuses another origin and a counter that does not grow (a cloned authenticator)', async () => {
    const { p, a } = await patientWithPasskey('clone');
    const token = await mfaToken(p.email);
    expect((await secondStep(token, a.get((await assertionOptions(token)).body, { origin: 'https://evil.example' }))).body.code).toBe('invalid_passkey');
    expect((await secondStep(token, a.get((await assertionOptions(token)).body))).status).toBe(200);
    const next = await mfaToken(p.email);
    const stale = await secondStep(next, a.get((await assertionOptions(next)).body, { counter: 1 }));
    expect(stale.status).toBe(401);
    expect(stale.body.code).toBe('invalid_passkey');
  });

  it('lets a challenge die with its ticket, and a refused assertion counts like a wrong code (5 use the ticket up)', async () => {
    const { p, a } = await patientWithPasskey('expire');
    const token = await mfaToken(p.email);
    const options = (await assertionOptions(token)).body;
    await ctx.deps.clock.advance(5 * 60_000 + 1_000);
    const late = await secondStep(token, a.get(options));
    expect(late.status).toBe(401);
    expect(late.body.code).toBe('invalid_mfa_token');
    expect((await assertionOptions(token)).body.code).toBe('invalid_mfa_token');

    const fresh = await mfaToken(p.email);
    for (let i = 0; i < 5; i++) expect((await secondStep(fresh, a.get((await assertionOptions(fresh)).body, { origin: 'https://evil.example' }))).body.code).toBe('invalid_passkey');
    expect((await assertionOptions(fresh)).body.code).toBe('invalid_mfa_token');
  });

  it('asks for exactly one of code and webauthn; an account without a passkey gets no challenge', async () => {
    const { p, a } = await patientWithPasskey('body');
    const token = await mfaToken(p.email);
    const neither = await call(ctx, 'POST', '/v1/users/token/mfa/', { brand: true, json: { mfa_token: token } });
    expect(neither.status).toBe(400);
    expect(neither.body).toEqual({ code: [expect.any(String)] });
    const both = await call(ctx, 'POST', '/v1/users/token/mfa/', { brand: true, json: { mfa_token: token, code: '123456', webauthn: a.get((await assertionOptions(token)).body) } });
    expect(both.status).toBe(400);
    // A recovery code finishes a passkey account's sign-in too.
    const codes = (await call(ctx, 'POST', '/v1/users/mfa/passkeys/', { token: p.access, json: {} })).status;
    expect(codes).toBe(400);

    const totpOnly = await newPatient(ctx, 'nopasskey');
    const setup = await call(ctx, 'POST', '/v1/users/mfa/totp/', { token: totpOnly.access });
    expect(setup.status).toBe(200);
    const noPasskey = await newPatient(ctx, 'plain');
    // No factor at all: sign-in gives tokens, there is no mfa_token to ask with.
    expect((await signIn(noPasskey.email)).status).toBe(200);
    expect((await assertionOptions('not-a-ticket')).body.code).toBe('invalid_mfa_token');
  });

  it('accepts a recovery code for an account whose only factor is a passkey', async () => {
    const p = await newPatient(ctx, 'reccode');
    const { recovery_codes } = await addPasskey(p, authenticator());
    const token = await mfaToken(p.email);
    const r = await call(ctx, 'POST', '/v1/users/token/mfa/', { brand: true, json: { mfa_token: token, code: recovery_codes[0] } });
    expect(r.status, r.text).toBe(200);
  });
});

describe('staff with passkeys', () => {
  it('enrol with a passkey at sign-in where a factor is required, then sign in with it; the last factor cannot be removed', async () => {
    const email = uniqueEmail('pkstaff');
    await createStaff(required.deps, { email, password: PASSWORD, role: 'doctor', firstName: 'Zofia', lastName: 'Wójcik', licenseNumber: 'LANR-1' });
    const r = await signIn(email, required);
    expect(r.status).toBe(403);
    expect(r.body).toEqual({ error: expect.any(String), code: 'mfa_enrolment_required', enrolment_token: expect.any(String), methods: ['totp', 'webauthn'] });
    const a = authenticator();
    const options = await call(required, 'POST', '/v1/users/token/mfa/enrol/passkey/options/', { brand: true, json: { enrolment_token: r.body.enrolment_token } });
    expect(options.status, options.text).toBe(200);
    // A refused credential counts and keeps the ticket.
    const bad = await call(required, 'POST', '/v1/users/token/mfa/enrol/passkey/', { brand: true, json: { enrolment_token: r.body.enrolment_token, credential: a.create(options.body, { origin: 'https://evil.example' }) } });
    expect(bad.status).toBe(401);
    expect(bad.body.code).toBe('invalid_passkey');
    const options2 = await call(required, 'POST', '/v1/users/token/mfa/enrol/passkey/options/', { brand: true, json: { enrolment_token: r.body.enrolment_token } });
    const enrolled = await call(required, 'POST', '/v1/users/token/mfa/enrol/passkey/', { brand: true, json: { enrolment_token: r.body.enrolment_token, credential: a.create(options2.body), name: 'Desk key' } });
    expect(enrolled.status, enrolled.text).toBe(200);
    expect(enrolled.body).toMatchObject({ is_doctor: true, access: expect.any(String), refresh: expect.any(String) });
    expect(enrolled.body.recovery_codes).toHaveLength(10);
    // The enrolment token is spent.
    expect((await call(required, 'POST', '/v1/users/token/mfa/enrol/passkey/options/', { brand: true, json: { enrolment_token: r.body.enrolment_token } })).body.code).toBe('invalid_mfa_token');

    const token = await mfaToken(email, required);
    const done = await secondStep(token, a.get((await assertionOptions(token, required)).body), required);
    expect(done.status, done.text).toBe(200);
    const list = await call(required, 'GET', '/v1/users/mfa/passkeys/', { token: done.body.access });
    expect(list.body.results).toEqual([expect.objectContaining({ name: 'Desk key' })]);
    const removal = await call(required, 'DELETE', `/v1/users/mfa/passkeys/${list.body.results[0].id}/`, { token: done.body.access });
    expect(removal.status).toBe(403);
    expect(removal.body.code).toBe('mfa_removal_not_allowed');
    // With a second passkey, one of them may go.
    await addPasskey({ access: done.body.access }, authenticator(), required);
    expect((await call(required, 'DELETE', `/v1/users/mfa/passkeys/${list.body.results[0].id}/`, { token: done.body.access })).status).toBe(204);
  });

  it('are not locked by anonymous password failures when a passkey is their factor (the per-address budget stays)', async () => {
    const email = uniqueEmail('pklock');
    await createStaff(ctx.deps, { email, password: PASSWORD, role: 'backoffice_admin', firstName: 'Olga', lastName: 'Ops' });
    const staff = await signIn(email);
    expect(staff.status).toBe(200);
    await addPasskey({ access: staff.body.access }, authenticator());
    for (let i = 0; i < PER_ACCOUNT + 2; i++) expect((await signIn(email, ctx, 'Wrong-Password-1')).status).toBe(401);
    const r = await signIn(email);
    expect(r.status).toBe(403);
    expect(r.body.methods).toEqual(['webauthn']);
  });
});

describe('passkey settings', () => {
  it('derive the RP ID and origin from the public URL, and refuse an RP ID that does not cover the origins at start', () => {
    const base = { PUBLIC_BASE_URL: 'https://api.example.org' };
    expect(loadConfig(base)).toMatchObject({ WEBAUTHN_RP_ID: 'api.example.org', WEBAUTHN_ORIGINS: ['https://api.example.org'] });
    expect(loadConfig({ ...base, WEB_APP_URL: 'https://app.example.org' })).toMatchObject({ WEBAUTHN_RP_ID: 'app.example.org', WEBAUTHN_ORIGINS: ['https://app.example.org'] });
    expect(loadConfig({ ...base, WEBAUTHN_RP_ID: 'example.org', WEBAUTHN_ORIGINS: 'https://app.example.org,https://example.org' })).toMatchObject({ WEBAUTHN_RP_ID: 'example.org' });
    expect(() => loadConfig({ ...base, WEBAUTHN_RP_ID: 'other.example' })).toThrow(ConfigError);
    expect(() => loadConfig({ ...base, WEBAUTHN_RP_ID: 'https://example.org' })).toThrow(/WEBAUTHN_RP_ID/);
    expect(() => loadConfig({ ...base, WEBAUTHN_ORIGINS: 'https://example.org/app' })).toThrow(/WEBAUTHN_ORIGINS/);
  });
});
