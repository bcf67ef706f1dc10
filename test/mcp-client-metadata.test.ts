// Client ID Metadata Documents: the SDK's own client with a URL client_id completes the flow; the
// document rules (client_id equal to its URL, exact redirect URIs, public clients only, JSON, status
// 200, no redirects, size and time limits), the cache, and the SSRF fences of the fetch (URL form,
// non-public addresses refused before and after DNS resolution). Documents come from a local
// plain-HTTP stub through the injectable fetcher, which keeps the production limits code.
import { createHash } from 'node:crypto';
import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MetadataRefused, fetchDocument, publicOnlyLookup, isPublicAddress, metadataUrlProblem, safeHttpsFetch, setMetadataFetcher, LIMITS } from '../src/modules/mcp/client-metadata.ts';
import { MemoryProvider, connectAs, listen, patientWithPassword, type Fetch } from './mcp-support.ts';
import { TEST_BASE_URL, call, createTestContext, type Patient, type TestContext } from './support/harness.ts';

const HOST = 'https://assistant.example';
const MCP = `${TEST_BASE_URL}/mcp`;
const REDIRECT = 'http://127.0.0.1:53682/callback';
const VERIFIER = 'C'.repeat(20) + '-._~' + 'm'.repeat(30);
const CHALLENGE = createHash('sha256').update(VERIFIER).digest('base64url');

interface Served {
  status?: number;
  type?: string;
  cache?: string;
  body?: string;
  delayMs?: number;
  location?: string;
  chunked?: boolean;
}
const docs = new Map<string, Served>();
const hits = new Map<string, number>();
let stub: Server;
let stubPort: number;
let ctx: TestContext;
let f: Fetch;
let p: Patient;
let restore: () => void;

function handle(req: IncomingMessage, res: ServerResponse) {
  const path = req.url ?? '/';
  hits.set(path, (hits.get(path) ?? 0) + 1);
  const d = docs.get(path);
  if (!d) return res.writeHead(404, { 'content-type': 'text/plain' }).end('no');
  const send = () => {
    const headers: Record<string, string> = { 'content-type': d.type ?? 'application/json' };
    if (d.cache) headers['cache-control'] = d.cache;
    if (d.location) headers.location = d.location;
    res.writeHead(d.status ?? 200, headers);
    if (d.chunked) {
      // No content-length: the size limit must hold while reading.
      const body = d.body ?? '';
      for (let i = 0; i < body.length; i += 1000) res.write(body.slice(i, i + 1000));
      return res.end();
    }
    res.end(d.body ?? '');
  };
  if (d.delayMs) setTimeout(send, d.delayMs);
  else send();
}

