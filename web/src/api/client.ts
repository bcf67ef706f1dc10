// The API client, generated from the service's OpenAPI document (src/api/schema.d.ts): a path,
// a parameter or a field that changes in the API breaks `npm run build` here, not a page at run time.
import createClient, { type Middleware } from 'openapi-fetch';
import type { components, paths } from './schema';
import { auth } from '../auth';

export type Schemas = components['schemas'];

/** The API's origin: the page's own (the service serves the app) unless built with VITE_API_BASE_URL. */
export const API_BASE = (import.meta.env.VITE_API_BASE_URL as string | undefined)?.replace(/\/+$/, '') ?? '';
/**
 * X-Brand-Slug for the unauthenticated account endpoints: the brand of the server that served the page
 * (a meta tag it writes into index.html, src/web.ts), so one build serves any deployment; an app built
 * for another origin takes VITE_BRAND_SLUG; default demo.
 */
export const BRAND = (
  (typeof document !== 'undefined' ? document.querySelector<HTMLMetaElement>('meta[name="brand-slug"]')?.content : undefined) ||
  (import.meta.env.VITE_BRAND_SLUG as string | undefined) ||
  'demo'
).trim();
/** The header parameter the document requires on those endpoints (the middleware sets it too). */
export const brandParams = { header: { 'X-Brand-Slug': BRAND } };

// fetch is looked up at call time (not captured once), so a test can stand in for the network.
export const api = createClient<paths>({ baseUrl: API_BASE, fetch: (request: Request) => globalThis.fetch(request) });

let refreshing: Promise<boolean> | null = null;

/**
 * Asks the API for the refresh token in its HttpOnly cookie (src/modules/accounts/refresh-cookie.ts):
 * every request sends it; the refresh endpoint takes the cookie only with it (CSRF).
 */
export const SESSION_COOKIE_HEADER = 'x-session-cookie';

/**
 * A new access token from the refresh cookie (the browser sends it; this code never sees it); once,
 * concurrent 401s share one refresh. A session stored by an older version spends its refresh token here.
 */
export function refreshTokens(): Promise<boolean> {
  const session = auth.get();
  if (!session) return Promise.resolve(false);
  refreshing ??= fetch(`${API_BASE}/v1/users/token/refresh/`, {
    method: 'POST',
    credentials: 'same-origin',
    headers: { 'content-type': 'application/json', 'x-brand-slug': BRAND, [SESSION_COOKIE_HEADER]: '1' },
    body: JSON.stringify(session.refresh ? { refresh: session.refresh } : {}),
  })
    .then(async (r) => {
      if (!r.ok) {
        await discard(r);
        return false;
      }
      const body = await r.json();
      auth.update({ access: body.access, refresh: undefined });
      return true;
    })
    .catch(() => false)
    .finally(() => {
      refreshing = null;
    });
  return refreshing;
}

const authMiddleware: Middleware = {
  async onRequest({ request }) {
    const session = auth.get();
    if (session?.access && !request.headers.has('authorization')) request.headers.set('authorization', `Bearer ${session.access}`);
    if (!request.headers.has('x-brand-slug')) request.headers.set('x-brand-slug', BRAND);
    request.headers.set(SESSION_COOKIE_HEADER, '1');
    return request;
  },
  async onResponse({ request, response }) {
    // An expired access token: rotate once and replay; a second 401 ends the session.
    if (response.status !== 401 || !auth.get() || request.url.includes('/v1/users/token/')) return response;
    if (await refreshTokens()) {
      // The 401's body is never read: release it, or the browser keeps the request open (a page
      // that reloaded with a session never went network-idle; docs/web.md, "Session storage").
      await discard(response);
      const retry = new Request(request, { headers: new Headers(request.headers) });
      retry.headers.set('authorization', `Bearer ${auth.get()!.access}`);
      const again = await fetch(retry);
      if (again.status === 401) auth.clear();
      return again;
    }
    auth.clear();
    return response;
  },
};
api.use(authMiddleware);

/** A fetch with the session (file downloads, multipart uploads). */
export async function authFetch(path: string, init: RequestInit = {}): Promise<Response> {
  const go = () => {
    const headers = new Headers(init.headers);
    const s = auth.get();
    if (s?.access) headers.set('authorization', `Bearer ${s.access}`);
    headers.set(SESSION_COOKIE_HEADER, '1');
    return fetch(`${API_BASE}${path}`, { ...init, headers });
  };
  let r = await go();
  if (r.status === 401 && (await refreshTokens())) {
    await discard(r);
    r = await go();
  }
  return r;
}

/** Releases a response body nobody reads (cancelling it ends the request in the browser). */
async function discard(response: Response): Promise<void> {
  await response.body?.cancel().catch(() => undefined);
}

/** Downloads a file of the API (PDF invoice, prescription, attachment) with the session. */
export async function download(path: string, fallbackName: string) {
  const r = await authFetch(path);
  if (!r.ok) throw new Error(String(r.status));
  const blob = await r.blob();
  const name = /filename="?([^";]+)"?/.exec(r.headers.get('content-disposition') ?? '')?.[1] ?? fallbackName;
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** The first human-readable message of an API error body (field-keyed, {error}, {detail}, {message}). */
export function errorText(body: unknown, fallback: string): string {
  if (!body || typeof body !== 'object') return fallback;
  const b = body as Record<string, unknown>;
  for (const k of ['error', 'detail', 'message']) if (typeof b[k] === 'string') return b[k] as string;
  for (const v of Object.values(b)) if (Array.isArray(v) && typeof v[0] === 'string') return v[0];
  return fallback;
}

/** Field-keyed errors of a 400 ({field: [messages]}), for showing next to each field. */
export function fieldErrors(body: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (body && typeof body === 'object')
    for (const [k, v] of Object.entries(body)) if (Array.isArray(v) && typeof v[0] === 'string') out[k] = v[0];
  return out;
}
