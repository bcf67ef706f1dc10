// The security headers every answer carries (set once per request by src/app.ts;
// before, @fastify/helmet set them with the same options): the values are spelled out here, so a
// change to the set is a deliberate one.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTestContext, seedPatient, type TestContext } from './support/harness.ts';

const EXPECTED: Record<string, string> = {
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-site',
  'origin-agent-cluster': '?1',
  'referrer-policy': 'no-referrer',
  'strict-transport-security': 'max-age=31536000; includeSubDomains',
  'x-content-type-options': 'nosniff',
  'x-dns-prefetch-control': 'off',
  'x-download-options': 'noopen',
  'x-frame-options': 'SAMEORIGIN',
  'x-permitted-cross-domain-policies': 'none',
  'x-xss-protection': '0',
};

describe('security headers', () => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await createTestContext();
  });
  afterAll(async () => ctx?.close());

  const expectAll = (headers: Record<string, unknown>) => {
    for (const [name, value] of Object.entries(EXPECTED)) expect(headers[name], name).toBe(value);
    expect(headers['content-security-policy']).toBeUndefined();
    expect(headers['x-request-id']).toEqual(expect.any(String));
  };

  it('are on a success, a refusal, a not-found and a preflight answer', async () => {
    const patient = await seedPatient(ctx);
    const ok = await call(ctx, 'GET', '/v1/users/profile/', { token: patient.access });
    expect(ok.status).toBe(200);
    expectAll(ok.headers);
    expect(ok.headers['cache-control']).toBe('no-store');
    const refused = await call(ctx, 'GET', '/v1/users/profile/');
    expect(refused.status).toBe(401);
    expectAll(refused.headers);
    const missing = await call(ctx, 'GET', '/v1/users/no-such-thing/');
    expect(missing.status).toBe(404);
    expectAll(missing.headers);
    const health = await call(ctx, 'GET', '/healthz');
    expectAll(health.headers);
    expect(health.headers['cache-control']).toBeUndefined();
    const preflight = await call(ctx, 'OPTIONS', '/v1/users/profile/me/', { headers: { origin: 'https://evil.example', 'access-control-request-method': 'PATCH' } });
    expectAll(preflight.headers);
  });

  it('a public cacheable route keeps its own Cache-Control', async () => {
    const r = await call(ctx, 'GET', '/v1/users/questionnaires/categories/', { brand: true });
    expect(r.status).toBe(200);
    expect(r.headers['cache-control']).not.toBe('no-store');
    expectAll(r.headers);
  });
});
