// The Veriff adapter against a fake vendor (docs/verification.md): the session through its REST API,
// the signed decision webhook (HMAC-SHA256 of the raw body, constant-time check, time window,
// replay refused by event id), an outage answering 503, and concurrent starts and decisions.
import { createHmac, randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readyPatient, staff } from './billing-fixtures.ts';
import { call, createTestContext, firstRow, type Patient, type TestContext } from './support/harness.ts';

const API_KEY = 'fake-veriff-api-key';
const SECRET = 'fake-veriff-shared-secret-0123456789';

interface SessionRequest {
  headers: Record<string, string | string[] | undefined>;
  body: any;
}

let vendor: Server;
let vendorUp = true;
const requests: SessionRequest[] = [];
let ctx: TestContext;
let doctor: Patient;

beforeAll(async () => {
  vendor = createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString()));
    req.on('end', () => {
      if (!vendorUp) {
        res.writeHead(502).end('bad gateway');
        return;
      }
      if (req.method === 'POST' && req.url === '/v1/sessions') {
        const body = JSON.parse(raw);
        requests.push({ headers: req.headers, body });
        if (req.headers['x-auth-client'] !== API_KEY) {
          res.writeHead(401, { 'content-type': 'application/json' }).end('{"status":"fail"}');
          return;
        }
        const id = randomUUID();
        res.writeHead(201, { 'content-type': 'application/json' }).end(JSON.stringify({ status: 'success', verification: { id, url: `https://magic.veriff.me/v/${id}`, vendorData: body.verification.vendorData, status: 'created' } }));
        return;
      }
      res.writeHead(404).end();
    });
  });
  await new Promise<void>((resolve) => vendor.listen(0, '127.0.0.1', resolve));
  const port = (vendor.address() as AddressInfo).port;
  ctx = await createTestContext({ IDENTITY_PROVIDER: 'veriff', IDENTITY_VERIFF_BASE_URL: `http://127.0.0.1:${port}`, IDENTITY_VERIFF_API_KEY: API_KEY, IDENTITY_VERIFF_SHARED_SECRET: SECRET });
  doctor = await staff(ctx, 'doctor');
});
afterAll(async () => {
  await ctx?.close();
  await new Promise<void>((resolve) => vendor.close(() => resolve()));
});

/** A decision webhook as Veriff sends it, signed with `secret`. */
function decision(sessionId: string, status: string, person: Record<string, unknown>, opts: { secret?: string; at?: Date; attemptId?: string; authClient?: string } = {}) {
  const body = JSON.stringify({
    status: 'success',
    verification: {
      id: sessionId,
      attemptId: opts.attemptId ?? 'a1',
      code: status === 'approved' ? 9001 : 9102,
      status,
      reason: status === 'declined' ? 'Physical document not used' : null,
      decisionTime: (opts.at ?? ctx.deps.clock.now()).toISOString(),
      person,
      document: { number: 'VX1234567', type: 'PASSPORT', country: 'DE', validUntil: '2031-01-01' },
    },
    technicalData: { ip: '203.0.113.9' },
  });
  const signature = createHmac('sha256', opts.secret ?? SECRET).update(body).digest('hex');
  return { payload: body, headers: { 'content-type': 'application/json', 'x-auth-client': opts.authClient ?? API_KEY, 'x-hmac-signature': signature } };
}

async function startSession(p: Patient) {
  const res = await call(ctx, 'POST', '/v1/users/verification/identity/', { token: p.access, json: {} });
  expect(res.status, res.text).toBe(201);
  const id = firstRow(await ctx.db.query(`select provider_session_id from identity_verifications where user_id = $1 and status = 'pending'`, [p.id])).provider_session_id as string;
  return { res, sessionId: id };
}

const status = async (p: Patient) => (await call(ctx, 'GET', '/v1/users/verification/', { token: p.access })).body.identity.status;
const hook = (body: { payload: string; headers: Record<string, string> }) => call(ctx, 'POST', '/v1/webhooks/identity/veriff/', body);

