// The session without a readable refresh token (issue 43; docs/web.md, "Session storage"): the access
// token lives in memory, localStorage holds only the role flags; every request asks for the refresh
// cookie (`X-Session-Cookie: 1`); a 401 is answered by a refresh that sends no token (the browser
// sends the HttpOnly cookie), then the request is replayed; sign-out sends no token either.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { auth } from '../src/auth';
import { api, authFetch, refreshTokens } from '../src/api/client';

afterEach(() => {
  vi.unstubAllGlobals();
  auth.clear();
  localStorage.clear();
});

interface Sent {
  url: string;
  method: string;
  headers: Headers;
  body: string;
  credentials?: RequestCredentials;
}

/** Answers each request with the next of `list`, recording what was sent (a Request or url + init). */
function network(...list: [number, unknown][]) {
  const sent: Sent[] = [];
  vi.stubGlobal(
    'fetch',
    vi.fn(async (input: Request | string, init?: RequestInit) => {
      const request = typeof input === 'string' ? new Request(`http://app.test${input}`, init) : input;
      sent.push({ url: request.url, method: request.method, headers: request.headers, body: await request.clone().text(), credentials: init?.credentials ?? request.credentials });
      const [status, body] = list.shift() ?? [500, {}];
      return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
    }),
  );
  return sent;
}

const pair = { access: 'access-1', refresh: 'refresh-secret-1', is_doctor: false, is_backoffice_admin: false, is_marketer: false, is_pharmacist: false };

describe('session storage', () => {
  it('keeps the access token in memory and no token in localStorage', () => {
    auth.set(pair);
    expect(auth.get()).toMatchObject({ access: 'access-1', is_doctor: false });
    expect(auth.get()!.refresh).toBeUndefined();
    const stored = localStorage.getItem('pts.session') ?? '';
    expect(stored).not.toContain('access-1');
    expect(stored).not.toContain('refresh-secret-1');
    expect(JSON.parse(stored)).toEqual({ key: expect.any(String), is_doctor: false, is_backoffice_admin: false, is_marketer: false, is_pharmacist: false });
    auth.update({ access: 'access-2', refresh: 'refresh-secret-2' });
    expect(auth.get()!.access).toBe('access-2');
    expect(auth.get()!.refresh).toBeUndefined();
    expect(localStorage.getItem('pts.session')).not.toContain('secret');
  });

  it('every API request asks for the cookie; a 401 refreshes by cookie (no token sent) and replays', async () => {
    auth.set(pair);
    const sent = network([401, { detail: 'expired', code: 'token_not_valid' }], [200, { access: 'access-new', refresh: 'refresh-secret-new' }], [200, { email: 'a@example.org' }]);
    const { data } = await api.GET('/v1/users/profile/me/');
    expect(data).toMatchObject({ email: 'a@example.org' });
    expect(sent.map((s) => `${s.method} ${new URL(s.url).pathname}`)).toEqual(['GET /v1/users/profile/me/', 'POST /v1/users/token/refresh/', 'GET /v1/users/profile/me/']);
    expect(sent[0]!.headers.get('x-session-cookie')).toBe('1');
    expect(sent[0]!.headers.get('authorization')).toBe('Bearer access-1');
    const refresh = sent[1]!;
    expect(refresh.headers.get('x-session-cookie')).toBe('1');
    expect(JSON.parse(refresh.body)).toEqual({});
    expect(refresh.credentials).toBe('same-origin');
    expect(sent[2]!.headers.get('authorization')).toBe('Bearer access-new');
    expect(auth.get()!.access).toBe('access-new');
    expect(localStorage.getItem('pts.session')).not.toContain('refresh-secret-new');
  });

  it('a refused cookie refresh ends the session', async () => {
    auth.set(pair);
    network([401, { detail: 'used', code: 'token_not_valid' }]);
    expect(await refreshTokens()).toBe(false);
    network([401, {}], [401, {}]);
    await api.GET('/v1/users/profile/me/');
    expect(auth.get()).toBeNull();
  });

  it('after a reload (no access token yet) no empty bearer is sent: the 401 leads to the cookie refresh', async () => {
    auth.set(pair);
    auth.update({ access: '' });
    const sent = network([401, {}], [200, { access: 'access-3', refresh: 'r3' }], [200, { email: 'a@example.org' }]);
    await api.GET('/v1/users/profile/me/');
    expect(sent[0]!.headers.has('authorization')).toBe(false);
    expect(sent[2]!.headers.get('authorization')).toBe('Bearer access-3');
  });

  it('the 401 that led to a refresh is released (its body cancelled), else the browser keeps the request open', async () => {
    auth.set(pair);
    auth.update({ access: '' });
    // A 401 whose body is still arriving, as over the network: released only by reading or cancelling it.
    const released: boolean[] = [];
    const list: [number, unknown][] = [[401, {}], [200, { access: 'access-4' }], [200, { email: 'a@example.org' }], [401, {}], [200, { access: 'access-5' }], [200, {}]];
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => {
        const [status, body] = list.shift() ?? [500, {}];
        if (status !== 401) return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
        const i = released.push(false) - 1;
        const stream = new ReadableStream<Uint8Array>({
          start: (c) => c.enqueue(new TextEncoder().encode('{"detail":')),
          cancel: () => {
            released[i] = true;
          },
        });
        return new Response(stream, { status, headers: { 'content-type': 'application/json' } });
      }),
    );
    const { data } = await api.GET('/v1/users/profile/me/');
    expect(data).toMatchObject({ email: 'a@example.org' });
    auth.update({ access: '' });
    const r = await authFetch('/v1/users/photos/x/');
    expect(r.status).toBe(200);
    expect(released).toEqual([true, true]);
  });

  it('a replay refused again ends the session and its error body stays readable', async () => {
    auth.set(pair);
    network([401, {}], [200, { access: 'access-6' }], [401, { detail: 'gone', code: 'token_not_valid' }]);
    const { error } = await api.GET('/v1/users/profile/me/');
    expect(error).toMatchObject({ detail: 'gone' });
    expect(auth.get()).toBeNull();
  });
});
