// Client ID Metadata Documents (the MCP authorization spec 2025-11-25, draft-ietf-oauth-client-id-
// metadata-document): a client whose client_id is an https URL is described by the JSON document at
// that URL, which the authorization server fetches. Fetching a URL chosen by whoever opens the
// authorization page is a server-side request forgery risk, so the fetch is fenced in (docs/mcp.md):
// https on port 443 only, no credentials in the URL, every resolved address public (checked in the
// socket's own DNS lookup, so the address checked is the address connected to: no DNS rebinding
// between check and use), no redirects, a 5 s time limit and a 5 KiB size limit, JSON only. The
// document is then validated like a registration, must name itself as client_id and may only describe
// a public client (no secret can be shared with a URL). Valid documents are cached in mcp_clients
// (the row that grants, codes and tokens refer to) for their Cache-Control max-age, within bounds.
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { request as httpsRequest } from 'node:https';
import type { ClientRequest, IncomingMessage } from 'node:http';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { OAuthClientMetadataSchema } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { Deps } from '../../deps.ts';
import * as repo from './repository.ts';

export interface FetchLimits {
  timeoutMs: number;
  maxBytes: number;
}
export interface FetchedDocument {
  status: number;
  contentType: string;
  cacheControl: string;
  body: string;
}
/** Fetches a metadata document; rejects on any refusal. Replaceable in tests (setMetadataFetcher). */
export type MetadataFetcher = (url: URL, limits: FetchLimits) => Promise<FetchedDocument>;

export const LIMITS: Readonly<FetchLimits> = { timeoutMs: 5000, maxBytes: 5120 };
/** Cache lifetime of a valid document: its max-age, between these bounds; 1 hour without one. */
export const CACHE_SECONDS = { min: 60, max: 24 * 3600, fallback: 3600 } as const;

export class MetadataRefused extends Error {}

/** An https URL with a path, the form a metadata-document client_id takes (anything else is a registered id). */
export function isMetadataUrl(clientId: string): boolean {
  return clientId.startsWith('https://');
}

/** Why a client_id URL is not fetched at all; null when it may be. */
export function metadataUrlProblem(clientId: string): string | null {
  let u: URL;
  try {
    u = new URL(clientId);
  } catch {
    return 'is not a URL';
  }
  if (u.protocol !== 'https:') return 'must use https';
  if (u.href !== clientId) return 'must be in normal form';
  if (u.pathname === '/' || u.pathname === '') return 'must have a path';
  if (u.hash || clientId.includes('#')) return 'must not have a fragment';
  if (u.username || u.password) return 'must not contain credentials';
  if (u.port !== '') return 'must use the default https port';
  if (u.pathname.split('/').some((seg) => seg === '.' || seg === '..')) return 'must not contain dot segments';
  if (clientId.length > 2000) return 'is too long';
  const host = u.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) && !isPublicAddress(host)) return 'names a non-public address';
  if (!isIP(host) && (host === 'localhost' || host.endsWith('.localhost') || !host.includes('.'))) return 'names a local host';
  return null;
}

// Addresses that are not the public Internet (IANA special-purpose registries): loopback, private,
// shared (CGNAT), link-local, documentation, benchmarking, multicast, reserved, unique local, and
// the IPv6 forms that embed an IPv4 address (mapped, NAT64, 6to4, Teredo).
// Two lists: Node's BlockList matches an IPv4 address against IPv6 rules in its mapped form, so
// ::ffff:0:0/96 in a shared list would refuse every IPv4 address.
const NON_PUBLIC_V4 = new BlockList();
const NON_PUBLIC_V6 = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  NON_PUBLIC_V4.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['::ffff:0:0', 96],
  ['64:ff9b::', 96],
  ['64:ff9b:1::', 48],
  ['100::', 64],
  ['2001::', 23],
  ['2001:db8::', 32],
  ['2002::', 16],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const)
  NON_PUBLIC_V6.addSubnet(net, prefix, 'ipv6');

export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  // An IPv4-mapped address written in dotted form (::ffff:127.0.0.1) is judged by its IPv4 part too.
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped?.[1] && NON_PUBLIC_V4.check(mapped[1], 'ipv4')) return false;
  return family === 4 ? !NON_PUBLIC_V4.check(address, 'ipv4') : !NON_PUBLIC_V6.check(address, 'ipv6');
}