const doc = (path: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ client_id: `${HOST}${path}`, client_name: 'Metadata Assistant', redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none', ...extra });

beforeAll(async () => {
  stub = createServer(handle);
  await new Promise<void>((resolve) => stub.listen(0, '127.0.0.1', resolve));
  stubPort = (stub.address() as AddressInfo).port;
  // Only the connection changes: https://assistant.example/<path> is served by the local stub.
  restore = setMetadataFetcher(
    (url, limits) => fetchDocument(url, limits, (u, onResponse) => httpRequest(`http://127.0.0.1:${stubPort}${u.pathname}${u.search}`, { method: 'GET' }, onResponse)),
    { timeoutMs: 400 },
  );
  ctx = await createTestContext();
  f = await listen(ctx);
  p = await patientWithPassword(ctx);
});
afterAll(async () => {
  restore?.();
  await ctx?.close();
  stub?.close();
});

const authorizeUrl = (clientId: string, redirect = REDIRECT) =>
  `/oauth/authorize?${new URLSearchParams({ response_type: 'code', client_id: clientId, redirect_uri: redirect, code_challenge: CHALLENGE, code_challenge_method: 'S256', resource: MCP, state: 's' })}`;

class MetadataProvider extends MemoryProvider {
  constructor(public readonly clientMetadataUrl: string) {
    super(REDIRECT);
  }
}

describe('client ID metadata documents', () => {
  it('are advertised in the authorization server metadata', async () => {
    const r = await call(ctx, 'GET', '/.well-known/oauth-authorization-server');
    expect(r.body.client_id_metadata_document_supported).toBe(true);
  });

  it('let the SDK client connect with its URL as client_id, without registering; the document is cached', async () => {
    const path = '/clients/sdk.json';
    docs.set(path, { body: doc(path), cache: 'max-age=600' });
    const provider = new MetadataProvider(`${HOST}${path}`);
    const { client } = await connectAs(f, p.email, provider);
    expect(provider.info?.client_id).toBe(`${HOST}${path}`);
    const tools = await client.listTools();
    expect(tools.tools.map((t) => t.name)).toContain('get_profile_summary');
    await client.close();
    expect(hits.get(path)).toBe(1);
    const [row] = await ctx.db.query<{ client_name: string; token_endpoint_auth_method: string }>('select client_name, token_endpoint_auth_method from mcp_clients where id = $1', [`${HOST}${path}`]);
    expect(row).toMatchObject({ client_name: 'Metadata Assistant', token_endpoint_auth_method: 'none' });
    // Within max-age the cached row answers; once it is stale the document is fetched again.
    const page = await call(ctx, 'GET', authorizeUrl(`${HOST}${path}`));
    expect(page.status).toBe(200);
    // The self-chosen name comes with the host that serves the document.
    expect(page.text).toContain('Metadata Assistant (assistant.example)');
    expect(hits.get(path)).toBe(1);
    await ctx.db.query(`update mcp_clients set metadata = jsonb_set(metadata, '{cache_until}', '"2000-01-01T00:00:00.000Z"') where id = $1`, [`${HOST}${path}`]);
    expect((await call(ctx, 'GET', authorizeUrl(`${HOST}${path}`))).status).toBe(200);
    expect(hits.get(path)).toBe(2);
    // The patient sees it among the connected apps.
    const apps = await call(ctx, 'GET', '/v1/users/connected-apps/', { token: p.access });
    expect(apps.body.results.map((a: { client_id: string }) => a.client_id)).toContain(`${HOST}${path}`);
  });

  it('match redirect URIs exactly against the document, and never redirect elsewhere', async () => {
    const path = '/clients/exact.json';
    docs.set(path, { body: doc(path) });
    // Another port of a loopback redirect is the same redirect (RFC 8252 7.3: a native app's port is chosen at run time).
    expect((await call(ctx, 'GET', authorizeUrl(`${HOST}${path}`, 'http://127.0.0.1:53683/callback'))).status).toBe(200);
    for (const other of ['http://127.0.0.1:53682/callback/', 'http://127.0.0.1:53682/other', 'https://evil.example/callback']) {
      const r = await call(ctx, 'GET', authorizeUrl(`${HOST}${path}`, other));
      expect(r.status, other).toBe(400);
      expect(r.headers.location).toBeUndefined();
      expect(r.text).toContain('does not match its registration');
    }
  });

  it('refuse documents that are not a valid public-client description of their own URL', async () => {
    const cases: Array<[string, Served]> = [
      ['/bad/other-id.json', { body: doc('/bad/someone-else.json') }],
      ['/bad/secret-method.json', { body: doc('/bad/secret-method.json', { token_endpoint_auth_method: 'client_secret_basic' }) }],
      ['/bad/with-secret.json', { body: doc('/bad/with-secret.json', { client_secret: 'x' }) }],
      ['/bad/http-redirect.json', { body: doc('/bad/http-redirect.json', { redirect_uris: ['http://assistant.example/cb'] }) }],
      ['/bad/grant.json', { body: doc('/bad/grant.json', { grant_types: ['client_credentials'] }) }],
      ['/bad/scope.json', { body: doc('/bad/scope.json', { scope: 'admin' }) }],
      ['/bad/not-json.json', { body: doc('/bad/not-json.json'), type: 'text/html' }],
      ['/bad/garbage.json', { body: '{not json' }],
      ['/bad/status.json', { body: doc('/bad/status.json'), status: 500 }],
      ['/bad/redirect.json', { status: 302, location: '/clients/exact.json', body: '' }],
      ['/bad/large.json', { body: doc('/bad/large.json', { client_name: 'x'.repeat(LIMITS.maxBytes) }) }],
      ['/bad/large-chunked.json', { body: doc('/bad/large-chunked.json', { client_name: 'y'.repeat(LIMITS.maxBytes) }), chunked: true }],
      ['/bad/slow.json', { body: doc('/bad/slow.json'), delayMs: 1500 }],
    ];
    const exactBefore = hits.get('/clients/exact.json') ?? 0;
    for (const [path, served] of cases) {
      docs.set(path, served);
      const r = await call(ctx, 'GET', authorizeUrl(`${HOST}${path}`));
      expect(r.status, path).toBe(400);
      expect(r.headers.location, path).toBeUndefined();
      expect(r.text, path).toContain('not registered');
      expect(hits.get(path), path).toBe(1);
      expect(await ctx.db.query('select 1 from mcp_clients where id = $1', [`${HOST}${path}`]), path).toHaveLength(0);
    }
    // The redirect was not followed.
    expect(hits.get('/clients/exact.json') ?? 0).toBe(exactBefore);
  });

  it('are not fetched for URLs outside the rules: not https, no path, a port, credentials, a fragment, local or private hosts', async () => {
    for (const id of [
      'http://assistant.example/client.json',
      'https://assistant.example/',
      'https://assistant.example:8443/client.json',
      'https://user:pw@assistant.example/client.json',
      'https://assistant.example/client.json#x',
      'https://localhost/client.json',
      'https://metadata/client.json',
      'https://127.0.0.1/client.json',
      'https://10.1.2.3/client.json',
      'https://169.254.169.254/latest/meta-data',
      'https://[::1]/client.json',
      'https://[fd00::1]/client.json',
      'https://ASSISTANT.example/client.json',
      'https://assistant.example/a/../client.json',
    ]) {
      expect(metadataUrlProblem(id), id).not.toBeNull();
    }
    expect(metadataUrlProblem(`${HOST}/clients/sdk.json`)).toBeNull();
    const before = [...hits.values()].reduce((a, b) => a + b, 0);
    const r = await call(ctx, 'GET', authorizeUrl('https://10.1.2.3/client.json'));
    expect(r.status).toBe(400);
    expect([...hits.values()].reduce((a, b) => a + b, 0)).toBe(before);
  });
});

describe('the production fetcher (SSRF fences)', () => {
  it('classifies addresses: only public ones pass', () => {
    for (const a of ['127.0.0.1', '10.0.0.1', '172.16.5.4', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '224.0.0.1', '::1', '::', 'fe80::1', 'fd12:3456::1', '::ffff:127.0.0.1', '::ffff:7f00:1', '64:ff9b::a00:1', '2002:a00:1::1', 'not-an-ip']) {
      expect(isPublicAddress(a), a).toBe(false);
    }
    for (const a of ['93.184.216.34', '8.8.8.8', '2606:4700:4700::1111', '2a00:1450:4001:80b::200e']) expect(isPublicAddress(a), a).toBe(true);
  });

  it('refuses a host name that resolves to a loopback address (checked in the socket lookup) and an IP literal, before any connection', async () => {
    await expect(safeHttpsFetch(new URL('https://127.0.0.1/client.json'), LIMITS)).rejects.toBeInstanceOf(MetadataRefused);
    await expect(safeHttpsFetch(new URL('https://localhost/client.json'), LIMITS)).rejects.toBeInstanceOf(MetadataRefused);
    await expect(safeHttpsFetch(new URL('http://assistant.example/client.json'), LIMITS)).rejects.toThrow(/https/);
    // The socket's lookup: a name resolving to loopback (/etc/hosts) is refused after resolution,
    // in both the single-address and the all-addresses form Node's socket may ask for.
    const lookup = (host: string, all: boolean) =>
      new Promise<{ err: NodeJS.ErrnoException | null; address: unknown }>((resolve) =>
        (publicOnlyLookup as unknown as (h: string, o: { all: boolean }, cb: (err: NodeJS.ErrnoException | null, address: unknown) => void) => void)(host, { all }, (err, address) =>
          resolve({ err, address }),
        ),
      );
    for (const all of [false, true]) {
      const refused = await lookup('localhost', all);
      expect(refused.err?.code).toBe('ENOTPUBLIC');
      const ok = await lookup('93.184.216.34', all);
      expect(ok.err).toBeNull();
      expect(JSON.stringify(ok.address)).toContain('93.184.216.34');
    }
  });
});
