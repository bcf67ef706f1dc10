// Re-authentication before security changes (docs/accounts.md, "Re-authentication"): a stolen access
// token alone cannot add or remove a passkey, set up an authenticator app or replace the recovery
// codes once the sign-in is more than 5 minutes old; POST /v1/users/me/reauthenticate/ (password or a
// current code) opens 5 minutes again. Every change mails the account's owner, in their locale.
import { Secret, TOTP } from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTestContext, newPatient, PASSWORD, TEST_BASE_URL, type Patient, type TestContext } from './support/harness.ts';
import { SoftAuthenticator } from './support/webauthn.ts';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(async () => ctx?.close());

const codeOf = (secret: string, steps = 0) => new TOTP({ secret: Secret.fromBase32(secret), algorithm: 'SHA1', digits: 6, period: 30 }).generate({ timestamp: Date.now() + steps * 30_000 });
const authenticator = () => new SoftAuthenticator(new URL(TEST_BASE_URL).origin, new URL(TEST_BASE_URL).hostname);
/** The session's last authentication is 6 minutes old (a token stolen after the sign-in). */
const age = (p: Patient) => ctx.db.query("update refresh_families set reauthenticated_at = reauthenticated_at - interval '6 minutes' where user_id = $1", [p.id]);
const reauth = (p: Patient, json: Record<string, unknown>) => call(ctx, 'POST', '/v1/users/me/reauthenticate/', { token: p.access, json });

async function addPasskey(p: Patient, a = authenticator()) {
  const options = await call(ctx, 'POST', '/v1/users/mfa/passkeys/options/', { token: p.access });
  if (options.status !== 200) return options;
  return call(ctx, 'POST', '/v1/users/mfa/passkeys/', { token: p.access, json: { credential: a.create(options.body) } });
}

async function mailsTo(email: string): Promise<string[]> {
  await ctx.flushMail();
  return ctx.mails.filter((m) => m.to === email).map((m) => `${m.subject} | ${m.text.trim()}`);
}

