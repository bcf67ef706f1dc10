// Foundation: health, readiness, error shapes, request ids, caching headers, pagination rules.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pageEnvelope, pageParams } from '../src/http/pagination.ts';
import { call, createTestContext, seedPatient, type TestContext } from './support/harness.ts';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(async () => ctx?.close());

describe('operations', () => {
  it('answers healthz and readyz', async () => {
    expect((await call(ctx, 'GET', '/healthz')).body).toEqual({ status: 'ok' });
    expect((await call(ctx, 'GET', '/readyz')).body).toEqual({ status: 'ready', checks: { database: 'ok', rate_limit_store: 'memory', shutting_down: false } });
  });

  it('answers unknown paths with a JSON 404 and a request id', async () => {
    const r = await call(ctx, 'GET', '/v1/users/no-such-thing/');
    expect(r.status).toBe(404);
    expect(r.body).toEqual({ detail: 'Not found.' });
    expect(r.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(r.headers['cache-control']).toBe('no-store');
  });

  it('echoes a well-formed incoming request id and replaces a malformed one', async () => {
    expect((await call(ctx, 'GET', '/healthz', { headers: { 'x-request-id': 'abc-12345678' } })).headers['x-request-id']).toBe('abc-12345678');
    expect((await call(ctx, 'GET', '/healthz', { headers: { 'x-request-id': 'bad id!' } })).headers['x-request-id']).not.toBe('bad id!');
  });

  it('sets security headers', async () => {
    const r = await call(ctx, 'GET', '/healthz');
    expect(r.headers['x-content-type-options']).toBe('nosniff');
    expect(r.headers['strict-transport-security']).toBeDefined();
  });
});

describe('authentication', () => {
  it('answers a missing token with 401 and WWW-Authenticate', async () => {
    const r = await call(ctx, 'GET', '/v1/users/profile/');
    expect(r.status).toBe(401);
    expect(r.headers['www-authenticate']).toMatch(/^Bearer/);
  });

  it('answers a malformed or unsigned token with token_not_valid and messages', async () => {
    for (const token of ['not-a-jwt', 'eyJhbGciOiJub25lIiwidHlwIjoiSldUIn0.eyJ1c2VyX2lkIjoiMSJ9.']) {
      const r = await call(ctx, 'GET', '/v1/users/profile/', { token });
      expect(r.status).toBe(401);
      expect(r.body.code).toBe('token_not_valid');
      expect(r.body.messages[0]).toEqual({ token_class: 'AccessToken', token_type: 'access', message: expect.any(String) });
    }
  });

  it('refuses a refresh token used as an access token', async () => {
    const p = await seedPatient(ctx);
    const r = await call(ctx, 'GET', '/v1/users/profile/', { token: p.refresh });
    expect(r.status).toBe(401);
    expect(r.body.messages[0].message).toBe('Token has wrong type');
  });
});

describe('pagination', () => {
  const req = (url: string) => ({ url }) as any;
  it('falls back on invalid limit and offset and caps the page size', () => {
    expect(pageParams({ limit: 'abc', offset: '-1' })).toEqual({ limit: 20, offset: 0 });
    expect(pageParams({ limit: '1000', offset: '5' })).toEqual({ limit: 100, offset: 5 });
    expect(pageParams({ limit: '0' })).toEqual({ limit: 20, offset: 0 });
  });
  it('builds absolute next/previous links, null at the ends', () => {
    const first = pageEnvelope(req('/v1/x/?limit=2'), 'http://h', { limit: 2, offset: 0 }, 5, []);
    expect(first.previous).toBeNull();
    expect(first.next).toBe('http://h/v1/x/?limit=2&offset=2');
    const middle = pageEnvelope(req('/v1/x/?limit=2&offset=2&page_size=9'), 'http://h', { limit: 2, offset: 2 }, 5, []);
    expect(middle.previous).toBe('http://h/v1/x/?limit=2&page_size=9');
    expect(middle.next).toBe('http://h/v1/x/?limit=2&offset=4&page_size=9');
    const last = pageEnvelope(req('/v1/x/?limit=2&offset=4'), 'http://h', { limit: 2, offset: 4 }, 5, []);
    expect(last.next).toBeNull();
    expect(last.previous).toBe('http://h/v1/x/?limit=2&offset=2');
  });
});