/** The socket's DNS lookup: every address the name resolves to must be public, and the socket connects to one of those. */
export const publicOnlyLookup = ((hostname: string, options: { family?: number; all?: boolean; hints?: number }, callback: (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void) => {
  dnsLookup(hostname, { all: true, family: options.family ?? 0, hints: options.hints }, (err, addresses) => {
    if (err) return callback(err, '');
    if (addresses.length === 0 || addresses.some((a) => !isPublicAddress(a.address))) {
      return callback(Object.assign(new Error(`${hostname} resolves to a non-public address`), { code: 'ENOTPUBLIC' }), '');
    }
    if (options.all) return callback(null, addresses);
    const [first] = addresses;
    if (!first) return callback(Object.assign(new Error(`${hostname} resolves to no address`), { code: 'ENOTFOUND' }), '');
    return callback(null, first.address, first.family);
  });
}) as unknown as LookupFunction;

/** Reads a response body up to maxBytes; more is a refusal (the socket is destroyed at once). */
export function readCapped(res: IncomingMessage, maxBytes: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const declared = Number(res.headers['content-length']);
    if (Number.isFinite(declared) && declared > maxBytes) {
      res.destroy();
      return reject(new MetadataRefused('document too large'));
    }
    const chunks: Buffer[] = [];
    let size = 0;
    res.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        res.destroy();
        reject(new MetadataRefused('document too large'));
        return;
      }
      chunks.push(chunk);
    });
    res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    res.on('error', reject);
  });
}

const header = (v: string | string[] | undefined) => (Array.isArray(v) ? v.join(', ') : (v ?? ''));

/**
 * One GET with the time and size limits, no redirect followed (a 3xx is just a status, refused by
 * validateDocument). `open` starts the request: https with the public-only lookup in production, a
 * plain local stub in the tests, so the limits tested are the ones used.
 */
export function fetchDocument(url: URL, limits: FetchLimits, open: (url: URL, onResponse: (res: IncomingMessage) => void) => ClientRequest): Promise<FetchedDocument> {
  return new Promise((resolve, reject) => {
    const req = open(url, (res) => {
      readCapped(res, limits.maxBytes).then(
        (body) => resolve({ status: res.statusCode ?? 0, contentType: header(res.headers['content-type']), cacheControl: header(res.headers['cache-control']), body }),
        reject,
      );
    });
    const timer = setTimeout(() => req.destroy(new MetadataRefused('timed out')), limits.timeoutMs);
    req.on('close', () => clearTimeout(timer));
    req.on('response', (res) => res.on('close', () => clearTimeout(timer)));
    req.on('error', (err) => reject(err instanceof MetadataRefused ? err : new MetadataRefused(`fetch failed: ${(err as NodeJS.ErrnoException).code ?? err.message}`)));
    req.end();
  });
}

/** The production fetcher: https only, public addresses only (IP literals checked here, names in the lookup), no redirects, limits. */
export const safeHttpsFetch: MetadataFetcher = (url, limits) => {
  const problem = metadataUrlProblem(url.href);
  if (problem) return Promise.reject(new MetadataRefused(`client_id URL ${problem}`));
  return fetchDocument(url, limits, (u, onResponse) =>
    httpsRequest(u, { method: 'GET', lookup: publicOnlyLookup, headers: { accept: 'application/json' }, agent: false, maxHeaderSize: 16384 }, onResponse),
  );
};

let fetcher: MetadataFetcher = safeHttpsFetch;
let limits: FetchLimits = { ...LIMITS };

/** Test hook: replaces the fetcher (and optionally the limits); returns the function that restores them. */
export function setMetadataFetcher(next: MetadataFetcher, nextLimits: Partial<FetchLimits> = {}): () => void {
  const previous = { fetcher, limits };
  fetcher = next;
  limits = { ...LIMITS, ...nextLimits };
  return () => {
    fetcher = previous.fetcher;
    limits = previous.limits;
  };
}

function maxAge(cacheControl: string): number {
  if (/\bno-store\b|\bno-cache\b/i.test(cacheControl)) return CACHE_SECONDS.min;
  const m = /\bmax-age\s*=\s*(\d+)/i.exec(cacheControl);
  const seconds = m ? Number(m[1]) : CACHE_SECONDS.fallback;
  return Math.min(CACHE_SECONDS.max, Math.max(CACHE_SECONDS.min, seconds));
}

export interface ValidDocument {
  clientName: string;
  redirectUris: string[];
  metadata: Record<string, unknown>;
}

