// Starts the service for `@modelcontextprotocol/conformance server` (docs/mcp.md): a throw-away
// embedded database, one patient who authorizes one client through the real OAuth pages, and a
// small forwarding proxy that adds that patient's bearer token to every request it passes to /mcp
// (the conformance runner cannot authenticate). Everything else (Origin, Host, protocol headers,
// bodies) is passed through unchanged.
//
//   npx tsx test/mcp-conformance-server.ts            # prints the URL to test, then serves
//   CONFORMANCE_PORT=8765 PROXY_PORT=8766 ...
import { createHash } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { createServer, request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { openPglite } from '../src/db/index.ts';
import { memoryTransport } from '../src/mail/transports.ts';
import { hashPassword } from '../src/modules/accounts/passwords.ts';
import { createRuntime } from '../src/runtime.ts';

const port = Number(process.env.CONFORMANCE_PORT ?? 8765);
const proxyPort = Number(process.env.PROXY_PORT ?? 8766);
const base = `http://127.0.0.1:${port}`;
const config = loadConfig({ PORT: String(port), PUBLIC_BASE_URL: base, DATA_DIR: mkdtempSync(join(tmpdir(), 'pts-conformance-')), LOG_LEVEL: 'warn' });
const db = await openPglite();
const runtime = await createRuntime(config, { db, transport: memoryTransport() });
const app = await buildApp(runtime.deps, { logger: false });
await app.listen({ port, host: '127.0.0.1' });

// One verified patient with a password.
const email = 'conformance@example.org';
const password = 'Quiet-Harbour-Lantern-42';
await db.query("insert into users (email, password_hash, first_name, last_name, email_verified_at, referral_code, country_of_residence) values ($1, $2, 'Ada', 'Lovelace', now(), 'CONFORM01', 'DEU')", [
  email,
  await hashPassword(password),
]);

// The OAuth flow through the service's own endpoints and pages.
const redirect = 'http://127.0.0.1:9/callback';
const inject = async (method: string, url: string, payload?: Record<string, string>, headers: Record<string, string> = {}) =>
  app.inject({
    method: method as 'GET' | 'POST',
    url,
    headers: payload ? { 'content-type': 'application/x-www-form-urlencoded', ...headers } : headers,
    payload: payload ? new URLSearchParams(payload).toString() : undefined,
  });
const reg = (await app.inject({ method: 'POST', url: '/oauth/register', payload: { client_name: 'Conformance', redirect_uris: [redirect], token_endpoint_auth_method: 'none' } })).json();
const verifier = 'c'.repeat(64);
const challenge = createHash('sha256').update(verifier).digest('base64url');
const start = await inject(
  'GET',
  `/oauth/authorize?${new URLSearchParams({ response_type: 'code', client_id: reg.client_id, redirect_uri: redirect, code_challenge: challenge, code_challenge_method: 'S256', resource: config.MCP_PUBLIC_URL })}`,
);
const field = (name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(start.body)?.[1] ?? '';
const cookie = String(start.headers['set-cookie']).split(';')[0] ?? '';
const form = { request: field('request'), csrf: field('csrf') };
await inject('POST', '/oauth/sign-in', { ...form, email, password }, { cookie });
const consent = await inject('POST', '/oauth/consent', { ...form, decision: 'allow' }, { cookie });
const code = new URL(String(consent.headers.location)).searchParams.get('code')!;
const tok = (await inject('POST', '/oauth/token', { grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: redirect, client_id: reg.client_id })).json();
if (!tok.access_token) throw new Error(`no token: ${JSON.stringify(tok)}`);

const proxy = createServer((req, res) => {
  const upstream = httpRequest(
    { host: '127.0.0.1', port, method: req.method, path: req.url, headers: { ...req.headers, authorization: `Bearer ${tok.access_token}` } },
    (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    },
  );
  upstream.on('error', () => res.writeHead(502).end());
  req.pipe(upstream);
});
await new Promise<void>((resolve) => proxy.listen(proxyPort, '127.0.0.1', resolve));
process.stdout.write(`MCP endpoint with a patient's token: http://127.0.0.1:${proxyPort}/mcp (service ${base}, resource ${config.MCP_PUBLIC_URL})\n`);

const stop = async () => {
  proxy.close();
  await app.close();
  await runtime.close();
  process.exit(0);
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
