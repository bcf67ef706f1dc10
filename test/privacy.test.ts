// Consents, the staff access log, the data export and erasure (docs/privacy.md), over HTTP
// against the real app, with another account alongside every time.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mayReceiveMarketing } from '../src/modules/privacy/index.ts';
import { call, createTestContext, firstRow, latestCode, PASSWORD, seedPatient, TEST_BRAND, type Patient, type TestContext } from './support/harness.ts';
import { paySandbox, readyPatient, staff } from './billing-fixtures.ts';

let ctx: TestContext;
let doctor: Patient;
let admin: Patient;
beforeAll(async () => {
  ctx = await createTestContext();
  doctor = await staff(ctx, 'doctor');
  admin = await staff(ctx, 'backoffice_admin');
});
afterAll(async () => ctx?.close());

/** A patient with a paid subscription consultation waiting for review, a message and a weight entry. */
async function patientWithHistory(tag: string) {
  const p = await readyPatient(ctx, 'weight_loss', 'eligible', { first_name: `First${tag}`, last_name: `Last${tag}` });
  await ctx.db.query('update users set email = $2 where id = $1', [p.id, `${tag.toLowerCase()}-${p.id.slice(0, 8)}@example.org`]);
  p.email = `${tag.toLowerCase()}-${p.id.slice(0, 8)}@example.org`;
  const { session } = await paySandbox(ctx, p, { category: 'weight_loss', plan: 'subscription' });
  const conv = (await call(ctx, 'GET', '/v1/users/conversations/', { token: p.access })).body.results[0];
  const sent = await call(ctx, 'POST', `/v1/users/conversations/${conv.id}/messages/`, { token: p.access, json: { content: `Message-${tag}` } });
  expect(sent.status).toBe(201);
  await ctx.db.query("insert into weight_entries (user_id, weight_kg, logged_on, note) values ($1, 97.5, '2026-01-02', $2)", [p.id, `Weight-${tag}`]);
  await ctx.db.query("insert into questionnaire_drafts (user_id, category, version_id, data) values ($1, 'hair_loss', $2, $3::jsonb)", [p.id, randomUUID(), JSON.stringify({ note: `Draft-${tag}` })]);
  return { p, consultationId: session.consultation_id as string, conversationId: conv.id as string };
}

describe('consents', () => {
  it('records decisions (201), keeps the history, answers the current state per kind and lists connector grants', async () => {
    const p = await seedPatient(ctx);
    const other = await seedPatient(ctx);
    expect((await call(ctx, 'GET', '/v1/users/me/consents/', { token: p.access })).body).toEqual({ current: [], history: [], connectors: [] });
    expect(await mayReceiveMarketing(ctx.deps, p.id)).toBe(false);

    const grant = await call(ctx, 'POST', '/v1/users/me/consents/', { token: p.access, json: { kind: 'marketing', version: '2025-01', granted: true } });
    expect(grant.status).toBe(201);
    expect(grant.body).toEqual({ id: expect.any(String), kind: 'marketing', version: '2025-01', granted: true, at: expect.any(String) });
    expect(await mayReceiveMarketing(ctx.deps, p.id)).toBe(true);
    await call(ctx, 'POST', '/v1/users/me/consents/', { token: p.access, json: { kind: 'health_data_processing', version: 'v3', granted: true } });
    const withdraw = await call(ctx, 'POST', '/v1/users/me/consents/', { token: p.access, json: { kind: 'marketing', version: '2025-01', granted: false } });
    expect(withdraw.status).toBe(201);
    expect(await mayReceiveMarketing(ctx.deps, p.id)).toBe(false);

    await ctx.db.query("insert into mcp_clients (id, client_name, redirect_uris) values ('privacy-test-client', 'Test Assistant', '[\"https://assistant.example/cb\"]') on conflict do nothing");
    await ctx.db.query("insert into mcp_grants (user_id, client_id, scopes, resource, revoked_at) values ($1, 'privacy-test-client', 'journal:read', 'https://x/mcp', now())", [p.id]);

    const got = await call(ctx, 'GET', '/v1/users/me/consents/', { token: p.access });
    expect(got.status).toBe(200);
    expect(got.body.history.map((c: any) => [c.kind, c.granted])).toEqual([['marketing', false], ['health_data_processing', true], ['marketing', true]]);
    expect(got.body.current.map((c: any) => [c.kind, c.granted]).sort()).toEqual([['health_data_processing', true], ['marketing', false]]);
    expect(got.body.connectors).toEqual([
      { id: expect.any(String), client_id: 'privacy-test-client', client_name: 'Test Assistant', scopes: ['journal:read'], granted_at: expect.any(String), revoked_at: expect.any(String) },
    ]);
    // Another account sees none of it.
    expect((await call(ctx, 'GET', '/v1/users/me/consents/', { token: other.access })).body).toEqual({ current: [], history: [], connectors: [] });
  });

  it('refuses a bad decision with field errors (400), and an anonymous caller (401)', async () => {
    const p = await seedPatient(ctx);
    const bad = await call(ctx, 'POST', '/v1/users/me/consents/', { token: p.access, json: { kind: 'cookies', version: '', granted: 'yes' } });
    expect(bad.status).toBe(400);
    expect(Object.keys(bad.body).sort()).toEqual(['granted', 'kind', 'version']);
    expect((await call(ctx, 'GET', '/v1/users/me/consents/')).status).toBe(401);
  });
});

