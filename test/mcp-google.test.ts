// Google sign-in on the connector's sign-in page, against a local JWKS server with real RS256-signed
// ID tokens (as test/accounts-google.test.ts does for /v1/users/google-login/): the button and its
// CSP, the same CSRF check as the password form, the account rules (linking, creation, disabled,
// staff) and no /v1/ session left behind.
import { createHash } from 'node:crypto';
import { generateKeyPair } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGoogleStandIn, type GoogleStandIn } from './support/google.ts';
import { hidden, patientWithPassword } from './mcp-support.ts';
import { TEST_BASE_URL, call, createTestContext, newStaff, uniqueEmail, type TestContext, firstRow } from './support/harness.ts';

const AUDIENCE = 'connector-test.apps.googleusercontent.com';
const MCP = `${TEST_BASE_URL}/mcp`;
const REDIRECT = 'https://assistant.example/oauth/callback';
const VERIFIER = 'G'.repeat(20) + '-._~' + 'q'.repeat(30);
const CHALLENGE = createHash('sha256').update(VERIFIER).digest('base64url');

let ctx: TestContext;
let plain: TestContext;
let googleStandIn: GoogleStandIn;
let clientId: string;

beforeAll(async () => {
  googleStandIn = await startGoogleStandIn(AUDIENCE, 'mcp-google');
  ctx = await createTestContext({ GOOGLE_CLIENT_IDS: AUDIENCE, GOOGLE_JWKS_URL: googleStandIn.jwksUrl });
  plain = await createTestContext({ GOOGLE_CLIENT_IDS: '' });
  clientId = (await register(ctx)).client_id;
});
afterAll(async () => {
  await ctx?.close();
  await plain?.close();
  googleStandIn?.close();
});

