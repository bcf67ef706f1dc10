// Who the client is: X-Forwarded-For is believed only from configured proxies, browsers on other
// origins only when listed, and the forgot-password form has a per-address budget.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.ts';
import { call, createTestContext, PASSWORD, uniqueEmail, type TestContext } from './support/harness.ts';

const LIMITS = { SIGNIN_FAILURES_PER_IP: '3', SIGNIN_FAILURES_PER_ACCOUNT: '100', FORGOT_PASSWORD_PER_IP: '3' };

describe('TRUST_PROXY unset (the default): no proxy is trusted', () => {
  let ctx: TestContext;
  const lines: string[] = [];
  beforeAll(async () => {
    ctx = await createTestContext({ ...LIMITS, LOG_LEVEL: 'info' }, { logStream: { write: (line: string) => void lines.push(line) } });
  });
  afterAll(async () => ctx?.close());

  it('a rotating X-Forwarded-For neither resets the sign-in budget nor changes the logged address', async () => {
    const ip = '198.51.100.40';
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) {
      const r = await call(ctx, 'POST', '/v1/users/token/', {
        brand: true,
        ip,
        headers: { 'x-forwarded-for': `203.0.113.${i + 1}` },
        json: { email: uniqueEmail('spoof'), password: 'Wrong-Password-1' },
      });
      statuses.push(r.status);
    }
    expect(statuses).toEqual([401, 401, 401, 429, 429]);
    const logged = lines.map((l) => JSON.parse(l)).filter((l) => l.req?.url === '/v1/users/token/');
    expect(logged.length).toBeGreaterThan(0);
    for (const entry of logged) expect(entry.req.remoteAddress).toBe(ip);
  });

  it('budgets forgot-password requests per address, whatever the header says', async () => {
    const ip = '198.51.100.41';
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) {
      const r = await call(ctx, 'POST', '/v1/users/forgot-password/', { brand: true, ip, headers: { 'x-forwarded-for': `192.0.2.${i}` }, json: { email: uniqueEmail('forgot') } });
      statuses.push(r.status);
    }
    expect(statuses).toEqual([200, 200, 200, 429]);
    const other = await call(ctx, 'POST', '/v1/users/forgot-password/', { brand: true, ip: '198.51.100.42', json: { email: uniqueEmail('forgot') } });
    expect(other.status).toBe(200);
  });

  it('sends no CORS headers to another origin (same origin only)', async () => {
    const pre = await call(ctx, 'OPTIONS', '/v1/users/profile/me/', { headers: { origin: 'https://evil.example', 'access-control-request-method': 'PATCH' } });
    expect(pre.headers['access-control-allow-origin']).toBeUndefined();
  });
});

describe('TRUST_PROXY=1 and CORS_ORIGINS set', () => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await createTestContext({ ...LIMITS, TRUST_PROXY: '1', CORS_ORIGINS: 'https://app.example.org,http://localhost:5173' });
  });
  afterAll(async () => ctx?.close());

  it('takes the client address from the nearest proxy hop', async () => {
    // Behind one proxy, the last X-Forwarded-For entry is the client the proxy saw.
    const proxy = '10.0.0.5';
    for (let i = 0; i < 3; i++) {
      const r = await call(ctx, 'POST', '/v1/users/token/', { brand: true, ip: proxy, headers: { 'x-forwarded-for': '203.0.113.60' }, json: { email: uniqueEmail('p'), password: 'Wrong-1-x' } });
      expect(r.status).toBe(401);
    }
    const blocked = await call(ctx, 'POST', '/v1/users/token/', { brand: true, ip: proxy, headers: { 'x-forwarded-for': '203.0.113.60' }, json: { email: uniqueEmail('p'), password: PASSWORD } });
    expect(blocked.status).toBe(429);
    // Another client behind the same proxy keeps its own budget; a forged extra entry is ignored.
    const other = await call(ctx, 'POST', '/v1/users/token/', { brand: true, ip: proxy, headers: { 'x-forwarded-for': '203.0.113.60, 203.0.113.61' }, json: { email: uniqueEmail('p'), password: 'Wrong-1-x' } });
    expect(other.status).toBe(401);
  });

  it('answers a preflight from a listed origin with the methods and headers the API uses', async () => {
    const pre = await call(ctx, 'OPTIONS', '/v1/users/profile/me/', {
      headers: { origin: 'https://app.example.org', 'access-control-request-method': 'PATCH', 'access-control-request-headers': 'authorization,content-type,x-brand-slug' },
    });
    expect(pre.status).toBe(204);
    expect(pre.headers['access-control-allow-origin']).toBe('https://app.example.org');
    const methods = String(pre.headers['access-control-allow-methods']);
    for (const m of ['GET', 'POST', 'PATCH', 'DELETE']) expect(methods).toContain(m);
    const allowed = String(pre.headers['access-control-allow-headers']).toLowerCase();
    for (const h of ['authorization', 'content-type', 'x-brand-slug']) expect(allowed).toContain(h);
    const simple = await call(ctx, 'GET', '/healthz', { headers: { origin: 'https://app.example.org' } });
    const exposed = String(simple.headers['access-control-expose-headers']).toLowerCase();
    expect(exposed).toContain('retry-after');
    expect(exposed).toContain('x-request-id');
    const evil = await call(ctx, 'OPTIONS', '/v1/users/profile/me/', { headers: { origin: 'https://evil.example', 'access-control-request-method': 'PATCH' } });
    expect(evil.headers['access-control-allow-origin']).toBeUndefined();
  });
});

describe('configuration', () => {
  it('refuses malformed TRUST_PROXY and CORS_ORIGINS values, naming the variable', () => {
    expect(() => loadConfig({ TRUST_PROXY: 'everyone' })).toThrow(/TRUST_PROXY/);
    expect(() => loadConfig({ CORS_ORIGINS: 'https://app.example.org/' })).toThrow(/CORS_ORIGINS/);
    expect(loadConfig({ TRUST_PROXY: '10.0.0.0/8, 192.168.1.1' }).TRUST_PROXY).toEqual(['10.0.0.0/8', '192.168.1.1']);
    expect(loadConfig({}).TRUST_PROXY).toBe(false);
  });
});