describe('the access log', () => {
  it('lists every staff read and change of the record, only to its patient, paginated', async () => {
    const { p, consultationId, conversationId } = await patientWithHistory('Logged');
    const other = await seedPatient(ctx);
    expect((await call(ctx, 'GET', '/v1/users/me/access-log/', { token: p.access })).body).toEqual({ count: 0, next: null, previous: null, results: [] });

    expect((await call(ctx, 'GET', `/v1/clinician/consultations/${consultationId}/`, { token: doctor.access })).status).toBe(200);
    expect((await call(ctx, 'GET', `/v1/clinician/conversations/${conversationId}/messages/`, { token: doctor.access })).status).toBe(200);
    expect((await call(ctx, 'GET', `/v1/backoffice/users/?email=${encodeURIComponent(p.email)}`, { token: admin.access })).body.count).toBe(1);
    expect((await call(ctx, 'POST', `/v1/clinician/consultations/${consultationId}/request-information/`, { token: doctor.access, json: { decision_reason: 'Please send a recent weight.' } })).status).toBe(200);
    // A staff read that finds nothing logs nothing.
    expect((await call(ctx, 'GET', `/v1/clinician/consultations/${randomUUID()}/`, { token: doctor.access })).status).toBe(404);

    const log = await call(ctx, 'GET', '/v1/users/me/access-log/?limit=2', { token: p.access });
    expect(log.status).toBe(200);
    expect(log.body.count).toBe(4);
    expect(log.body.next).toContain('offset=2');
    const all = (await call(ctx, 'GET', '/v1/users/me/access-log/?limit=100', { token: p.access })).body.results;
    const seen = all.map((e: any) => `${e.actor_role}:${e.action}:${e.resource_type}:${e.resource_id}`).sort();
    expect(seen).toEqual(
      [
        `backoffice_admin:read:profile:${p.id}`,
        `doctor:read:consultation:${consultationId}`,
        `doctor:read:conversation:${conversationId}`,
        `doctor:write:consultation:${consultationId}`,
      ].sort(),
    );
    expect(all[0]).toEqual({ id: expect.any(String), at: expect.any(String), actor_role: 'doctor', actor_name: expect.stringMatching(/\S/), action: 'write', resource_type: 'consultation', resource_id: consultationId });
    expect((await call(ctx, 'GET', '/v1/users/me/access-log/', { token: other.access })).body.count).toBe(0);
  });

  it('logs the review queue and conversation list rows a doctor sees', async () => {
    const { p, consultationId, conversationId } = await patientWithHistory('Queue');
    await call(ctx, 'GET', '/v1/clinician/consultations/?limit=100&status=pending_review', { token: doctor.access });
    await call(ctx, 'GET', '/v1/clinician/conversations/?limit=100', { token: doctor.access });
    const rows = await ctx.db.query('select resource_type, resource_id from access_log where patient_id = $1', [p.id]);
    expect(rows).toEqual(expect.arrayContaining([{ resource_type: 'consultation', resource_id: consultationId }, { resource_type: 'conversation', resource_id: conversationId }]));
  });

  it('is append-only in the database: UPDATE and DELETE are refused', async () => {
    const { p, consultationId } = await patientWithHistory('Append');
    await call(ctx, 'GET', `/v1/clinician/consultations/${consultationId}/`, { token: doctor.access });
    await expect(ctx.db.query("update access_log set actor_name = 'nobody' where patient_id = $1", [p.id])).rejects.toThrow(/append-only/);
    await expect(ctx.db.query('delete from access_log where patient_id = $1', [p.id])).rejects.toThrow(/append-only/);
    expect(firstRow(await ctx.db.query('select count(*)::int as n from access_log where patient_id = $1', [p.id])).n).toBe(1);
  });
});

