// The connector at platform scale: tool-call budgets per patient under a per-client
// ceiling, registrations budgeted per redirect host (loopback-only clients per address), and the
// expiry of registrations nobody used.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hidden, patientWithPassword } from './mcp-support.ts';
import { PASSWORD, TEST_BASE_URL, call, createTestContext, newStaff, type Patient, type TestContext } from './support/harness.ts';

let ctx: TestContext;
let a: Patient;
let b: Patient;
let c: Patient;
beforeAll(async () => {
  ctx = await createTestContext({ MCP_TOOL_CALLS_PER_MINUTE: '3', MCP_CLIENT_TOOL_CALLS_PER_MINUTE: '7', MCP_REGISTRATIONS_PER_HOUR: '3' });
  a = await patientWithPassword(ctx);
  b = await patientWithPassword(ctx);
  c = await patientWithPassword(ctx);
});
afterAll(async () => ctx?.close());

const MCP = `${TEST_BASE_URL}/mcp`;
const VERIFIER = 'p'.repeat(60);
const CHALLENGE = createHash('sha256').update(VERIFIER).digest('base64url');

const formPost = (url: string, fields: Record<string, string>, headers: Record<string, string> = {}) =>
  call(ctx, 'POST', url, { payload: new URLSearchParams(fields).toString(), headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers } });

const registerRaw = (redirect: string, extra: Record<string, unknown> = {}) =>
  call(ctx, 'POST', '/oauth/register', { json: { client_name: 'Platform', redirect_uris: [redirect], token_endpoint_auth_method: 'none', ...extra } });

/** The whole authorization of one patient for a client: the token pair. */
async function tokensFor(clientId: string, redirect: string, who: Patient, scope?: string) {
  const q = new URLSearchParams({ response_type: 'code', client_id: clientId, redirect_uri: redirect, code_challenge: CHALLENGE, code_challenge_method: 'S256', resource: MCP, state: 's', ...(scope ? { scope } : {}) });
  const start = await call(ctx, 'GET', `/oauth/authorize?${q}`);
  expect(start.status, start.text).toBe(200);
  const cookie = String(start.headers['set-cookie']).split(';')[0] ?? '';
  const request = hidden(start.text, 'request');
  const csrf = hidden(start.text, 'csrf');
  const signIn = await formPost('/oauth/sign-in', { request, csrf, email: who.email, password: PASSWORD }, { cookie });
  expect(signIn.status).toBe(200);
  const consent = await formPost('/oauth/consent', { request, csrf, decision: 'allow' }, { cookie });
  const code = new URL(String(consent.headers.location)).searchParams.get('code')!;
  const t = await formPost('/oauth/token', { grant_type: 'authorization_code', code, code_verifier: VERIFIER, redirect_uri: redirect, client_id: clientId, resource: MCP });
  expect(t.status, t.text).toBe(200);
  return t.body as { access_token: string; refresh_token: string; scope: string };
}

const toolCall = (accessToken: string) =>
  call(ctx, 'POST', '/mcp', {
    json: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'list_questionnaires', arguments: {} } },
    headers: { accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25', authorization: `Bearer ${accessToken}` },
  });

describe('tool-call budgets', () => {
  it('patient A exhausting their budget does not 429 patient B on the same client; the client has its own larger ceiling', async () => {
    const redirect = 'https://budget.example/cb';
    const reg = await registerRaw(redirect);
    expect(reg.status).toBe(201);
    const id = reg.body.client_id as string;
    const ta = await tokensFor(id, redirect, a);
    const tb = await tokensFor(id, redirect, b);
    const tc = await tokensFor(id, redirect, c);
    for (let i = 0; i < 3; i++) expect((await toolCall(ta.access_token)).status).toBe(200);
    const limited = await toolCall(ta.access_token);
    expect(limited.status).toBe(429);
    expect(limited.body.error.message).toMatch(/for this patient/);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    // Patient B, same client: their own budget.
    for (let i = 0; i < 3; i++) expect((await toolCall(tb.access_token)).status, `B call ${i + 1}`).toBe(200);
    expect((await toolCall(tb.access_token)).status).toBe(429);
    // The client has used 6 of its 7: patient C gets one, then the client's ceiling answers.
    expect((await toolCall(tc.access_token)).status).toBe(200);
    const ceiling = await toolCall(tc.access_token);
    expect(ceiling.status).toBe(429);
    expect(ceiling.body.error.message).toMatch(/from this assistant/);
  });
});