async function register(c: TestContext) {
  const r = await call(c, 'POST', '/oauth/register', { json: { client_name: 'Assistant', redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' } });
  expect(r.status, r.text).toBe(201);
  return r.body as { client_id: string };
}

const idToken = (claims: Record<string, unknown>, key?: CryptoKey) => googleStandIn.idToken(claims, key);

const authorizeUrl = (id: string, extra: Record<string, string> = {}) =>
  `/oauth/authorize?${new URLSearchParams({ response_type: 'code', client_id: id, redirect_uri: REDIRECT, code_challenge: CHALLENGE, code_challenge_method: 'S256', scope: 'patient:read', state: 'g-1', resource: MCP, ...extra })}`;

const formPost = (c: TestContext, url: string, fields: Record<string, string>, headers: Record<string, string> = {}) =>
  call(c, 'POST', url, { payload: new URLSearchParams(fields).toString(), headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers } });

/** Opens the authorization page and posts the Google credential the way the page's callback does. */
async function googleFlow(credential: string, opts: { csrf?: string; noCookie?: boolean; extra?: Record<string, string> } = {}) {
  const start = await call(ctx, 'GET', authorizeUrl(clientId, opts.extra));
  expect(start.status).toBe(200);
  const cookie = String(start.headers['set-cookie']).split(';')[0] ?? '';
  const request = hidden(start.text, 'request');
  const csrf = hidden(start.text, 'csrf');
  const signIn = await formPost(ctx, '/oauth/sign-in', { request, csrf: opts.csrf ?? csrf, credential }, opts.noCookie ? {} : { cookie });
  return { start, signIn, cookie, request, csrf };
}

/** The account's /v1/ sessions: not revoked, and all ever opened. */
async function liveSessions(userId: string) {
  const row = firstRow(await ctx.db.query<{ n: number }>('select count(*)::int as n from refresh_families where user_id = $1 and revoked_at is null', [userId]));
  return row.n;
}
async function sessionsOpened(userId: string) {
  const row = firstRow(await ctx.db.query<{ n: number }>('select count(*)::int as n from refresh_families where user_id = $1', [userId]));
  return row.n;
}

describe('the Google button on the sign-in page', () => {
  it('is offered with the configured client id, a nonce-bound callback and a CSP that allows Google Identity Services only', async () => {
    const r = await call(ctx, 'GET', authorizeUrl(clientId, { ui_locales: 'fr' }));
    expect(r.status).toBe(200);
    expect(r.text).toContain(`data-client_id="${AUDIENCE}"`);
    expect(r.text).toContain('data-callback="mcpGoogleCredential"');
    expect(r.text).toContain('data-locale="fr"');
    expect(r.text).toContain('<script nonce="');
    expect(r.text).toContain('src="https://accounts.google.com/gsi/client"');
    // The Google form carries the same request id and CSRF token as the password form.
    const googleForm = /<form id="google-form"[\s\S]*?<\/form>/.exec(r.text)?.[0] ?? '';
    expect(googleForm).toContain(`name="request" value="${hidden(r.text, 'request')}"`);
    expect(googleForm).toContain(`name="csrf" value="${hidden(r.text, 'csrf')}"`);
    const nonce = /<script nonce="([^"]+)"/.exec(r.text)![1];
    const csp = String(r.headers['content-security-policy']);
    expect(csp).toContain(`script-src 'nonce-${nonce}' https://accounts.google.com/gsi/client`);
    expect(csp).toContain('frame-src https://accounts.google.com/gsi/');
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("form-action 'self'");
    expect(r.text).toContain('<meta name="referrer" content="strict-origin">');
    // A fresh nonce per page.
    const again = await call(ctx, 'GET', authorizeUrl(clientId));
    expect(/<script nonce="([^"]+)"/.exec(again.text)![1]).not.toBe(nonce);
  });

  it('is not offered, and a posted credential is not accepted, when Google sign-in is not configured', async () => {
    const id = (await register(plain)).client_id;
    const r = await call(plain, 'GET', authorizeUrl(id));
    expect(r.status).toBe(200);
    expect(r.text).not.toContain('accounts.google.com');
    expect(r.text).not.toContain('google-form');
    expect(String(r.headers['content-security-policy'])).not.toContain('script-src');
    expect(r.text).toContain('<meta name="referrer" content="no-referrer">');
    const cookie = String(r.headers['set-cookie']).split(';')[0] ?? '';
    const signIn = await formPost(plain, '/oauth/sign-in', { request: hidden(r.text, 'request'), csrf: hidden(r.text, 'csrf'), credential: await idToken({ email: uniqueEmail('gx') }) }, { cookie });
    expect(signIn.status).toBe(401);
    expect(signIn.text).toContain('No active account found');
  });
});