describe('the data export', () => {
  it('answers every record of the account as a JSON attachment, and nothing of another account', async () => {
    const a = await patientWithHistory('Alpha');
    const b = await patientWithHistory('Bravo');
    await call(ctx, 'POST', '/v1/users/me/consents/', { token: a.p.access, json: { kind: 'terms', version: 't1', granted: true } });
    await call(ctx, 'GET', `/v1/clinician/consultations/${a.consultationId}/`, { token: doctor.access });

    const res = await call(ctx, 'GET', '/v1/users/me/export/', { token: a.p.access });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.headers['content-disposition']).toMatch(/^attachment; filename="account-export-\d{4}-\d{2}-\d{2}\.json"$/);
    const x = res.body;
    for (const key of ['profile', 'consultations', 'questionnaire_progress', 'payments', 'orders', 'prescriptions', 'subscriptions', 'conversations', 'journal', 'referrals', 'consents', 'access_log', 'connected_apps', 'exported_at']) {
      expect(x, key).toHaveProperty(key);
    }
    expect(x.profile).toMatchObject({ id: a.p.id, email: a.p.email, first_name: 'FirstAlpha' });
    expect(x.consultations).toHaveLength(1);
    expect(x.consultations[0]).toMatchObject({ id: a.consultationId });
    expect(Array.isArray(x.consultations[0].form_snapshot)).toBe(true);
    expect(x.questionnaire_progress.submissions.length).toBeGreaterThan(0);
    expect(x.questionnaire_progress.drafts[0].data).toEqual({ note: 'Draft-Alpha' });
    expect(x.payments).toHaveLength(1);
    expect(x.payments[0].invoice_url).toMatch(new RegExp(`/v1/users/payments/${x.payments[0].id}/invoice/$`));
    expect(x.subscriptions).toHaveLength(1);
    expect(x.conversations[0].messages.map((m: any) => m.content)).toEqual(['Message-Alpha']);
    expect(x.journal.weight_entries.map((w: any) => w.note)).toEqual(['Weight-Alpha']);
    expect(Object.keys(x.journal).sort()).toEqual(['goal', 'injection_plan', 'injection_plans', 'injections', 'notes', 'side_effect_reports', 'weight_entries']);
    // The terms this test records, and the consent to write to the patient's own doctor a weight-loss patient gives.
    expect(x.consents.map((c: any) => c.kind).sort()).toEqual(['gp_sharing', 'terms']);
    expect(x.gp_letters).toEqual([]); // nothing approved yet: no letter (test/gp-letters.test.ts exports one)
    expect(x.access_log.map((e: any) => e.resource_id)).toContain(a.consultationId);
    expect(x.referrals.referral_code).toEqual(expect.any(String));

    // Not one trace of the other account.
    for (const needle of [b.p.id, b.p.email, 'FirstBravo', 'Message-Bravo', 'Weight-Bravo', 'Draft-Bravo', b.consultationId, b.conversationId]) {
      expect(res.text, needle).not.toContain(needle);
    }
    // And none of the account's secrets.
    expect(res.text).not.toMatch(/password_hash|argon2|document_number_enc|token_hash/);
  });

  it('is rate limited per account (429 throttled with Retry-After)', async () => {
    const p = await seedPatient(ctx);
    const other = await seedPatient(ctx);
    const { EXPORTS_PER_HOUR } = await import('../src/modules/privacy/routes.ts');
    for (let i = 0; i < EXPORTS_PER_HOUR; i++) expect((await call(ctx, 'GET', '/v1/users/me/export/', { token: p.access })).status).toBe(200);
    const over = await call(ctx, 'GET', '/v1/users/me/export/', { token: p.access });
    expect(over.status).toBe(429);
    expect(over.body.code).toBe('throttled');
    expect(over.headers['retry-after']).toBeDefined();
    expect((await call(ctx, 'GET', '/v1/users/me/export/', { token: other.access })).status).toBe(200);
  });
});