describe('dynamic registration budget', () => {
  it('counts per redirect host, not per address: a platform with its own host is not stopped by others from the same address', async () => {
    for (let i = 0; i < 3; i++) expect((await registerRaw(`https://platform.example/cb/${i}`)).status).toBe(201);
    const over = await registerRaw('https://platform.example/cb/4');
    expect(over.status).toBe(429);
    expect(over.body.error).toBe('slow_down');
    // Another host from the same address still registers.
    expect((await registerRaw('https://other-platform.example/cb')).status).toBe(201);
    // A client naming the exhausted host among others is refused too.
    expect((await call(ctx, 'POST', '/oauth/register', { json: { redirect_uris: ['https://third.example/cb', 'https://platform.example/x'], token_endpoint_auth_method: 'none' } })).status).toBe(429);
  });

  it('counts loopback-only clients (native apps) per address, 30 an hour', async () => {
    for (let i = 0; i < 30; i++) expect((await registerRaw(`http://127.0.0.1:${4000 + i}/cb`)).status).toBe(201);
    expect((await registerRaw('http://127.0.0.1:5000/cb')).status).toBe(429);
    // https platforms are not counted in the loopback budget.
    expect((await registerRaw('https://fourth.example/cb')).status).toBe(201);
  });
});

describe('expiry of unused registrations', () => {
  it('deletes a registration nobody used for a grant a day later, and keeps the used ones', async () => {
    const unused = (await registerRaw('https://expiry.example/unused')).body.client_id as string;
    const used = (await registerRaw('https://expiry2.example/used')).body.client_id as string;
    const recent = (await registerRaw('https://expiry3.example/recent')).body.client_id as string;
    await tokensFor(used, 'https://expiry2.example/used', a);
    await ctx.db.query("update mcp_clients set created_at = now() - interval '25 hours' where id = any($1)", [[unused, used]]);
    await ctx.deps.scheduler.runDue();
    const left = (await ctx.db.query('select id from mcp_clients where id = any($1)', [[unused, used, recent]])).map((r) => r.id).sort();
    expect(left).toEqual([used, recent].sort());
    // The deleted client is unknown at the authorization endpoint: the platform registers again.
    const q = new URLSearchParams({ response_type: 'code', client_id: unused, redirect_uri: 'https://expiry.example/unused', code_challenge: CHALLENGE, code_challenge_method: 'S256' });
    expect((await call(ctx, 'GET', `/oauth/authorize?${q}`)).status).toBe(400);
  });
});

