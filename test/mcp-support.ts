// Helpers of the assistant-connector tests: a real listening server for the MCP SDK's own client,
// an OAuthClientProvider kept in memory, and the sign-in and consent pages driven over HTTP.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { hashPassword } from '../src/modules/accounts/passwords.ts';
import { PASSWORD, TEST_BASE_URL, seedPatient, type Patient, type TestContext } from './support/harness.ts';

export const MCP_URL = `${TEST_BASE_URL}/mcp`;
export type Fetch = typeof fetch;

/** Listens on 127.0.0.1:<random>; the returned fetch sends the service's public URLs there. */
export async function listen(ctx: TestContext): Promise<Fetch> {
  await ctx.app.listen({ port: 0, host: '127.0.0.1' });
  const addr = ctx.app.server.address();
  if (!addr || typeof addr === 'string') throw new Error('no address');
  const local = `http://127.0.0.1:${addr.port}`;
  return ((input: string | URL | Request, init?: RequestInit) => {
    const url = input instanceof Request ? input.url : String(input);
    return fetch(url.startsWith(TEST_BASE_URL) ? local + url.slice(TEST_BASE_URL.length) : url, init);
  }) as Fetch;
}

/** A patient with a password (the sign-in page needs one). */
export async function patientWithPassword(ctx: TestContext, columns: Record<string, unknown> = {}): Promise<Patient> {
  return seedPatient(ctx, { password_hash: await hashPassword(PASSWORD), date_of_birth: '1985-04-12', country_of_residence: 'DEU', gender: '0', ...columns });
}

export class MemoryProvider implements OAuthClientProvider {
  info?: OAuthClientInformationMixed;
  saved?: OAuthTokens;
  verifier = '';
  authUrl?: URL;
  constructor(
    public readonly redirect = 'http://127.0.0.1:53682/callback',
    public readonly options: { scope?: string; authMethod?: string; name?: string } = {},
  ) {}
  get redirectUrl() {
    return this.redirect;
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: this.options.name ?? 'Test Assistant',
      redirect_uris: [this.redirect],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: this.options.authMethod ?? 'none',
      ...(this.options.scope ? { scope: this.options.scope } : {}),
    };
  }
  clientInformation() {
    return this.info;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.info = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authUrl = url;
  }
  saveCodeVerifier(v: string) {
    this.verifier = v;
  }
  codeVerifier() {
    return this.verifier;
  }
}

export const hidden = (html: string, name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(html)?.[1] ?? '';

export interface PageRes {
  status: number;
  html: string;
  location: string | null;
  setCookie: string | null;
}

async function asPage(res: Response): Promise<PageRes> {
  return { status: res.status, html: await res.text(), location: res.headers.get('location'), setCookie: res.headers.get('set-cookie') };
}

export const form = (f: Fetch, path: string, fields: Record<string, string>, cookie?: string, headers: Record<string, string> = {}) =>
  f(`${TEST_BASE_URL}${path}`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...(cookie ? { cookie } : {}), ...headers },
    body: new URLSearchParams(fields).toString(),
  }).then(asPage);

export const getPage = (f: Fetch, url: string | URL, headers: Record<string, string> = {}) => f(String(url), { redirect: 'manual', headers }).then(asPage);

/** Opens the authorization URL, signs in, and answers the consent page; returns every page on the way. */
export async function authorize(f: Fetch, authUrl: URL | string, email: string, password = PASSWORD, decision: 'allow' | 'deny' = 'allow') {
  const start = await getPage(f, authUrl);
  if (start.status !== 200) return { start };
  const cookie = start.setCookie!.split(';')[0];
  const request = hidden(start.html, 'request');
  const csrf = hidden(start.html, 'csrf');
  const signIn = await form(f, '/oauth/sign-in', { request, csrf, email, password }, cookie);
  if (signIn.status !== 200) return { start, signIn };
  const consent = await form(f, '/oauth/consent', { request, csrf, decision }, cookie);
  const redirect = consent.location ? new URL(consent.location) : undefined;
  return { start, signIn, consent, redirect, code: redirect?.searchParams.get('code') ?? undefined, cookie, request, csrf };
}

export async function connect(f: Fetch, provider: MemoryProvider): Promise<Client> {
  const client = new Client({ name: 'vitest', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(MCP_URL), { authProvider: provider, fetch: f }));
  return client;
}

/** The whole flow through the SDK: 401 -> discovery -> registration -> pages -> token -> a connected client. */
export async function connectAs(f: Fetch, email: string, provider = new MemoryProvider()) {
  const transport = new StreamableHTTPClientTransport(new URL(MCP_URL), { authProvider: provider, fetch: f });
  const first = new Client({ name: 'vitest', version: '1.0.0' });
  await first.connect(transport).then(
    () => {
      throw new Error('connected without authorization');
    },
    (err) => {
      if (!/unauthori[sz]ed/i.test(String(err?.name ?? '') + String(err?.message ?? ''))) throw err;
    },
  );
  if (!provider.authUrl) throw new Error('no authorization URL');
  const flow = await authorize(f, provider.authUrl, email);
  if (!flow.code) throw new Error(`authorization failed: ${JSON.stringify({ start: flow.start.status, signIn: flow.signIn?.status, consent: flow.consent?.status })}`);
  await transport.finishAuth(flow.code);
  const client = await connect(f, provider);
  return { client, provider, flow };
}