describe('Google sign-in', () => {
  it('signs in a patient whose account has the Google address, then consent gives a working token; no /v1/ session is left', async () => {
    const p = await patientWithPassword(ctx);
    const sessionsBefore = await liveSessions(p.id); // the harness's own sign-in
    const openedBefore = await sessionsOpened(p.id);
    const flow = await googleFlow(await idToken({ email: p.email }));
    expect(flow.signIn.status, flow.signIn.text).toBe(200);
    expect(flow.signIn.text).toContain(`Signed in as ${p.email}`);
    expect(await liveSessions(p.id)).toBe(sessionsBefore);
    // Not even opened and ended: the connector's Google sign-in makes no /v1/ session at all.
    expect(await sessionsOpened(p.id)).toBe(openedBefore);
    const consent = await formPost(ctx, '/oauth/consent', { request: flow.request, csrf: flow.csrf, decision: 'allow' }, { cookie: flow.cookie });
    expect(consent.status).toBe(303);
    const location = new URL(String(consent.headers.location));
    expect(location.searchParams.get('iss')).toBe(TEST_BASE_URL);
    const t = await formPost(ctx, '/oauth/token', { grant_type: 'authorization_code', code: location.searchParams.get('code')!, code_verifier: VERIFIER, redirect_uri: REDIRECT, client_id: clientId, resource: MCP });
    expect(t.status, t.text).toBe(200);
    const profile = await call(ctx, 'POST', '/mcp', {
      json: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_profile_summary', arguments: {} } },
      headers: { accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25', authorization: `Bearer ${t.body.access_token}` },
    });
    expect(profile.status).toBe(200);
    expect(profile.body.result.structuredContent.email).toBe(p.email);
    const linked = firstRow(await ctx.db.query<{ google_sub: string | null }>('select google_sub from users where id = $1', [p.id]));
    expect(linked.google_sub).toMatch(/^mcp-google-/);
  });

  it('creates the account of a new Google user, as /v1/users/google-login/ does, in the page locale', async () => {
    const email = uniqueEmail('gnew');
    const flow = await googleFlow(await idToken({ email }), { extra: { ui_locales: 'de' } });
    expect(flow.signIn.status).toBe(200);
    expect(flow.signIn.text).toContain('Angemeldet als');
    const user = firstRow(await ctx.db.query<{ id: string; locale: string }>('select id, locale from users where email = $1', [email]));
    expect(user.locale).toBe('de');
    expect(await liveSessions(user.id)).toBe(0);
  });

  it('applies the CSRF check before looking at the credential', async () => {
    const email = uniqueEmail('gcsrf');
    const noCookie = await googleFlow(await idToken({ email }), { noCookie: true });
    expect(noCookie.signIn.status).toBe(400);
    expect(noCookie.signIn.text).toContain('expired');
    const wrong = await googleFlow(await idToken({ email }), { csrf: 'x'.repeat(32) });
    expect(wrong.signIn.status).toBe(400);
    expect(await ctx.db.query('select 1 from users where email = $1', [email])).toHaveLength(0);
  });

  it('refuses a credential for another audience, or signed by another key, with the sign-in page again', async () => {
    const other = (await generateKeyPair('RS256')).privateKey as CryptoKey;
    for (const credential of [await idToken({ email: uniqueEmail('gaud'), aud: 'someone-else' }), await idToken({ email: uniqueEmail('gkey') }, other), 'not-a-jwt']) {
      const flow = await googleFlow(credential);
      expect(flow.signIn.status).toBe(401);
      expect(flow.signIn.text).toContain('Google sign-in failed');
      expect(flow.signIn.text).toContain('id="google-form"');
    }
  });

  it('refuses a disabled account (403) and staff: a doctor by address (not linked) and a doctor already linked to Google', async () => {
    const disabled = await patientWithPassword(ctx, { disabled_at: new Date() });
    const d = await googleFlow(await idToken({ email: disabled.email }));
    expect(d.signIn.status).toBe(403);
    expect(d.signIn.text).toContain('This account is disabled.');

    const doctor = await newStaff(ctx, 'doctor');
    const byEmail = await googleFlow(await idToken({ email: doctor.email }));
    expect(byEmail.signIn.status).toBe(400);
    expect(byEmail.signIn.text).toContain('This account cannot sign in with Google.');

    const linkedDoctor = await newStaff(ctx, 'doctor');
    const doctorSub = `doctor-sub-${Date.now()}`;
    await ctx.db.query('update users set google_sub = $2 where id = $1', [linkedDoctor.id, doctorSub]);
    const before = await liveSessions(linkedDoctor.id);
    const linked = await googleFlow(await idToken({ email: linkedDoctor.email, sub: doctorSub }));
    expect(linked.signIn.status).toBe(403);
    expect(linked.signIn.text).toContain('Staff accounts cannot connect an assistant');
    expect(await liveSessions(linkedDoctor.id)).toBe(before);
    // Consent cannot follow a refused sign-in.
    expect((await formPost(ctx, '/oauth/consent', { request: linked.request, csrf: linked.csrf, decision: 'allow' }, { cookie: linked.cookie })).status).toBe(400);
  });

  it('tells a Google-only account on the password form to use the Google button', async () => {
    const email = uniqueEmail('gonly');
    expect((await googleFlow(await idToken({ email }))).signIn.status).toBe(200);
    const start = await call(ctx, 'GET', authorizeUrl(clientId));
    const cookie = String(start.headers['set-cookie']).split(';')[0] ?? '';
    const r = await formPost(ctx, '/oauth/sign-in', { request: hidden(start.text, 'request'), csrf: hidden(start.text, 'csrf'), email, password: 'Whatever-Password-1' }, { cookie });
    expect(r.status).toBe(400);
    expect(r.text).toContain('use “Sign in with Google”');
  });
});