/** Validates a fetched document for client_id `url`; throws MetadataRefused with the reason. */
export function validateDocument(
  url: string,
  doc: FetchedDocument,
  checks: { redirectUriProblem: (uri: string) => string | null; parseScopes: (raw: string) => readonly string[] | undefined },
): ValidDocument {
  if (doc.status !== 200) throw new MetadataRefused(`status ${doc.status}`);
  if (!/^application\/([a-z0-9.+-]*\+)?json\b/i.test(doc.contentType.trim())) throw new MetadataRefused('not JSON');
  let json: unknown;
  try {
    json = JSON.parse(doc.body);
  } catch {
    throw new MetadataRefused('not JSON');
  }
  if (!json || typeof json !== 'object' || Array.isArray(json)) throw new MetadataRefused('not an object');
  const raw = json as Record<string, unknown>;
  if (raw.client_id !== url) throw new MetadataRefused('client_id does not equal the document URL');
  if ('client_secret' in raw || 'client_secret_expires_at' in raw) throw new MetadataRefused('a metadata document cannot carry a secret');
  const parsed = OAuthClientMetadataSchema.safeParse(raw);
  if (!parsed.success) throw new MetadataRefused('invalid client metadata');
  const meta = parsed.data;
  const method = meta.token_endpoint_auth_method ?? 'none';
  if (method !== 'none') throw new MetadataRefused('only public clients (token_endpoint_auth_method none) are supported');
  if (meta.redirect_uris.length === 0 || meta.redirect_uris.length > 10) throw new MetadataRefused('1 to 10 redirect URIs');
  for (const uri of meta.redirect_uris) if (checks.redirectUriProblem(uri)) throw new MetadataRefused('invalid redirect URI');
  const grantTypes = meta.grant_types ?? ['authorization_code', 'refresh_token'];
  if (!grantTypes.every((g) => g === 'authorization_code' || g === 'refresh_token')) throw new MetadataRefused('unsupported grant type');
  const responseTypes = meta.response_types ?? ['code'];
  if (!responseTypes.every((r) => r === 'code')) throw new MetadataRefused('unsupported response type');
  const scope = meta.scope === undefined ? undefined : checks.parseScopes(meta.scope);
  if (meta.scope !== undefined && scope === undefined) throw new MetadataRefused('unknown scope');
  const clientName = (meta.client_name ?? '').trim().slice(0, 120);
  return {
    clientName,
    redirectUris: meta.redirect_uris,
    metadata: JSON.parse(
      JSON.stringify({
        client_id_metadata_document: true,
        redirect_uris: meta.redirect_uris,
        client_name: clientName || undefined,
        client_uri: meta.client_uri,
        logo_uri: meta.logo_uri,
        token_endpoint_auth_method: 'none',
        grant_types: grantTypes,
        response_types: responseTypes,
        scope: scope?.join(' '),
        software_id: meta.software_id,
        software_version: meta.software_version,
      }),
    ) as Record<string, unknown>,
  };
}

/**
 * The client described by the metadata document at `clientId`: the cached row while fresh, else the
 * document fetched, validated and stored. undefined when the URL is refused or the document invalid.
 */
export async function metadataClient(
  deps: Deps,
  clientId: string,
  checks: Parameters<typeof validateDocument>[2],
): Promise<repo.ClientRow | undefined> {
  if (metadataUrlProblem(clientId)) return undefined;
  const now = deps.clock.now();
  const cached = await repo.findClient(deps.db, clientId);
  const until = typeof cached?.metadata.cache_until === 'string' ? Date.parse(cached.metadata.cache_until) : NaN;
  if (cached && cached.metadata.client_id_metadata_document === true && until > now.getTime()) return cached;
  try {
    const doc = await fetcher(new URL(clientId), limits);
    const valid = validateDocument(clientId, doc, checks);
    const cacheUntil = new Date(now.getTime() + maxAge(doc.cacheControl) * 1000).toISOString();
    return await repo.upsertMetadataClient(deps.db, { id: clientId, clientName: valid.clientName, redirectUris: valid.redirectUris, metadata: { ...valid.metadata, cache_until: cacheUntil } });
  } catch (err) {
    // The reason is logged (a URL and a refusal, nothing secret); the page says "not registered".
    deps.log.info({ client_id: clientId, reason: err instanceof Error ? err.message : String(err) }, 'mcp: client metadata document refused');
    return undefined;
  }
}
