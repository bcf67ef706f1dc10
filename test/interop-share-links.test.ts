// Share links to the patient summary (SMART Health Links, docs/interoperability.md): the link carries
// the key, the server keeps only the JWE; the manifest serves it to whoever holds the link, with a
// passcode and its attempt limit (also under parallel attempts); each use is listed and in the access
// log; revoked or expired links answer 404; another account's link is 404 like a missing one.
import { randomUUID } from 'node:crypto';
import { validateResource } from '@medplum/core';
import type { Bundle, Composition } from '@medplum/fhirtypes';
import { compactDecrypt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callAsFresh, paySandbox, readyPatient } from './billing-fixtures.ts';
import { call, createTestContext, newStaff, seedPatient, type Patient, type TestContext } from './support/harness.ts';
import { indexFhirDefinitions } from './support/fhir.ts';
import { DocumentChecker, publishedDocuments } from './support/openapi.ts';

let ctx: TestContext;
let checker: DocumentChecker;
let doctor: Patient;
beforeAll(async () => {
  indexFhirDefinitions();
  ctx = await createTestContext();
  checker = new DocumentChecker((await publishedDocuments(ctx)).all);
  doctor = await newStaff(ctx, 'doctor');
});
afterAll(async () => ctx?.close());

interface ShlPayload {
  url: string;
  key: string;
  exp: number;
  flag?: string;
  label: string;
  v: number;
}
const payloadOf = (shlink: string): ShlPayload => JSON.parse(Buffer.from(shlink.replace(/^shlink:\//, ''), 'base64url').toString('utf8'));
const manifestPath = (p: ShlPayload) => new URL(p.url).pathname;
const open = (p: ShlPayload, json: Record<string, unknown>) => checker.call(ctx, 'POST', manifestPath(p), { json });
const create = (p: Patient, json: Record<string, unknown>) => callAsFresh(ctx, p, 'POST', '/v1/users/me/share-links/', json);

async function treated(tag: string) {
  const p = await readyPatient(ctx, 'weight_loss', 'eligible', { first_name: `Shl${tag}`, last_name: 'Patient' });
  const { session } = await paySandbox(ctx, p, { category: 'weight_loss', plan: 'one_off' });
  expect((await callAsFresh(ctx, doctor, 'POST', `/v1/clinician/consultations/${session.consultation_id}/approve/`, {})).status).toBe(200);
  return p;
}

describe('share links', () => {
  it('creates a SMART Health Link whose manifest serves a JWE only the link’s key opens; each use is listed and in the access log', async () => {
    const a = await treated('Alpha');
    const created = await checker.call(ctx, 'POST', '/v1/users/me/share-links/', { token: a.access, json: { expires_in_days: 7, label: 'For Dr. Weber' } });
    expect(created.status, created.text).toBe(201);
    expect(created.body.url).toBe(`${ctx.config.WEB_APP_URL}/shl#${created.body.shlink}`);
    const payload = payloadOf(created.body.shlink);
    expect(payload).toEqual({ url: expect.stringMatching(/^http:\/\/api\.test\.local\/v1\/public\/shl\/[A-Za-z0-9_-]{43}\/$/), key: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/), exp: Math.floor(Date.parse(created.body.expires_at) / 1000), label: 'For Dr. Weber', v: 1 });
    expect(Date.parse(created.body.expires_at) - Date.parse(created.body.created_at)).toBe(7 * 86_400_000);

    // The server stores the ciphertext only: not the key, not the summary's text.
    const [row] = await ctx.db.query('select * from share_links where id = $1', [created.body.id]);
    expect(JSON.stringify(row)).not.toContain(payload.key);
    expect(JSON.stringify(row)).not.toContain('ShlAlpha');

    const served = await open(payload, { recipient: 'Dr. Weber, Praxis am Markt' });
    expect(served.status, served.text).toBe(200);
    expect(served.body.files).toHaveLength(1);
    expect(served.body.files[0].contentType).toBe('application/fhir+json');
    const jwe = served.body.files[0].embedded as string;
    expect(JSON.parse(Buffer.from(jwe.split('.')[0]!, 'base64url').toString())).toEqual({ alg: 'dir', enc: 'A256GCM', cty: 'application/fhir+json' });
    const { plaintext } = await compactDecrypt(jwe, Buffer.from(payload.key, 'base64url'));
    const bundle = JSON.parse(new TextDecoder().decode(plaintext)) as Bundle;
    expect(() => validateResource(bundle)).not.toThrow();
    expect((bundle.entry![0]!.resource as Composition).type.coding![0]!.code).toBe('60591-5');
    expect(JSON.stringify(bundle)).toContain('ShlAlpha');
    // Another key does not open it.
    await expect(compactDecrypt(jwe, new Uint8Array(32))).rejects.toThrow();

    // Listed with the use; the access log names the recipient.
    const list = await checker.call(ctx, 'GET', '/v1/users/me/share-links/', { token: a.access });
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({ count: 1, results: [{ id: created.body.id, label: 'For Dr. Weber', passcode: false, status: 'active', revoked_at: null, accesses: [{ recipient: 'Dr. Weber, Praxis am Markt', outcome: 'served' }] }] });
    const log = await call(ctx, 'GET', '/v1/users/me/access-log/', { token: a.access });
    expect(log.body.results.filter((e: { resource_type: string }) => e.resource_type === 'share_link')).toEqual([expect.objectContaining({ actor_role: 'link_recipient', actor_name: 'Dr. Weber, Praxis am Markt', action: 'read', resource_type: 'share_link', resource_id: created.body.id })]);

    // A manifest call without a recipient is 400; an unknown link 404.
    expect(await open(payload, {})).toMatchObject({ status: 400, body: { recipient: [expect.any(String)] } });
    const unknown = await open({ ...payload, url: `http://api.test.local/v1/public/shl/${'A'.repeat(43)}/` }, { recipient: 'x' });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ detail: 'Not found.' });

    // Revoked: 404 exactly like an unknown link, and the list says so; revoking again is 204.
    expect((await checker.call(ctx, 'DELETE', `/v1/users/me/share-links/${created.body.id}/`, { token: a.access })).status).toBe(204);
    const gone = await open(payload, { recipient: 'Dr. Weber' });
    expect({ status: gone.status, body: gone.body }).toEqual({ status: unknown.status, body: unknown.body });
    expect((await call(ctx, 'DELETE', `/v1/users/me/share-links/${created.body.id}/`, { token: a.access })).status).toBe(204);
    expect((await call(ctx, 'GET', '/v1/users/me/share-links/', { token: a.access })).body.results[0].status).toBe('revoked');
  });

  it('refuses bad input with field errors', async () => {
    const p = await seedPatient(ctx);
    for (const [json, field] of [
      [{}, 'expires_in_days'],
      [{ expires_in_days: 0 }, 'expires_in_days'],
      [{ expires_in_days: 366 }, 'expires_in_days'],
      [{ expires_in_days: 1.5 }, 'expires_in_days'],
      [{ expires_in_days: 3, passcode: '12' }, 'passcode'],
      [{ expires_in_days: 3, label: 'x'.repeat(81) }, 'label'],
    ] as const) {
      const r = await call(ctx, 'POST', '/v1/users/me/share-links/', { token: p.access, json });
      expect(r.status, JSON.stringify(json)).toBe(400);
      expect(Object.keys(r.body)).toEqual([field]);
    }
    expect(await ctx.db.query('select id from share_links where user_id = $1', [p.id])).toEqual([]);
  });

  it('with a passcode: 401 with the attempts left, counted exactly under parallel attempts, then 404 for everyone', async () => {
    const p = await treated('Bravo');
    const created = await create(p, { expires_in_days: 3, passcode: 'correct-horse' });
    expect(created.status).toBe(201);
    const payload = payloadOf(created.body.shlink);
    expect(payload.flag).toBe('P');

    const none = await open(payload, { recipient: 'Nurse' });
    expect(none.status).toBe(401);
    expect(none.body).toEqual({ detail: 'The passcode is missing or wrong.', code: 'share_link_passcode_invalid', remainingAttempts: 9 });
    const ok = await open(payload, { recipient: 'Nurse', passcode: 'correct-horse' });
    expect(ok.status).toBe(200);

    // 12 wrong attempts at once: exactly the 9 left are counted down (each one once), then the link is locked.
    const attempts = await Promise.all(Array.from({ length: 12 }, (_, i) => call(ctx, 'POST', manifestPath(payload), { json: { recipient: `Guess ${i}`, passcode: `wrong-${i}` } })));
    const remaining = attempts.filter((r) => r.status === 401).map((r) => r.body.remainingAttempts as number).sort((x, y) => x - y);
    expect(remaining).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);
    expect(attempts.filter((r) => r.status === 404)).toHaveLength(3);
    // Locked: even the right passcode is 404 now.
    expect((await open(payload, { recipient: 'Nurse', passcode: 'correct-horse' })).status).toBe(404);
    const listed = (await callAsFresh(ctx, p, 'GET', '/v1/users/me/share-links/')).body.results[0];
    expect(listed.status).toBe('locked');
    expect(listed.accesses.filter((x: { outcome: string }) => x.outcome === 'wrong_passcode')).toHaveLength(10);
    expect(listed.accesses.filter((x: { outcome: string }) => x.outcome === 'served')).toHaveLength(1);
  });

  it('an expired link answers 404', async () => {
    const p = await treated('Charlie');
    const created = await create(p, { expires_in_days: 1 });
    const payload = payloadOf(created.body.shlink);
    expect((await open(payload, { recipient: 'GP' })).status).toBe(200);
    await ctx.deps.clock.advance(86_400_000 + 1_000);
    expect((await open(payload, { recipient: 'GP' })).status).toBe(404);
    expect((await callAsFresh(ctx, p, 'GET', '/v1/users/me/share-links/')).body.results[0].status).toBe('expired');
  });

  it('another account’s link: not listed, and revoking it is 404 exactly like a missing id', async () => {
    const a = await treated('Delta');
    const b = await seedPatient(ctx);
    const created = await create(a, { expires_in_days: 2 });
    const theirs = await callAsFresh(ctx, b, 'DELETE', `/v1/users/me/share-links/${created.body.id}/`);
    const missing = await callAsFresh(ctx, b, 'DELETE', `/v1/users/me/share-links/${randomUUID()}/`);
    expect(theirs.status).toBe(404);
    expect({ status: theirs.status, body: theirs.body }).toEqual({ status: missing.status, body: missing.body });
    expect((await callAsFresh(ctx, b, 'GET', '/v1/users/me/share-links/')).body).toMatchObject({ count: 0, results: [] });
    // Still live for its owner's recipients.
    expect((await open(payloadOf(created.body.shlink), { recipient: 'GP' })).status).toBe(200);
    expect((await call(ctx, 'POST', '/v1/users/me/share-links/', { json: { expires_in_days: 2 } })).status).toBe(401);
  });
});
