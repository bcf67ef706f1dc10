// STAFF_MFA=required holds for sessions, not only at sign-in (docs/accounts.md, "Second factor"): a
// staff session opened with the password alone (while the setting was `optional`, or before the
// account became staff) is refused on every request and at refresh once the setting is `required`;
// sessions that passed a factor (the second step, or a factor confirmed from the account page) go on.
// The setting changes by starting another instance on the same database, as a redeploy does.
import { Secret, TOTP } from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStaff } from '../src/modules/accounts/service.ts';
import { anotherInstance, call, createTestContext, firstRow, newPatient, newStaff, PASSWORD, uniqueEmail, type Instance, type TestContext } from './support/harness.ts';

let ctx: TestContext;
let required: Instance;
beforeAll(async () => {
  ctx = await createTestContext({ STAFF_MFA: 'optional' });
  required = await anotherInstance(ctx, { STAFF_MFA: 'required' });
});
afterAll(async () => {
  await required?.close();
  await ctx?.close();
});

const codeOf = (secret: string, steps = 0) => new TOTP({ secret: Secret.fromBase32(secret), algorithm: 'SHA1', digits: 6, period: 30 }).generate({ timestamp: Date.now() + steps * 30_000 });
const desk = (token: string) => call(required, 'GET', '/v1/clinician/consultations/', { token });
const refreshOn = (app: { app: TestContext['app'] }, refresh: string) => call(app, 'POST', '/v1/users/token/refresh/', { brand: true, json: { refresh } });

describe('STAFF_MFA=required on sessions opened before it', () => {
  it('refuses a password-only staff session on every request and at refresh, and ends it', async () => {
    const doctor = await newStaff(ctx, 'doctor');
    // Under `optional` the password-only session works.
    expect((await call(ctx, 'GET', '/v1/clinician/consultations/', { token: doctor.access })).status).toBe(200);
    const refused = await desk(doctor.access);
    expect(refused.status).toBe(401);
    expect(refused.body).toMatchObject({ code: 'token_not_valid', messages: [expect.objectContaining({ message: expect.stringMatching(/second factor/) })] });
    // Every staff request, also the account's own routes.
    expect((await call(required, 'GET', '/v1/users/mfa/', { token: doctor.access })).status).toBe(401);
    const refreshed = await refreshOn(required, doctor.refresh);
    expect(refreshed.status).toBe(401);
    expect(refreshed.body.code).toBe('token_not_valid');
    // The session is ended (also for the instance still on `optional`), with its reason.
    const family = firstRow(await ctx.db.query('select revoke_reason from refresh_families where user_id = $1', [doctor.id]));
    expect(family.revoke_reason).toBe('mfa_required');
    expect((await refreshOn(ctx, doctor.refresh)).status).toBe(401);
  });

  it('keeps sessions that passed the second step, and one that confirmed a factor from the account page', async () => {
    const email = uniqueEmail('mfadoc');
    const secret = new Secret({ size: 20 }).base32;
    await createStaff(ctx.deps, { email, password: PASSWORD, role: 'doctor', firstName: 'Zofia', lastName: 'Wójcik', licenseNumber: 'LANR-1', totpSecret: secret });
    const first = await call(ctx, 'POST', '/v1/users/token/', { brand: true, json: { email, password: PASSWORD } });
    const pair = await call(ctx, 'POST', '/v1/users/token/mfa/', { brand: true, json: { mfa_token: first.body.mfa_token, code: codeOf(secret) } });
    expect(pair.status, pair.text).toBe(200);
    expect((await desk(pair.body.access)).status).toBe(200);
    const next = await refreshOn(required, pair.body.refresh);
    expect(next.status, next.text).toBe(200);
    expect((await desk(next.body.access)).status).toBe(200);

    // A password-only session that then sets up an authenticator app has passed a factor.
    const late = await newStaff(ctx, 'doctor');
    const setup = await call(ctx, 'POST', '/v1/users/mfa/totp/', { token: late.access });
    expect(setup.status, setup.text).toBe(200);
    expect((await call(ctx, 'POST', '/v1/users/mfa/totp/confirm/', { token: late.access, json: { code: codeOf(setup.body.secret) } })).status).toBe(200);
    expect((await desk(late.access)).status).toBe(200);
    expect((await refreshOn(required, late.refresh)).status).toBe(200);
  });

  it('leaves patients alone: their password sessions need no factor', async () => {
    const patient = await newPatient(ctx, 'nomfa');
    expect((await call(required, 'GET', '/v1/users/mfa/', { token: patient.access })).status).toBe(200);
    expect((await refreshOn(required, patient.refresh)).status).toBe(200);
  });
});