describe('security changes need a recent authentication', () => {
  it('refuses every factor change of a session whose authentication is older than 5 minutes', async () => {
    const p = await newPatient(ctx, 'stale');
    const setup = await call(ctx, 'POST', '/v1/users/mfa/totp/', { token: p.access });
    expect(setup.status).toBe(200);
    expect((await call(ctx, 'POST', '/v1/users/mfa/totp/confirm/', { token: p.access, json: { code: codeOf(setup.body.secret) } })).status).toBe(200);
    const added = await addPasskey(p);
    expect(added.status, added.text).toBe(201);
    await age(p);
    const refusal = { error: expect.any(String), code: 'reauthentication_required' };
    const options = await call(ctx, 'POST', '/v1/users/mfa/passkeys/options/', { token: p.access });
    expect([options.status, options.body]).toEqual([403, refusal]);
    const removed = await call(ctx, 'DELETE', `/v1/users/mfa/passkeys/${added.body.passkey.id}/`, { token: p.access });
    expect([removed.status, removed.body]).toEqual([403, refusal]);
    const codes = await call(ctx, 'POST', '/v1/users/mfa/recovery-codes/', { token: p.access, json: {} });
    expect([codes.status, codes.body]).toEqual([403, refusal]);
    // The passkey is still there.
    expect((await call(ctx, 'GET', '/v1/users/mfa/passkeys/', { token: p.access })).body.results).toHaveLength(1);

    // A fresh patient, stale session: no authenticator app either.
    const q = await newPatient(ctx, 'stale2');
    await age(q);
    expect((await call(ctx, 'POST', '/v1/users/mfa/totp/', { token: q.access })).body.code).toBe('reauthentication_required');
    expect((await addPasskey(q)).body.code).toBe('reauthentication_required');
  });

  it('re-authentication with the password or a current code opens 5 minutes again', async () => {
    const p = await newPatient(ctx, 'reauth');
    await age(p);
    expect((await reauth(p, {})).status).toBe(400);
    expect((await reauth(p, { password: PASSWORD, code: '123456' })).status).toBe(400);
    const wrong = await reauth(p, { password: 'not-the-password' });
    expect([wrong.status, Object.keys(wrong.body)]).toEqual([400, ['password']]);
    // A code from an account without a factor.
    expect((await reauth(p, { code: '123456' })).body.code).toBe('mfa_not_enrolled');
    const ok = await reauth(p, { password: PASSWORD });
    expect(ok.status, ok.text).toBe(200);
    expect(Date.parse(ok.body.reauthenticated_until) - Date.now()).toBeGreaterThan(4 * 60_000);
    const setup = await call(ctx, 'POST', '/v1/users/mfa/totp/', { token: p.access });
    expect(setup.status).toBe(200);
    expect((await call(ctx, 'POST', '/v1/users/mfa/totp/confirm/', { token: p.access, json: { code: codeOf(setup.body.secret) } })).status).toBe(200);

    // Later, a current authenticator code re-authenticates too.
    await age(p);
    expect((await addPasskey(p)).status).toBe(403);
    const byCode = await reauth(p, { code: codeOf(setup.body.secret, 1) });
    expect(byCode.status, byCode.text).toBe(200);
    expect((await addPasskey(p)).status).toBe(201);
  });

  it('mails the owner of every change, in their locale, without codes or secrets', async () => {
    const p = await newPatient(ctx, 'notice', { locale: 'de' });
    const setup = await call(ctx, 'POST', '/v1/users/mfa/totp/', { token: p.access });
    const confirmed = await call(ctx, 'POST', '/v1/users/mfa/totp/confirm/', { token: p.access, json: { code: codeOf(setup.body.secret) } });
    expect(confirmed.status).toBe(200);
    const passkey = await addPasskey(p);
    const replaced = await call(ctx, 'POST', '/v1/users/mfa/recovery-codes/', { token: p.access, json: { code: codeOf(setup.body.secret, 1) } });
    expect(replaced.status).toBe(200);
    expect((await call(ctx, 'DELETE', `/v1/users/mfa/passkeys/${passkey.body.passkey.id}/`, { token: p.access })).status).toBe(204);
    const recovery = replaced.body.recovery_codes[0];
    expect((await call(ctx, 'POST', '/v1/users/mfa/totp/remove/', { token: p.access, json: { code: codeOf(setup.body.secret, -1) } })).status).toBe(400); // an earlier step is a replay
    expect((await call(ctx, 'POST', '/v1/users/mfa/totp/remove/', { token: p.access, json: { code: recovery } })).status).toBe(200);
    const notices = (await mailsTo(p.email)).filter((m) => m.startsWith('Die Anmeldesicherheit'));
    // One mail per change (the outbox does not keep their order).
    expect(notices.map((m) => (m.split(' | ')[1] ?? '').split('\n')[0]).sort()).toEqual([
      'Eine Authenticator-App wurde als zweiter Faktor Ihres Kontos eingerichtet.',
      'Ihrem Konto wurde ein Passkey hinzugefügt.',
      'Für Ihr Konto wurden neue Wiederherstellungscodes erstellt; die alten gelten nicht mehr.',
      'Ein Passkey wurde aus Ihrem Konto entfernt.',
      'Die Authenticator-App wurde aus Ihrem Konto entfernt.',
    ].sort());
    for (const m of notices) expect(m).not.toMatch(new RegExp(`${setup.body.secret}|${recovery}`));
  });
});

describe('recovery codes of an account whose only factor is a passkey', () => {
  it('are replaced after a recent re-authentication; a code is answered with what to do instead', async () => {
    const p = await newPatient(ctx, 'pkonly');
    expect((await addPasskey(p)).status).toBe(201);
    const withCode = await call(ctx, 'POST', '/v1/users/mfa/recovery-codes/', { token: p.access, json: { code: '123456' } });
    expect(withCode.status).toBe(400);
    expect(withCode.body.code[0]).toMatch(/no authenticator app.*re-?authenticate/i);
    const fresh = await call(ctx, 'POST', '/v1/users/mfa/recovery-codes/', { token: p.access, json: {} });
    expect(fresh.status, fresh.text).toBe(200);
    expect(fresh.body.recovery_codes).toHaveLength(10);
    // Without any factor there is nothing to replace.
    const none = await newPatient(ctx, 'nofactor');
    expect((await call(ctx, 'POST', '/v1/users/mfa/recovery-codes/', { token: none.access, json: {} })).body.code).toBe('mfa_not_enrolled');
  });
});