describe('erasure', () => {
  it('refuses a wrong or missing password with 400 {password}', async () => {
    const p = await seedPatient(ctx);
    await ctx.db.query('update users set password_hash = (select password_hash from users where id = $2) where id = $1', [p.id, doctor.id]);
    const wrong = await call(ctx, 'DELETE', '/v1/users/me/', { token: p.access, json: { password: 'not-the-password' } });
    expect(wrong.status).toBe(400);
    expect(wrong.body).toEqual({ password: [expect.any(String)] });
    const missing = await call(ctx, 'DELETE', '/v1/users/me/', { token: p.access, json: {} });
    expect(missing.status).toBe(400);
    expect(missing.body.password).toBeDefined();
    expect(firstRow(await ctx.db.query('select erased_at from users where id = $1', [p.id])).erased_at).toBeNull();
    // Staff accounts are not erased here.
    const st = await call(ctx, 'DELETE', '/v1/users/me/', { token: doctor.access, json: { password: PASSWORD } });
    expect(st.status).toBe(403);
    expect(st.body.code).toBe('permission_denied');
  });

  it('erases the account: plans canceled, sessions ended, sign-in refused, data gone from every doctor list except what retention keeps, mail sent', async () => {
    const { p, consultationId, conversationId } = await patientWithHistory('Erased');
    const keep = await patientWithHistory('Kept');
    // The account's password (seeded accounts have none): the doctor's hash is PASSWORD's.
    await ctx.db.query('update users set password_hash = (select password_hash from users where id = $2) where id = $1', [p.id, doctor.id]);
    const oldEmail = p.email;
    await ctx.flushMail();

    const res = await call(ctx, 'DELETE', '/v1/users/me/', { token: p.access, json: { password: PASSWORD } });
    expect(res.status).toBe(204);

    // Sessions ended, sign-in refused.
    expect((await call(ctx, 'GET', '/v1/users/profile/me/', { token: p.access })).status).toBe(401);
    expect((await call(ctx, 'POST', '/v1/users/token/refresh/', { brand: true, json: { refresh: p.refresh } })).status).toBe(401);
    expect((await call(ctx, 'POST', '/v1/users/token/', { brand: true, json: { email: oldEmail, password: PASSWORD } })).status).toBe(401);

    // The plan canceled; the open consultation, paid and never to be decided, refunded in full (retained, pseudonymised).
    expect(firstRow(await ctx.db.query('select status from subscriptions where user_id = $1', [p.id])).status).toBe('canceled');
    expect(firstRow(await ctx.db.query('select status from consultations where id = $1', [consultationId])).status).toBe('refunded');
    const kept = firstRow(await ctx.db.query('select count(*)::int as n, min(status) as status, sum(amount_cents - refunded_amount_cents)::int as net from payments where user_id = $1', [p.id]));
    expect(kept).toEqual({ n: 1, status: 'refunded', net: 0 });
    const u = firstRow(await ctx.db.query('select email, first_name, last_name, password_hash, date_of_birth, erased_at from users where id = $1', [p.id]));
    expect(u).toMatchObject({ first_name: '', last_name: '', password_hash: null, date_of_birth: null });
    expect(u.email).toBe(`erased-${p.id}@erased.invalid`);
    expect(u.erased_at).not.toBeNull();
    for (const table of ['weight_entries', 'questionnaire_drafts', 'conversations', 'message_files']) {
      expect(firstRow(await ctx.db.query(`select count(*)::int as n from ${table} where user_id = $1`, [p.id])).n, table).toBe(0);
    }

    // The confirmation mail went to the old address.
    await ctx.flushMail();
    // The account's locale was German.
    expect(ctx.mails.filter((m) => m.to === oldEmail).map((m) => m.subject)).toContain('Ihr Konto wurde gelöscht');

    // Every list a doctor or the back office sees: nothing of the erased account but the retained,
    // pseudonymised consultation; the other patient is still there whole.
    const queue = await call(ctx, 'GET', '/v1/clinician/consultations/?limit=100', { token: doctor.access });
    const convs = await call(ctx, 'GET', '/v1/clinician/conversations/?limit=100', { token: doctor.access });
    const users = await call(ctx, 'GET', `/v1/backoffice/users/?email=${encodeURIComponent(oldEmail)}`, { token: admin.access });
    for (const text of [queue.text, convs.text, users.text]) {
      for (const needle of [oldEmail, 'FirstErased', 'LastErased', 'Message-Erased']) expect(text).not.toContain(needle);
    }
    expect(convs.body.results.map((c: any) => c.id)).not.toContain(conversationId);
    expect(convs.body.results.map((c: any) => c.id)).toContain(keep.conversationId);
    expect(users.body.count).toBe(0);
    // Retention keeps the consultation (a medical record), refunded and pseudonymised.
    const cancelled = await call(ctx, 'GET', '/v1/clinician/consultations/?status=refunded&limit=100', { token: doctor.access });
    const retained = cancelled.body.results.find((c: any) => c.id === consultationId);
    expect(retained.user).toMatchObject({ id: p.id, first_name: '', last_name: '', email: `erased-${p.id}@erased.invalid` });
    expect(cancelled.text).not.toContain(oldEmail);
    expect(queue.text).toContain('FirstKept');
    expect((await call(ctx, 'GET', `/v1/clinician/conversations/${conversationId}/messages/`, { token: doctor.access })).status).toBe(404);

    // The same address registers a new, empty account.
    const reg = await call(ctx, 'POST', '/v1/users/register/', { brand: TEST_BRAND, json: { email: oldEmail, password: PASSWORD, first_name: 'New', last_name: 'Person' } });
    expect(reg.status).toBe(200);
    const otp = await latestCode(ctx, oldEmail);
    expect((await call(ctx, 'POST', '/v1/users/verify-email/', { brand: true, json: { email: oldEmail, otp } })).status).toBe(200);
    const tok = await call(ctx, 'POST', '/v1/users/token/', { brand: true, json: { email: oldEmail, password: PASSWORD } });
    expect(tok.status).toBe(200);
    const fresh = await call(ctx, 'GET', '/v1/users/me/export/', { token: tok.body.access });
    expect(fresh.body.profile.id).not.toBe(p.id);
    expect(fresh.body.consultations).toEqual([]);
    expect(fresh.body.payments).toEqual([]);
    expect(fresh.body.conversations).toEqual([]);
  });

  it('an account without a password confirms with DELETE after a recent sign-in', async () => {
    const p = await seedPatient(ctx, { google_sub: `sub-${randomUUID()}` });
    const missing = await call(ctx, 'DELETE', '/v1/users/me/', { token: p.access, json: {} });
    expect(missing.status).toBe(400);
    expect(missing.body.confirm).toBeDefined();
    await ctx.db.query("update refresh_families set created_at = now() - interval '11 minutes' where user_id = $1", [p.id]);
    const stale = await call(ctx, 'DELETE', '/v1/users/me/', { token: p.access, json: { confirm: 'DELETE' } });
    expect(stale.status).toBe(403);
    expect(stale.body).toEqual({ detail: expect.any(String), code: 'recent_sign_in_required' });
    await ctx.db.query("update refresh_families set created_at = now() - interval '2 minutes' where user_id = $1", [p.id]);
    expect((await call(ctx, 'DELETE', '/v1/users/me/', { token: p.access, json: { confirm: 'DELETE' } })).status).toBe(204);
    expect(firstRow(await ctx.db.query('select google_sub, erased_at from users where id = $1', [p.id]))).toMatchObject({ google_sub: null, erased_at: expect.any(Date) });
  });

  it('revokes connector grants and their tokens', async () => {
    const p = await seedPatient(ctx, { google_sub: `sub-${randomUUID()}` });
    await ctx.db.query("insert into mcp_clients (id, client_name, redirect_uris) values ('privacy-test-client', 'Test Assistant', '[\"https://assistant.example/cb\"]') on conflict do nothing");
    const g = firstRow(await ctx.db.query("insert into mcp_grants (user_id, client_id, scopes, resource) values ($1, 'privacy-test-client', 'journal:read', 'https://x/mcp') returning id", [p.id]));
    await ctx.db.query("insert into mcp_tokens (token_hash, grant_id, kind, scopes, resource, expires_at) values ($1, $2, 'access', 'journal:read', 'https://x/mcp', now() + interval '1 hour')", [randomUUID(), g.id]);
    expect((await call(ctx, 'DELETE', '/v1/users/me/', { token: p.access, json: { confirm: 'DELETE' } })).status).toBe(204);
    expect(firstRow(await ctx.db.query('select revoked_at from mcp_grants where id = $1', [g.id])).revoked_at).not.toBeNull();
    expect(firstRow(await ctx.db.query('select count(*)::int as n from mcp_tokens where grant_id = $1 and revoked_at is null', [g.id])).n).toBe(0);
  });
});