describe('configuration', () => {
  const seller = { SELLER_NAME: 'S', SELLER_ADDRESS: 'A', SELLER_VAT_ID: 'DE123456789', SELLER_COUNTRY: 'DEU', DISTANCE_SELLING_REGISTER_URL: 'https://register.example.de/versandapotheke/1', DISTANCE_SELLING_PHARMACY_NAME: 'Example Apotheke', DISTANCE_SELLING_COUNTRY: 'DEU', SELLER_PHONE: '+4930123456' };
  it('production refuses an http PUBLIC_BASE_URL or MCP_PUBLIC_URL for the authorization server (loopback excepted)', async () => {
    const { loadConfig } = await import('../src/config.ts');
    expect(() => loadConfig({ NODE_ENV: 'production', PUBLIC_BASE_URL: 'http://api.example.com', ...seller })).toThrow(/PUBLIC_BASE_URL: must be an https:\/\/ URL in production/);
    expect(() => loadConfig({ NODE_ENV: 'production', PUBLIC_BASE_URL: 'https://api.example.com', MCP_PUBLIC_URL: 'http://mcp.example.com/mcp', ...seller })).toThrow(/MCP_PUBLIC_URL: must be an https/);
    expect(() => loadConfig({ NODE_ENV: 'production', PUBLIC_BASE_URL: 'https://api.example.com', ...seller })).not.toThrow();
    expect(() => loadConfig({ NODE_ENV: 'production', PUBLIC_BASE_URL: 'http://localhost:8080', ...seller })).not.toThrow();
    expect(() => loadConfig({ PUBLIC_BASE_URL: 'http://api.example.com' })).not.toThrow();
  });

  it('validates MCP_POLICY_URL and MCP_TOS_URL as https URLs', async () => {
    const { loadConfig } = await import('../src/config.ts');
    expect(() => loadConfig({ MCP_POLICY_URL: 'http://example.com/privacy' })).toThrow(/MCP_POLICY_URL/);
    expect(() => loadConfig({ MCP_TOS_URL: 'not a url' })).toThrow(/MCP_TOS_URL/);
    expect(loadConfig({ MCP_POLICY_URL: 'https://example.com/privacy', MCP_TOS_URL: 'https://example.com/terms' }).MCP_TOS_URL).toBe('https://example.com/terms');
  });
});

describe('metadata links for the assistant directories', () => {
  it('the authorization server and resource metadata link the privacy policy and the terms when configured', async () => {
    const linked = await createTestContext({ MCP_POLICY_URL: 'https://example.com/privacy', MCP_TOS_URL: 'https://example.com/terms' });
    try {
      const as = await call(linked, 'GET', '/.well-known/oauth-authorization-server');
      expect(as.body).toMatchObject({ op_policy_uri: 'https://example.com/privacy', op_tos_uri: 'https://example.com/terms' });
      const prm = await call(linked, 'GET', '/.well-known/oauth-protected-resource/mcp');
      expect(prm.body).toMatchObject({ resource_policy_uri: 'https://example.com/privacy', resource_tos_uri: 'https://example.com/terms' });
    } finally {
      await linked.close();
    }
    const plain = await call(ctx, 'GET', '/.well-known/oauth-authorization-server');
    expect(plain.body).not.toHaveProperty('op_policy_uri');
  });
});

