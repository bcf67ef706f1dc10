// The connector's authorization server and resource server, request by request: metadata and the
// 401 challenge, registration rules, exact redirect URIs, PKCE S256 only, the sign-in and consent
// pages (account rules, CSRF, locales), resource binding both ways, expiry and revocation, refresh
// rotation with reuse detection, code reuse, Origin validation and the per-client call budget.
import { createHash } from 'node:crypto';
import { Secret, TOTP } from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256 } from '../src/lib/crypto.ts';
import { hidden, patientWithPassword } from './mcp-support.ts';
import { PASSWORD, TEST_BASE_URL, call, createTestContext, newStaff, type Patient, type TestContext } from './support/harness.ts';

let ctx: TestContext;
let p: Patient;
beforeAll(async () => {
  ctx = await createTestContext({ MCP_TOOL_CALLS_PER_MINUTE: '4', MCP_ALLOWED_ORIGINS: 'https://assistant.example' });
  p = await patientWithPassword(ctx);
});
afterAll(async () => ctx?.close());

const MCP = `${TEST_BASE_URL}/mcp`;
const REDIRECT = 'https://assistant.example/oauth/callback';
const VERIFIER = 'A'.repeat(20) + '-._~' + 'z'.repeat(30);
const CHALLENGE = createHash('sha256').update(VERIFIER).digest('base64url');

const formPost = (url: string, fields: Record<string, string>, headers: Record<string, string> = {}) =>
  call(ctx, 'POST', url, { payload: new URLSearchParams(fields).toString(), headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers } });

async function register(extra: Record<string, unknown> = {}) {
  const r = await call(ctx, 'POST', '/oauth/register', { json: { client_name: 'Assistant', redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none', ...extra } });
  expect(r.status, r.text).toBe(201);
  return r.body;
}

function authorizeUrl(clientId: string, extra: Record<string, string | undefined> = {}) {
  const params: Record<string, string> = {};
  const all = { response_type: 'code', client_id: clientId, redirect_uri: REDIRECT, code_challenge: CHALLENGE, code_challenge_method: 'S256', scope: 'patient:read journal:write', state: 'st-1', resource: MCP, ...extra };
  for (const [k, v] of Object.entries(all)) if (v !== undefined) params[k] = v;
  return `/oauth/authorize?${new URLSearchParams(params)}`;
}

/** Authorization page -> sign-in -> consent; returns the pages and the code. */
async function pages(clientId: string, opts: { email?: string; password?: string; decision?: string; extra?: Record<string, string | undefined>; headers?: Record<string, string> } = {}) {
  const start = await call(ctx, 'GET', authorizeUrl(clientId, opts.extra), { headers: opts.headers });
  if (start.status !== 200) return { start };
  const cookie = String(start.headers['set-cookie']).split(';')[0] ?? '';
  const request = hidden(start.text, 'request');
  const csrf = hidden(start.text, 'csrf');
  const signIn = await formPost('/oauth/sign-in', { request, csrf, email: opts.email ?? p.email, password: opts.password ?? PASSWORD }, { cookie });
  if (signIn.status !== 200) return { start, signIn, cookie, request, csrf };
  const consent = await formPost('/oauth/consent', { request, csrf, decision: opts.decision ?? 'allow' }, { cookie });
  const location = consent.headers.location ? new URL(String(consent.headers.location)) : undefined;
  return { start, signIn, consent, location, code: location?.searchParams.get('code') ?? undefined, cookie, request, csrf };
}

async function token(fields: Record<string, string>, headers: Record<string, string> = {}) {
  return formPost('/oauth/token', fields, headers);
}

async function tokens(clientId: string, scope?: string) {
  const flow = await pages(clientId, scope ? { extra: { scope } } : {});
  const t = await token({ grant_type: 'authorization_code', code: flow.code!, code_verifier: VERIFIER, redirect_uri: REDIRECT, client_id: clientId, resource: MCP });
  expect(t.status, t.text).toBe(200);
  return t.body as { access_token: string; refresh_token: string; scope: string; expires_in: number };
}

const rpc = (accessToken: string | undefined, body: unknown = { jsonrpc: '2.0', id: 1, method: 'tools/list' }, headers: Record<string, string> = {}) =>
  call(ctx, 'POST', '/mcp', {
    json: body,
    headers: { accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25', ...(accessToken ? { authorization: `Bearer ${accessToken}` } : {}), ...headers },
  });

describe('discovery', () => {
  it('answers an unauthenticated call with 401 and the resource metadata address', async () => {
    const r = await rpc(undefined);
    expect(r.status).toBe(401);
    expect(r.headers['www-authenticate']).toBe(`Bearer resource_metadata="${TEST_BASE_URL}/.well-known/oauth-protected-resource/mcp", scope="patient:read journal:write messages:write treatment:write"`);
    // A browser client (the MCP Inspector) may read the challenge.
    const browser = await rpc(undefined, undefined, { origin: 'http://localhost:6274' });
    expect(browser.status).toBe(401);
    expect(browser.headers['access-control-allow-origin']).toBeDefined();
    expect(browser.headers['access-control-allow-origin']).toBe('http://localhost:6274');
    expect(String(browser.headers['access-control-expose-headers'])).toContain('WWW-Authenticate');
  });

  it('answers CORS preflights: /mcp for the origins it accepts, the OAuth endpoints for any origin', async () => {
    const pre = (path: string, origin: string) =>
      call(ctx, 'OPTIONS', path, { headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type, mcp-protocol-version' } });
    const ok = await pre('/mcp', 'http://localhost:6274');
    expect(ok.status).toBe(204);
    expect(ok.headers['access-control-allow-origin']).toBe('http://localhost:6274');
    expect(String(ok.headers['access-control-allow-headers'])).toMatch(/Authorization.*Mcp-Protocol-Version/);
    const evil = await pre('/mcp', 'https://evil.example');
    expect(evil.headers['access-control-allow-origin']).toBeUndefined();
    for (const path of ['/oauth/token', '/oauth/register', '/.well-known/oauth-authorization-server', '/.well-known/oauth-protected-resource/mcp']) {
      expect((await pre(path, 'https://evil.example')).headers['access-control-allow-origin'], path).toBe('*');
    }
    const meta = await call(ctx, 'GET', '/.well-known/oauth-authorization-server', { headers: { origin: 'https://any.example' } });
    expect(meta.headers['access-control-allow-origin']).toBe('*');
  });

  it('serves the protected resource metadata (RFC 9728) and the authorization server metadata (RFC 8414)', async () => {
    for (const path of ['/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-protected-resource']) {
      const r = await call(ctx, 'GET', path);
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ resource: MCP, authorization_servers: [TEST_BASE_URL], scopes_supported: ['patient:read', 'journal:write', 'messages:write', 'treatment:write'], bearer_methods_supported: ['header'] });
    }
    const as = await call(ctx, 'GET', '/.well-known/oauth-authorization-server');
    expect(as.body).toMatchObject({
      issuer: TEST_BASE_URL,
      authorization_endpoint: `${TEST_BASE_URL}/oauth/authorize`,
      token_endpoint: `${TEST_BASE_URL}/oauth/token`,
      registration_endpoint: `${TEST_BASE_URL}/oauth/register`,
      revocation_endpoint: `${TEST_BASE_URL}/oauth/revoke`,
      code_challenge_methods_supported: ['S256'],
      response_types_supported: ['code'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      authorization_response_iss_parameter_supported: true,
    });
  });
});

describe('registration (RFC 7591)', () => {
  it('registers a public client and a confidential one with a secret', async () => {
    const pub = await register();
    expect(pub.client_id).toMatch(/^mcp_/);
    expect(pub.client_secret).toBeUndefined();
    expect(pub.redirect_uris).toEqual([REDIRECT]);
    const conf = await register({ token_endpoint_auth_method: 'client_secret_basic' });
    expect(conf.client_secret).toEqual(expect.any(String));
    expect(conf.client_secret_expires_at).toBe(0);
  });

  it('refuses redirect URIs that are not https or loopback http, fragments, and unknown grant types or scopes', async () => {
    for (const uri of ['http://assistant.example/cb', 'https://assistant.example/cb#x', 'javascript:alert(1)', 'ftp://x.example/cb']) {
      const r = await call(ctx, 'POST', '/oauth/register', { json: { redirect_uris: [uri], token_endpoint_auth_method: 'none' } });
      expect(r.status, uri).toBe(400);
      expect(['invalid_redirect_uri', 'invalid_client_metadata']).toContain(r.body.error);
    }
    expect((await call(ctx, 'POST', '/oauth/register', { json: { redirect_uris: [] } })).body.error).toBe('invalid_redirect_uri');
    expect((await call(ctx, 'POST', '/oauth/register', { json: { redirect_uris: [REDIRECT], grant_types: ['client_credentials'] } })).body.error).toBe('invalid_client_metadata');
    expect((await call(ctx, 'POST', '/oauth/register', { json: { redirect_uris: [REDIRECT], scope: 'admin' } })).body.error).toBe('invalid_client_metadata');
    expect((await call(ctx, 'POST', '/oauth/register', { json: { redirect_uris: ['http://127.0.0.1:4000/cb', 'http://localhost/cb', 'http://[::1]:5/cb'] } })).status).toBe(201);
  });
});

describe('the authorization request', () => {
  it('never redirects to a redirect URI the client did not register, nor for an unknown client', async () => {
    const c = await register();
    const wrong = await call(ctx, 'GET', authorizeUrl(c.client_id, { redirect_uri: 'https://assistant.example/other' }));
    expect(wrong.status).toBe(400);
    expect(wrong.headers.location).toBeUndefined();
    expect(wrong.text).toContain('return address does not match');
    const prefix = await call(ctx, 'GET', authorizeUrl(c.client_id, { redirect_uri: `${REDIRECT}/extra` }));
    expect(prefix.status).toBe(400);
    const missing = await call(ctx, 'GET', authorizeUrl(c.client_id, { redirect_uri: undefined }));
    expect(missing.status).toBe(400);
    expect(missing.headers.location).toBeUndefined();
    const unknown = await call(ctx, 'GET', authorizeUrl('mcp_unknown'));
    expect(unknown.status).toBe(400);
    expect(unknown.headers.location).toBeUndefined();
  });

  it('requires PKCE with S256: no challenge and the plain method are refused with a redirect carrying the error, state and iss', async () => {
    const c = await register();
    for (const extra of [{ code_challenge: undefined, code_challenge_method: undefined }, { code_challenge_method: 'plain' }, { code_challenge_method: undefined }, { code_challenge: 'short' }]) {
      const r = await call(ctx, 'GET', authorizeUrl(c.client_id, extra));
      expect(r.status, JSON.stringify(extra)).toBe(302);
      const loc = new URL(String(r.headers.location));
      expect(loc.origin + loc.pathname).toBe(REDIRECT);
      expect(loc.searchParams.get('error')).toBe('invalid_request');
      expect(loc.searchParams.get('state')).toBe('st-1');
      expect(loc.searchParams.get('iss')).toBe(TEST_BASE_URL);
    }
  });

  it('refuses another resource, an unknown scope and another response type', async () => {
    const c = await register();
    const err = async (extra: Record<string, string>) => new URL(String((await call(ctx, 'GET', authorizeUrl(c.client_id, extra))).headers.location)).searchParams.get('error');
    expect(await err({ resource: 'https://other.example/mcp' })).toBe('invalid_target');
    expect(await err({ scope: 'patient:read admin' })).toBe('invalid_scope');
    expect(await err({ response_type: 'token' })).toBe('unsupported_response_type');
  });

  it('serves the sign-in page with labelled Email and Password fields, and the consent page naming the client, its host and the scopes', async () => {
    const c = await register({ client_name: 'Claude <b>' });
    const flow = await pages(c.client_id, { decision: 'deny' });
    expect(flow.start.status).toBe(200);
    expect(flow.start.headers['content-type']).toMatch(/text\/html/);
    expect(flow.start.headers['cache-control']).toBe('no-store');
    expect(flow.start.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(flow.start.text).toContain('<label for="email">Email</label>');
    expect(flow.start.text).toContain('<label for="password">Password</label>');
    expect(flow.start.text).toContain('Claude &lt;b&gt;');
    expect(flow.start.headers['set-cookie']).toMatch(/HttpOnly; SameSite=Lax/);
    expect(flow.signIn!.status).toBe(200);
    const consent = flow.signIn!.text;
    expect(consent).toContain('Claude &lt;b&gt; (assistant.example)');
    expect(consent).toContain('patient:read');
    expect(consent).toContain('journal:write');
    expect(consent).not.toContain('messages:write');
    expect(consent).toMatch(/<button[^>]*value="allow"[^>]*>Allow<\/button>/);
    expect(consent).toMatch(/<button[^>]*value="deny"[^>]*>Deny<\/button>/);
    expect(flow.signIn!.headers['content-security-policy']).toContain('form-action \'self\' https://assistant.example');
    // Deny: access_denied back to the client, with state and iss; no grant.
    expect(flow.consent!.status).toBe(303);
    expect(flow.location!.searchParams.get('error')).toBe('access_denied');
    expect(flow.location!.searchParams.get('state')).toBe('st-1');
    expect(flow.location!.searchParams.get('iss')).toBe(TEST_BASE_URL);
    expect(flow.code).toBeUndefined();
    const grants = await ctx.db.query('select 1 from mcp_grants where client_id = $1', [c.client_id]);
    expect(grants).toHaveLength(0);
  });

  it('escapes what a client and a visitor type: markup in a client name and in a retyped email stays text, a slot-like name stays as typed', async () => {
    const c = await register({ client_name: `Evil"><script>alert(1)</script>'{host}{email}` });
    const escapedName = 'Evil&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;&#39;{host}{email}';
    const start = await call(ctx, 'GET', authorizeUrl(c.client_id));
    expect(start.status).toBe(200);
    // The page's own scripts are Google's button (two tags, with the page's nonce); any other is injected.
    const scripts = (html: string) => html.match(/<script\b[^>]*>/gi) ?? [];
    expect(scripts(start.text)).toHaveLength(2);
    expect(scripts(start.text).every((s) => s.startsWith('<script nonce="'))).toBe(true);
    expect(start.text).toContain(`Sign in to let ${escapedName} use your treatment records.`);
    const cookie = String(start.headers['set-cookie']).split(';')[0] ?? '';
    const request = hidden(start.text, 'request');
    const csrf = hidden(start.text, 'csrf');
    // A failed sign-in shows the form again with the email as typed, in an attribute.
    const email = `x"><img src=x onerror=alert(1)>@example.com`;
    const again = await formPost('/oauth/sign-in', { request, csrf, email, password: 'wrong-password' }, { cookie });
    expect(again.status).toBe(401);
    expect(again.text).not.toMatch(/<img/i);
    expect(scripts(again.text)).toHaveLength(2);
    expect(again.text).toContain('value="x&quot;&gt;&lt;img src=x onerror=alert(1)&gt;@example.com"');
    expect(again.text).toContain('No active account found with the given credentials.');
    const consent = await formPost('/oauth/sign-in', { request, csrf, email: p.email, password: PASSWORD }, { cookie });
    expect(consent.status).toBe(200);
    // The consent page has no script of its own.
    expect(scripts(consent.text)).toHaveLength(0);
    // The host and the email slots are filled from the phrase only: the client's "{host}{email}" is not expanded.
    expect(consent.text).toContain(`<p>${escapedName} (assistant.example) asks for access to your account:</p>`);
    expect(consent.text).toContain(`Signed in as ${p.email}.`);
  });

  it('speaks the patient’s language: ui_locales first, then Accept-Language', async () => {
    const c = await register();
    const de = await call(ctx, 'GET', authorizeUrl(c.client_id, { ui_locales: 'de-DE en' }));
    expect(de.text).toContain('<html lang="de">');
    expect(de.text).toContain('Passwort');
    const fr = await call(ctx, 'GET', authorizeUrl(c.client_id), { headers: { 'accept-language': 'xx, fr-CH;q=0.9, en;q=0.5' } });
    expect(fr.text).toContain('Mot de passe');
    for (const [lang, word] of [['es', 'Contraseña'], ['it', 'Accedi'], ['nl', 'Wachtwoord'], ['pt', 'Palavra-passe']]) {
      expect((await call(ctx, 'GET', authorizeUrl(c.client_id, { ui_locales: lang }))).text, lang).toContain(word);
    }
    const flow = await pages(c.client_id, { headers: { 'accept-language': 'nl' }, extra: { ui_locales: 'it' } });
    expect(flow.signIn!.text).toContain('Consenti');
  });

  it('applies the sign-in rules of /v1/users/token/: wrong password 401, unverified 401, disabled 403, staff refused', async () => {
    const c = await register();
    const wrong = await pages(c.client_id, { password: 'Wrong-Password-123' });
    expect(wrong.signIn!.status).toBe(401);
    expect(wrong.signIn!.text).toContain('No active account found');
    expect(wrong.signIn!.text).toContain(`value="${p.email}"`);
    const unverified = await patientWithPassword(ctx, { email_verified_at: null });
    expect((await pages(c.client_id, { email: unverified.email })).signIn!.status).toBe(401);
    const disabled = await patientWithPassword(ctx, { disabled_at: new Date() });
    const d = await pages(c.client_id, { email: disabled.email });
    expect(d.signIn!.status).toBe(403);
    expect(d.signIn!.text).toContain('disabled');
    const doctor = await newStaff(ctx, 'doctor');
    const s = await pages(c.client_id, { email: doctor.email });
    expect(s.signIn!.status).toBe(403);
    expect(s.signIn!.text).toContain('Staff accounts cannot connect an assistant');
  });

  it('limits authorization pages per address (each opens a pending request)', async () => {
    const c = await register();
    let last = 0;
    for (let i = 0; i < 121 && last !== 429; i++) last = (await call(ctx, 'GET', authorizeUrl(c.client_id), { ip: '10.9.9.9' })).status;
    expect(last).toBe(429);
    expect((await call(ctx, 'GET', authorizeUrl(c.client_id), { ip: '10.9.9.10' })).status).toBe(200);
  });

  it('protects both forms against CSRF and replays', async () => {
    const c = await register();
    const start = await call(ctx, 'GET', authorizeUrl(c.client_id));
    const request = hidden(start.text, 'request');
    const csrf = hidden(start.text, 'csrf');
    const cookie = String(start.headers['set-cookie']).split(';')[0] ?? '';
    // No cookie (a cross-site form post with a stolen page), or a wrong token.
    expect((await formPost('/oauth/sign-in', { request, csrf, email: p.email, password: PASSWORD })).status).toBe(400);
    expect((await formPost('/oauth/sign-in', { request, csrf: 'x'.repeat(32), email: p.email, password: PASSWORD }, { cookie })).status).toBe(400);
    // Consent before sign-in.
    expect((await formPost('/oauth/consent', { request, csrf, decision: 'allow' }, { cookie })).status).toBe(400);
    expect((await formPost('/oauth/sign-in', { request, csrf, email: p.email, password: PASSWORD }, { cookie })).status).toBe(200);
    const ok = await formPost('/oauth/consent', { request, csrf, decision: 'allow' }, { cookie });
    expect(ok.status).toBe(303);
    // A second submission of the same consent does not mint a second code.
    expect((await formPost('/oauth/consent', { request, csrf, decision: 'allow' }, { cookie })).status).toBe(400);
  });
});

describe('loopback redirect URIs (RFC 8252 7.3)', () => {
  it('accept any port on the registered loopback host and path, nothing else', async () => {
    const c = await register({ redirect_uris: ['http://127.0.0.1:1234/cb', REDIRECT] });
    const at = (redirect_uri: string) => call(ctx, 'GET', authorizeUrl(c.client_id, { redirect_uri }));
    expect((await at('http://127.0.0.1:59999/cb')).status).toBe(200);
    expect((await at('http://127.0.0.1/cb')).status).toBe(200);
    expect((await at('http://127.0.0.1:59999/other')).status).toBe(400);
    expect((await at('http://localhost:59999/cb')).status).toBe(400);
    expect((await at('http://127.0.0.1:59999/cb?x=1')).status).toBe(400);
    expect((await at('https://assistant.example:8443/oauth/callback')).status).toBe(400);
    // The whole flow with the port chosen now; the token request repeats that exact URI.
    const redirect = 'http://127.0.0.1:45678/cb';
    const flow = await pages(c.client_id, { extra: { redirect_uri: redirect } });
    expect(flow.location!.origin).toBe('http://127.0.0.1:45678');
    const wrong = await token({ grant_type: 'authorization_code', code: flow.code!, code_verifier: VERIFIER, redirect_uri: 'http://127.0.0.1:1234/cb', client_id: c.client_id });
    expect(wrong.body.error).toBe('invalid_grant');
    const flow2 = await pages(c.client_id, { extra: { redirect_uri: redirect } });
    const ok = await token({ grant_type: 'authorization_code', code: flow2.code!, code_verifier: VERIFIER, redirect_uri: redirect, client_id: c.client_id });
    expect(ok.status, ok.text).toBe(200);
  });
});

describe('the token endpoint', () => {
  it('checks the PKCE verifier, the redirect URI and the client; a code works once and its reuse ends the grant', async () => {
    const c = await register();
    const base = { grant_type: 'authorization_code', redirect_uri: REDIRECT, client_id: c.client_id };
    const f1 = await pages(c.client_id);
    expect((await token({ ...base, code: f1.code! })).body.error).toBe('invalid_request');
    const f2 = await pages(c.client_id);
    expect((await token({ ...base, code: f2.code!, code_verifier: 'B'.repeat(50) })).body.error).toBe('invalid_grant');
    const f3 = await pages(c.client_id);
    expect((await token({ ...base, code: f3.code!, code_verifier: VERIFIER, redirect_uri: 'https://assistant.example/other' })).body.error).toBe('invalid_grant');
    const f4 = await pages(c.client_id);
    expect((await token({ ...base, code: f4.code!, code_verifier: VERIFIER, resource: 'https://other.example/mcp' })).body.error).toBe('invalid_target');
    const other = await register();
    const f5 = await pages(c.client_id);
    const stolen = await token({ ...base, client_id: other.client_id, code: f5.code!, code_verifier: VERIFIER });
    expect(stolen.body.error).toBe('invalid_grant');

    const f6 = await pages(c.client_id);
    const ok = await token({ ...base, code: f6.code!, code_verifier: VERIFIER, resource: MCP });
    expect(ok.status).toBe(200);
    expect(ok.headers['cache-control']).toBe('no-store');
    expect(ok.body).toMatchObject({ token_type: 'Bearer', expires_in: 900, scope: 'patient:read journal:write' });
    expect((await rpc(ok.body.access_token)).status).toBe(200);
    const again = await token({ ...base, code: f6.code!, code_verifier: VERIFIER });
    expect(again.body.error).toBe('invalid_grant');
    expect((await rpc(ok.body.access_token)).status).toBe(401);
  });

  it('authenticates confidential clients (client_secret_basic)', async () => {
    const c = await register({ token_endpoint_auth_method: 'client_secret_basic' });
    const f = await pages(c.client_id);
    const fields = { grant_type: 'authorization_code', code: f.code!, code_verifier: VERIFIER, redirect_uri: REDIRECT };
    const basic = (secret: string) => ({ authorization: `Basic ${Buffer.from(`${c.client_id}:${secret}`).toString('base64')}` });
    const wrong = await token(fields, basic('nope'));
    expect(wrong.status).toBe(401);
    expect(wrong.body.error).toBe('invalid_client');
    expect((await token({ ...fields, client_id: c.client_id })).status).toBe(401);
    const ok = await token(fields, basic(c.client_secret));
    expect(ok.status).toBe(200);
  });

  it('rotates refresh tokens; presenting a used one again ends the whole grant', async () => {
    const c = await register();
    const t1 = await tokens(c.client_id);
    const r2 = await token({ grant_type: 'refresh_token', refresh_token: t1.refresh_token, client_id: c.client_id, resource: MCP });
    expect(r2.status).toBe(200);
    expect(r2.body.refresh_token).not.toBe(t1.refresh_token);
    expect(r2.body.access_token).not.toBe(t1.access_token);
    expect((await rpc(r2.body.access_token)).status).toBe(200);
    const narrowed = await token({ grant_type: 'refresh_token', refresh_token: r2.body.refresh_token, client_id: c.client_id, scope: 'patient:read' });
    expect(narrowed.body.scope).toBe('patient:read');
    const widened = await token({ grant_type: 'refresh_token', refresh_token: narrowed.body.refresh_token, client_id: c.client_id, scope: 'patient:read messages:write' });
    expect(widened.body.error).toBe('invalid_scope');
    // Reuse of the first refresh token: every token of the grant stops working.
    const reuse = await token({ grant_type: 'refresh_token', refresh_token: t1.refresh_token, client_id: c.client_id });
    expect(reuse.status).toBe(400);
    expect(reuse.body.error).toBe('invalid_grant');
    expect((await rpc(narrowed.body.access_token)).status).toBe(401);
    expect((await token({ grant_type: 'refresh_token', refresh_token: narrowed.body.refresh_token, client_id: c.client_id })).body.error).toBe('invalid_grant');
  });

  it('refuses unknown grant types and missing parameters with OAuth errors', async () => {
    const c = await register();
    expect((await token({ grant_type: 'password', client_id: c.client_id })).body.error).toBe('unsupported_grant_type');
    expect((await token({ client_id: c.client_id })).body.error).toBe('invalid_request');
    expect((await token({ grant_type: 'refresh_token', client_id: c.client_id })).body.error).toBe('invalid_request');
    expect((await token({ grant_type: 'refresh_token', refresh_token: 'mcp_rt_nope' })).status).toBe(401);
  });
});

describe('tokens are bound to the MCP resource', () => {
  it('an MCP token is refused by /v1/, and a /v1/ token by /mcp', async () => {
    const c = await register();
    const t = await tokens(c.client_id);
    const v1 = await call(ctx, 'GET', '/v1/users/profile/', { token: t.access_token });
    expect(v1.status).toBe(401);
    expect(v1.body.code).toBe('token_not_valid');
    const mcp = await rpc(p.access);
    expect(mcp.status).toBe(401);
    expect(mcp.headers['www-authenticate']).toMatch(/^Bearer error="invalid_token"/);
  });

  it('refuses a token issued for another resource, an expired one and a revoked one', async () => {
    const c = await register();
    const t = await tokens(c.client_id);
    expect((await rpc(t.access_token)).status).toBe(200);
    await ctx.db.query('update mcp_tokens set resource = $2 where token_hash = $1', [sha256(t.access_token), 'https://other.example/mcp']);
    expect((await rpc(t.access_token)).status).toBe(401);
    await ctx.db.query('update mcp_tokens set resource = $2 where token_hash = $1', [sha256(t.access_token), MCP]);
    expect((await rpc(t.access_token)).status).toBe(200);
    await ctx.db.query("update mcp_tokens set expires_at = now() - interval '1 second' where token_hash = $1", [sha256(t.access_token)]);
    expect((await rpc(t.access_token)).status).toBe(401);

    const t2 = await tokens(c.client_id);
    const revoke = await formPost('/oauth/revoke', { token: t2.access_token, client_id: c.client_id });
    expect(revoke.status).toBe(200);
    expect((await rpc(t2.access_token)).status).toBe(401);
    expect((await formPost('/oauth/revoke', { token: 'mcp_at_unknown', client_id: c.client_id })).status).toBe(200);
    const t3 = await tokens(c.client_id);
    expect((await formPost('/oauth/revoke', { token: t3.refresh_token, token_type_hint: 'refresh_token', client_id: c.client_id })).status).toBe(200);
    expect((await rpc(t3.access_token)).status).toBe(401);
  });

  it('stops working when the account is disabled', async () => {
    const q = await patientWithPassword(ctx);
    const c = await register();
    const flow = await pages(c.client_id, { email: q.email });
    const t = await token({ grant_type: 'authorization_code', code: flow.code!, code_verifier: VERIFIER, redirect_uri: REDIRECT, client_id: c.client_id });
    expect((await rpc(t.body.access_token)).status).toBe(200);
    await ctx.db.query('update users set disabled_at = now() where id = $1', [q.id]);
    expect((await rpc(t.body.access_token)).status).toBe(401);
    expect((await token({ grant_type: 'refresh_token', refresh_token: t.body.refresh_token, client_id: c.client_id })).body.error).toBe('invalid_grant');
  });
});

describe('the MCP endpoint', () => {
  it('validates Origin: foreign origins 403, its own, configured and loopback origins pass', async () => {
    const c = await register();
    const t = await tokens(c.client_id);
    const evil = await rpc(t.access_token, undefined, { origin: 'https://evil.example' });
    expect(evil.status).toBe(403);
    expect((await rpc(undefined, undefined, { origin: 'https://evil.example' })).status).toBe(403);
    for (const origin of [TEST_BASE_URL, 'https://assistant.example', 'http://localhost:6274', 'http://127.0.0.1:6274']) {
      expect((await rpc(t.access_token, undefined, { origin })).status, origin).toBe(200);
    }
  });

  it('is stateless: GET and DELETE answer 405, an unsupported protocol version 400', async () => {
    const c = await register();
    const t = await tokens(c.client_id);
    expect((await call(ctx, 'GET', '/mcp', { token: t.access_token, headers: { accept: 'text/event-stream' } })).status).toBe(405);
    expect((await call(ctx, 'DELETE', '/mcp', { token: t.access_token })).status).toBe(405);
    const init = await rpc(t.access_token, { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } } });
    expect(init.status).toBe(200);
    expect(init.body.result.protocolVersion).toBe('2025-06-18');
    expect(init.headers['mcp-session-id']).toBeUndefined();
    expect((await rpc(t.access_token, undefined, { 'mcp-protocol-version': '1999-01-01' })).status).toBe(400);
  });

  it('limits tool calls per patient of a client (the per-client ceiling: test/mcp-platform.test.ts)', async () => {
    const c = await register();
    const t = await tokens(c.client_id);
    const callTool = () => rpc(t.access_token, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'list_questionnaires', arguments: {} } });
    for (let i = 0; i < 4; i++) expect((await callTool()).status).toBe(200);
    const limited = await callTool();
    expect(limited.status).toBe(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    // Another client of the same patient has its own budget.
    const c2 = await register();
    const t2 = await tokens(c2.client_id);
    expect((await rpc(t2.access_token, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'list_questionnaires', arguments: {} } })).status).toBe(200);
  });
});

describe('an account with a second factor', () => {
  it('signs in on the authorization page only with its code too: no code or a wrong one is refused, a used one is not reused', async () => {
    const q = await patientWithPassword(ctx);
    const setup = await call(ctx, 'POST', '/v1/users/mfa/totp/', { token: q.access });
    expect(setup.status, setup.text).toBe(200);
    const totp = new TOTP({ secret: Secret.fromBase32(setup.body.secret), algorithm: 'SHA1', digits: 6, period: 30 });
    const at = (steps: number) => totp.generate({ timestamp: Date.now() + steps * 30_000 });
    expect((await call(ctx, 'POST', '/v1/users/mfa/totp/confirm/', { token: q.access, json: { code: at(-1) } })).status).toBe(200);
    // Registered from another (injected) client address: the tests above used this one's registration budget.
    const reg = await call(ctx, 'POST', '/oauth/register', { ip: '192.0.2.7', json: { client_name: 'Assistant', redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' } });
    expect(reg.status, reg.text).toBe(201);
    const client = reg.body;

    const bare = await pages(client.client_id, { email: q.email });
    expect(bare.signIn!.status).toBe(401);
    expect(bare.signIn!.text).toContain('name="code"');
    expect(bare.code).toBeUndefined();

    const start = await call(ctx, 'GET', authorizeUrl(client.client_id));
    const cookie = String(start.headers['set-cookie']).split(';')[0] ?? '';
    const fields = { request: hidden(start.text, 'request'), csrf: hidden(start.text, 'csrf'), email: q.email, password: PASSWORD };
    const wrong = await formPost('/oauth/sign-in', { ...fields, code: '000000' === at(0) ? '111111' : '000000' }, { cookie });
    expect(wrong.status).toBe(401);
    expect(wrong.text).toContain('name="code"');
    const right = await formPost('/oauth/sign-in', { ...fields, code: at(0) }, { cookie });
    expect(right.status, right.text).toBe(200);
    expect(right.text).toContain('name="decision"');
    // The same code again (another authorization) is refused: a TOTP step is used once.
    const again = await call(ctx, 'GET', authorizeUrl(client.client_id));
    const replay = await formPost('/oauth/sign-in', { request: hidden(again.text, 'request'), csrf: hidden(again.text, 'csrf'), email: q.email, password: PASSWORD, code: at(0) }, { cookie: String(again.headers['set-cookie']).split(';')[0] ?? '' });
    expect(replay.status).toBe(401);
  });
});
