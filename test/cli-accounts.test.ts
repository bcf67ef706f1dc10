// Every operator command of src/cli.ts that touches an account, run on accounts in use: signed in
// (a session with its refresh token), with a connector (OAuth) grant and its token, a TOTP factor, a
// passkey and recovery codes. The commands run on the app's own database (runCli's `deps`), and what
// they leave is checked over HTTP (old tokens refused or still valid) and in the rows.
import { randomUUID } from 'node:crypto';
import { Secret, TOTP } from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../src/cli.ts';
import { createStaff } from '../src/modules/accounts/service.ts';
import { call, createTestContext, firstRow, newPatient, PASSWORD, TEST_BASE_URL, uniqueEmail, type TestContext } from './support/harness.ts';
import { SoftAuthenticator } from './support/webauthn.ts';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(async () => ctx?.close());

const codeOf = (secret: string, steps = 0) => new TOTP({ secret: Secret.fromBase32(secret), algorithm: 'SHA1', digits: 6, period: 30 }).generate({ timestamp: Date.now() + steps * 30_000 });
const cli = (...argv: string[]) => runCli(argv, { LOG_LEVEL: 'silent' }, { deps: ctx.deps });
let ipSeq = 0;
const freshIp = () => `192.0.2.${++ipSeq}`;

interface Loaded {
  id: string;
  email: string;
  access: string;
  refresh: string;
  secret: string;
  grantId: string;
}

/** A connector grant with a live access token, as the OAuth flow leaves them (docs/mcp.md). */
async function grantFor(userId: string): Promise<string> {
  const clientId = `cli-test-${randomUUID()}`;
  await ctx.db.query(`insert into mcp_clients (id, client_name, redirect_uris) values ($1, 'Assistant', '["http://127.0.0.1:5000/cb"]'::jsonb)`, [clientId]);
  const grant = firstRow(await ctx.db.query<{ id: string }>(`insert into mcp_grants (user_id, client_id, scopes, resource) values ($1, $2, 'patient:read', $3) returning id`, [userId, clientId, `${TEST_BASE_URL}/mcp`]));
  await ctx.db.query(`insert into mcp_tokens (token_hash, grant_id, kind, scopes, resource, expires_at) values ($1, $2, 'access', 'patient:read', $3, now() + interval '1 hour')`, [
    randomUUID(),
    grant.id,
    `${TEST_BASE_URL}/mcp`,
  ]);
  return grant.id;
}

/** Adds a passkey and makes new recovery codes (a TOTP code of the next step: the current one is spent). */
async function addPasskeyAndCodes(p: { access: string }, secret: string) {
  const a = new SoftAuthenticator(new URL(TEST_BASE_URL).origin, new URL(TEST_BASE_URL).hostname);
  const options = await call(ctx, 'POST', '/v1/users/mfa/passkeys/options/', { token: p.access });
  expect(options.status, options.text).toBe(200);
  const added = await call(ctx, 'POST', '/v1/users/mfa/passkeys/', { token: p.access, json: { credential: a.create(options.body) } });
  expect(added.status, added.text).toBe(201);
  const codes = await call(ctx, 'POST', '/v1/users/mfa/recovery-codes/', { token: p.access, json: { code: codeOf(secret, 1) } });
  expect(codes.status, codes.text).toBe(200);
}

/** A staff member who signed in with TOTP, has a passkey, recovery codes and a grant. */
async function loadedStaff(role: 'doctor' | 'backoffice_admin' | 'pharmacist' = 'doctor'): Promise<Loaded> {
  const email = uniqueEmail('ops');
  const secret = new Secret({ size: 20 }).base32;
  const id = await createStaff(ctx.deps, { email, password: PASSWORD, role, firstName: 'Zofia', lastName: 'Wójcik', licenseNumber: role === 'doctor' ? 'LANR-1' : undefined, totpSecret: secret });
  const first = await call(ctx, 'POST', '/v1/users/token/', { brand: true, ip: freshIp(), json: { email, password: PASSWORD } });
  expect(first.body.code).toBe('mfa_required');
  const pair = await call(ctx, 'POST', '/v1/users/token/mfa/', { brand: true, ip: freshIp(), json: { mfa_token: first.body.mfa_token, code: codeOf(secret) } });
  expect(pair.status, pair.text).toBe(200);
  await addPasskeyAndCodes(pair.body, secret);
  return { id, email, access: pair.body.access, refresh: pair.body.refresh, secret, grantId: await grantFor(id) };
}

/** A patient who enrolled TOTP and a passkey from the account page, with recovery codes and a grant. */
async function loadedPatient(): Promise<Loaded> {
  const p = await newPatient(ctx, 'cli');
  const setup = await call(ctx, 'POST', '/v1/users/mfa/totp/', { token: p.access });
  expect(setup.status, setup.text).toBe(200);
  const confirmed = await call(ctx, 'POST', '/v1/users/mfa/totp/confirm/', { token: p.access, json: { code: codeOf(setup.body.secret) } });
  expect(confirmed.status, confirmed.text).toBe(200);
  await addPasskeyAndCodes(p, setup.body.secret);
  return { ...p, secret: setup.body.secret, grantId: await grantFor(p.id) };
}