const listTools = (accessToken: string) =>
  call(ctx, 'POST', '/mcp', {
    json: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
    headers: { accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25', authorization: `Bearer ${accessToken}` },
  });
const refresh = (clientId: string, refreshToken: string) => formPost('/oauth/token', { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: clientId });

describe('revocation that holds', () => {
  it('a new consent replaces the grant: the old access and refresh tokens end, the narrower scopes hold', async () => {
    const p = await patientWithPassword(ctx);
    const redirect = 'https://reconsent.example/cb';
    const id = (await registerRaw(redirect)).body.client_id as string;
    const full = await tokensFor(id, redirect, p);
    expect(full.scope).toBe('patient:read journal:write messages:write treatment:write');
    const narrow = await tokensFor(id, redirect, p, 'patient:read');
    expect(narrow.scope).toBe('patient:read');
    expect((await listTools(full.access_token)).status).toBe(401);
    const old = await refresh(id, full.refresh_token);
    expect(old.status).toBe(400);
    expect(old.body.error).toBe('invalid_grant');
    expect((await listTools(narrow.access_token)).status).toBe(200);
    const apps = await call(ctx, 'GET', '/v1/users/connected-apps/', { token: p.access });
    expect(apps.body.count).toBe(1);
    expect(apps.body.results[0].scopes).toEqual(['patient:read']);
    const revoked = await ctx.db.query("select revoke_reason from mcp_grants where user_id = $1 and revoked_at is not null", [p.id]);
    expect(revoked.map((r) => r.revoke_reason)).toEqual(['replaced']);
    // The new refresh token works and cannot widen.
    const next = await refresh(id, narrow.refresh_token);
    expect(next.status).toBe(200);
    expect(next.body.scope).toBe('patient:read');
  });

  it('mails the patient when an assistant connects, naming it and its redirect host', async () => {
    const p = await patientWithPassword(ctx, { locale: 'de' });
    const redirect = 'https://mailed.example/cb';
    const id = (await call(ctx, 'POST', '/oauth/register', { json: { client_name: 'Mail Bot', redirect_uris: [redirect], token_endpoint_auth_method: 'none' } })).body.client_id as string;
    await tokensFor(id, redirect, p);
    const mails = await ctx.db.query('select subject, text_body, template from mail_outbox where to_address = $1', [p.email]);
    const mail = mails.find((m) => m.template === 'mcp_assistant_connected');
    expect(mail?.subject).toBe('Ein Assistent wurde mit Ihrem Konto verbunden');
    expect(mail?.text_body).toContain('Mail Bot (mailed.example)');
    expect(mail?.text_body).toContain('/profile');
  });

  it('a password change revokes every connector grant; /v1 sign-out does not', async () => {
    const p = await patientWithPassword(ctx);
    const other = await patientWithPassword(ctx);
    const redirect = 'https://pw.example/cb';
    const id = (await registerRaw(redirect)).body.client_id as string;
    const t = await tokensFor(id, redirect, p);
    const theirs = await tokensFor(id, redirect, other);
    // Signing out of /v1 ends that session only: the connector is a separate connection.
    expect((await call(ctx, 'POST', '/v1/users/logout/', { token: p.access, json: {} })).status).toBeLessThan(300);
    expect((await listTools(t.access_token)).status).toBe(200);
    const session = await call(ctx, 'POST', '/v1/users/token/', { brand: true, json: { email: p.email, password: PASSWORD } });
    const changed = await call(ctx, 'POST', '/v1/users/change-password/', { token: session.body.access, json: { current_password: PASSWORD, new_password: 'Another-Quiet-Harbour-77' } });
    expect(changed.status, changed.text).toBe(200);
    expect((await listTools(t.access_token)).status).toBe(401);
    expect((await refresh(id, t.refresh_token)).body.error).toBe('invalid_grant');
    expect((await call(ctx, 'GET', '/v1/users/connected-apps/', { token: session.body.access })).body.count).toBe(0);
    // The other patient's connection (same client) is untouched.
    expect((await listTools(theirs.access_token)).status).toBe(200);
  });

  it('a back-office disable revokes every grant, and re-enabling the account does not revive the tokens', async () => {
    const p = await patientWithPassword(ctx);
    const admin = await newStaff(ctx, 'backoffice_admin');
    const redirect = 'https://disable.example/cb';
    const id = (await registerRaw(redirect)).body.client_id as string;
    const t = await tokensFor(id, redirect, p);
    expect((await call(ctx, 'POST', `/v1/backoffice/users/${p.id}/disable/`, { token: admin.access })).status).toBe(200);
    expect((await call(ctx, 'POST', `/v1/backoffice/users/${p.id}/enable/`, { token: admin.access })).status).toBe(200);
    expect((await listTools(t.access_token)).status).toBe(401);
    expect((await refresh(id, t.refresh_token)).body.error).toBe('invalid_grant');
    const reasons = await ctx.db.query('select revoke_reason from mcp_grants where user_id = $1', [p.id]);
    expect(reasons.map((r) => r.revoke_reason)).toEqual(['account_disabled']);
    // A new consent after re-enabling works.
    const again = await tokensFor(id, redirect, p);
    expect((await listTools(again.access_token)).status).toBe(200);
  });

  it('erasure (DELETE /v1/users/me/) revokes every grant', async () => {
    const p = await patientWithPassword(ctx);
    const redirect = 'https://erase.example/cb';
    const id = (await registerRaw(redirect)).body.client_id as string;
    const t = await tokensFor(id, redirect, p);
    const erased = await call(ctx, 'DELETE', '/v1/users/me/', { token: p.access, json: { password: PASSWORD } });
    expect(erased.status, erased.text).toBeLessThan(300);
    expect((await listTools(t.access_token)).status).toBe(401);
    expect((await refresh(id, t.refresh_token)).body.error).toBe('invalid_grant');
  });
});