describe('Veriff identity provider', () => {
  it('starts a session with the vendor (API key, our reference, the profile name) and answers its hosted page', async () => {
    const p = await readyPatient(ctx);
    const { res, sessionId } = await startSession(p);
    expect(res.body).toEqual({ status: 'pending', verification_url: `https://magic.veriff.me/v/${sessionId}` });
    const sent = requests.at(-1)!;
    expect(sent.headers['x-auth-client']).toBe(API_KEY);
    const row = firstRow(await ctx.db.query('select id from identity_verifications where user_id = $1', [p.id]));
    expect(sent.body.verification).toMatchObject({ vendorData: row.id, person: { firstName: 'Ada', lastName: 'Lovelace' }, callback: 'http://api.test.local/verification/?identity=done' });
    // The sandbox page does not exist with a real provider.
    expect((await call(ctx, 'GET', '/sandbox/identity/idv_sandbox_00000000000000000000000000000000/')).status).toBe(404);
  });

  it('an approved decision matching the profile verifies; the same event again changes nothing (duplicate)', async () => {
    const p = await readyPatient(ctx);
    const { sessionId } = await startSession(p);
    const body = decision(sessionId, 'approved', { firstName: 'ADA', lastName: 'LOVELACE', dateOfBirth: '1985-04-12' });
    const first = await hook(body);
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ received: true, duplicate: false });
    expect(await status(p)).toBe('verified');
    const replay = await hook(body);
    expect(replay.body).toEqual({ received: true, duplicate: true });
    expect(Number(firstRow(await ctx.db.query('select count(*)::int as n from identity_webhook_events where event_id like $1', [`${sessionId}:%`])).n)).toBe(1);
  });

  it('a name or birth date that differs goes to the desk (needs_review); a later decline of the same session changes nothing', async () => {
    const p = await readyPatient(ctx);
    const { sessionId } = await startSession(p);
    await hook(decision(sessionId, 'approved', { firstName: { value: 'Ada' }, lastName: { value: 'Lovelace' }, dateOfBirth: { value: '1984-04-12' } }));
    expect(await status(p)).toBe('needs_review');
    const q = await call(ctx, 'GET', '/v1/clinician/identity-verifications/?limit=100', { token: doctor.access });
    expect(q.body.results.find((v: any) => v.user_id === p.id)).toMatchObject({ provider: 'veriff', mismatches: ['date_of_birth'], images: { id_photo_url: null, selfie_url: null }, document: { date_of_birth: '1984-04-12', document_type: 'PASSPORT' } });
    const late = await hook(decision(sessionId, 'declined', {}, { attemptId: 'a2' }));
    expect(late.body).toEqual({ received: true, duplicate: false });
    expect(await status(p)).toBe('needs_review');
  });

  it('a declined decision rejects; an expired one lets the patient start again', async () => {
    const p = await readyPatient(ctx);
    const { sessionId } = await startSession(p);
    await hook(decision(sessionId, 'declined', {}));
    expect(await status(p)).toBe('rejected');
    const q = await readyPatient(ctx);
    const s2 = await startSession(q);
    await hook(decision(s2.sessionId, 'expired', {}));
    expect(await status(q)).toBe('not_started');
    const again = await startSession(q);
    expect(again.sessionId).not.toBe(s2.sessionId);
  });

  it('refuses a wrong signature, a wrong integration, a tampered body and a stale decision, and changes nothing', async () => {
    const p = await readyPatient(ctx);
    const { sessionId } = await startSession(p);
    const person = { firstName: 'Ada', lastName: 'Lovelace', dateOfBirth: '1985-04-12' };
    const wrongSecret = await hook(decision(sessionId, 'approved', person, { secret: 'another-secret-0123456789abcdef' }));
    expect(wrongSecret.status).toBe(400);
    expect(wrongSecret.body).toEqual({ detail: 'The webhook signature does not verify.', code: 'invalid_signature' });
    const wrongClient = await hook(decision(sessionId, 'approved', person, { authClient: 'someone-else' }));
    expect(wrongClient.body.code).toBe('invalid_signature');
    const signed = decision(sessionId, 'declined', person);
    const tampered = await hook({ ...signed, payload: signed.payload.replace('"declined"', '"approved"') });
    expect(tampered.body.code).toBe('invalid_signature');
    const noHeaders = await call(ctx, 'POST', '/v1/webhooks/identity/veriff/', { payload: signed.payload, headers: { 'content-type': 'application/json' } });
    expect(noHeaders.status).toBe(400);
    const stale = await hook(decision(sessionId, 'approved', person, { at: new Date(ctx.deps.clock.now().getTime() - 25 * 3600 * 1000) }));
    expect(stale.status).toBe(400);
    expect(stale.body).toEqual({ detail: 'The event is outside the accepted time window.', code: 'stale_webhook' });
    expect(await status(p)).toBe('pending');
    expect(Number(firstRow(await ctx.db.query('select count(*)::int as n from identity_webhook_events where event_id like $1', [`${sessionId}:%`])).n)).toBe(0);
    // Another provider's path is not this service's.
    expect((await call(ctx, 'POST', '/v1/webhooks/identity/onfido/', signed)).status).toBe(404);
  });

  it('the vendor down: 503 identity_provider_unavailable, nothing stored', async () => {
    const p = await readyPatient(ctx);
    vendorUp = false;
    try {
      const res = await call(ctx, 'POST', '/v1/users/verification/identity/', { token: p.access, json: {} });
      expect(res.status).toBe(503);
      expect(res.body).toEqual({ detail: 'The identity verification provider is not answering. Please try again in a few minutes.', code: 'identity_provider_unavailable' });
      expect(res.headers['retry-after']).toBe('30');
    } finally {
      vendorUp = true;
    }
    expect(await ctx.db.query('select id from identity_verifications where user_id = $1', [p.id])).toEqual([]);
  });

  it('concurrent starts keep one open session; concurrent desk decisions decide once', async () => {
    const p = await readyPatient(ctx);
    const starts = await Promise.all([0, 1, 2].map(() => call(ctx, 'POST', '/v1/users/verification/identity/', { token: p.access, json: {} })));
    expect(starts.map((s) => s.status)).toEqual([201, 201, 201]);
    expect(new Set(starts.map((s) => s.body.verification_url)).size).toBe(1);
    expect(await ctx.db.query(`select id from identity_verifications where user_id = $1 and status = 'pending'`, [p.id])).toHaveLength(1);
    const sessionId = firstRow(await ctx.db.query(`select provider_session_id from identity_verifications where user_id = $1`, [p.id])).provider_session_id;
    await hook(decision(sessionId, 'approved', { firstName: 'Ada', lastName: 'Lovelace', dateOfBirth: '2000-01-01' }));
    const id = firstRow(await ctx.db.query('select id from identity_verifications where user_id = $1', [p.id])).id;
    const decisions = await Promise.all(['verified', 'rejected'].map((d) => call(ctx, 'POST', `/v1/clinician/identity-verifications/${id}/decide/`, { token: doctor.access, json: { decision: d, reason: 'Checked the document photo against the profile.' } })));
    expect(decisions.map((d) => d.status).sort()).toEqual([200, 409]);
  });
});