const sessionWorks = async (a: Loaded) => (await call(ctx, 'GET', '/v1/users/mfa/', { token: a.access })).status === 200;
const refreshWorks = async (a: Loaded) => (await call(ctx, 'POST', '/v1/users/token/refresh/', { brand: true, json: { refresh: a.refresh } })).status === 200;
const grantRevoked = async (a: Loaded) => firstRow(await ctx.db.query('select revoked_at from mcp_grants where id = $1', [a.grantId])).revoked_at !== null;
const factors = async (a: Loaded) =>
  firstRow(
    await ctx.db.query(
      `select (select count(*)::int from mfa_totp where user_id = $1) as totp, (select count(*)::int from mfa_passkeys where user_id = $1) as passkeys,
              (select count(*)::int from mfa_recovery_codes where user_id = $1) as codes`,
      [a.id],
    ),
  );
const reasons = async (a: Loaded) => (await ctx.db.query('select distinct revoke_reason from refresh_families where user_id = $1', [a.id])).map((r) => r.revoke_reason);

describe('operator commands on accounts in use', () => {
  it('reset-mfa removes every factor of a staff member who signed in, and ends their sessions and grants', async () => {
    const staff = await loadedStaff();
    expect(await factors(staff)).toEqual({ totp: 1, passkeys: 1, codes: 10 });
    expect(await cli('reset-mfa', '--email', staff.email)).toEqual({ code: 0, out: `second factor removed and sessions ended for ${staff.email}` });
    expect(await factors(staff)).toEqual({ totp: 0, passkeys: 0, codes: 0 });
    expect(await sessionWorks(staff)).toBe(false);
    expect(await refreshWorks(staff)).toBe(false);
    expect(await grantRevoked(staff)).toBe(true);
    expect(await reasons(staff)).toEqual(['mfa_reset']);
    // The password alone signs in again (STAFF_MFA=optional here; where required, enrolment starts).
    expect((await call(ctx, 'POST', '/v1/users/token/', { brand: true, ip: freshIp(), json: { email: staff.email, password: PASSWORD } })).status).toBe(200);
  });

  it('reset-mfa on a patient with TOTP, a passkey, codes, sessions and a grant', async () => {
    const patient = await loadedPatient();
    expect((await cli('reset-mfa', '--email', patient.email)).code).toBe(0);
    expect(await factors(patient)).toEqual({ totp: 0, passkeys: 0, codes: 0 });
    expect([await sessionWorks(patient), await refreshWorks(patient), await grantRevoked(patient)]).toEqual([false, false, true]);
  });

  it('disable-account ends sessions and grants and keeps the factors; enable-account lets the account sign in again, not the old sessions', async () => {
    for (const account of [await loadedStaff('backoffice_admin'), await loadedPatient()]) {
      expect(await cli('disable-account', '--email', account.email)).toEqual({ code: 0, out: `disabled ${account.email}` });
      expect([await sessionWorks(account), await refreshWorks(account), await grantRevoked(account)]).toEqual([false, false, true]);
      expect(await factors(account)).toEqual({ totp: 1, passkeys: 1, codes: 10 });
      expect(await reasons(account)).toEqual(['disabled']);
      expect(await cli('enable-account', '--email', account.email)).toEqual({ code: 0, out: `enabled ${account.email}` });
      expect([await sessionWorks(account), await refreshWorks(account)]).toEqual([false, false]);
      const again = await call(ctx, 'POST', '/v1/users/token/', { brand: true, ip: freshIp(), json: { email: account.email, password: PASSWORD } });
      expect(again.body.code).toBe('mfa_required');
    }
  });

  it('create-staff promoting an account in use replaces its password: its sessions and grants end; --totp-secret replaces its TOTP', async () => {
    const patient = await loadedPatient();
    const secret = new Secret({ size: 20 }).base32;
    const promoted = await cli('create-staff', '--email', patient.email, '--password', 'Signal-Orchard-Beacon-2026', '--role', 'pharmacist', '--first-name', 'Lena', '--last-name', 'Apotheker', '--totp-secret', secret);
    expect(promoted).toEqual({ code: 0, out: `staff account ${patient.email} (pharmacist) ready: ${patient.id}` });
    expect([await sessionWorks(patient), await refreshWorks(patient), await grantRevoked(patient)]).toEqual([false, false, true]);
    expect(await reasons(patient)).toEqual(['password_reset']);
    // The operator's secret is the TOTP factor now; the passkey stays, the recovery codes go with the old secret.
    expect(await factors(patient)).toEqual({ totp: 1, passkeys: 1, codes: 0 });
    const first = await call(ctx, 'POST', '/v1/users/token/', { brand: true, ip: freshIp(), json: { email: patient.email, password: 'Signal-Orchard-Beacon-2026' } });
    const second = await call(ctx, 'POST', '/v1/users/token/mfa/', { brand: true, ip: freshIp(), json: { mfa_token: first.body.mfa_token, code: codeOf(secret) } });
    expect(second.status, second.text).toBe(200);
    expect(second.body.is_pharmacist).toBe(true);
  });

  it('suppress-email changes no session, grant or factor; unknown addresses answer 1', async () => {
    const patient = await loadedPatient();
    expect(await cli('suppress-email', '--email', patient.email)).toEqual({ code: 0, out: `suppressed ${patient.email}` });
    expect([await sessionWorks(patient), await grantRevoked(patient)]).toEqual([true, false]);
    expect(await factors(patient)).toEqual({ totp: 1, passkeys: 1, codes: 10 });
    for (const command of ['reset-mfa', 'disable-account', 'enable-account']) expect((await cli(command, '--email', 'nobody@example.org')).code).toBe(1);
  });
});
