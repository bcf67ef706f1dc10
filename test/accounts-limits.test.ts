// Per-IP budgets (with small limits so the test stays short) and the Redis-backed counters.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { loadConfig } from '../src/config.ts';
import { createLimiters } from '../src/lib/rate-limit.ts';
import { call, createTestContext, newPatient, PASSWORD, uniqueEmail, type TestContext } from './support/harness.ts';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext({ REGISTRATIONS_PER_IP: '3', SIGNIN_FAILURES_PER_IP: '4', SIGNIN_FAILURES_PER_ACCOUNT: '100' });
});
afterAll(async () => ctx?.close());

describe('per-IP budgets', () => {
  it('answers 429 REGISTRATION_RATE_LIMITED once an address has used its registration budget', async () => {
    const ip = '203.0.113.7';
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await call(ctx, 'POST', '/v1/users/register/', { brand: true, ip, json: { email: uniqueEmail('ipreg'), password: PASSWORD } })).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
    const other = await call(ctx, 'POST', '/v1/users/register/', { brand: true, ip: '203.0.113.8', json: { email: uniqueEmail('ipreg'), password: PASSWORD } });
    expect(other.status).toBe(200);
  });

  it('limits failed sign-ins per IP across accounts, leaving other addresses alone', async () => {
    const victim = await newPatient(ctx, 'office');
    const ip = '198.51.100.9';
    for (let i = 0; i < 4; i++) {
      const r = await call(ctx, 'POST', '/v1/users/token/', { brand: true, ip, json: { email: uniqueEmail('spray'), password: 'Wrong-Password-1' } });
      expect(r.status).toBe(401);
    }
    const blocked = await call(ctx, 'POST', '/v1/users/token/', { brand: true, ip, json: { email: victim.email, password: PASSWORD } });
    expect(blocked.status).toBe(429);
    expect(blocked.headers['retry-after']).toBeDefined();
    const office = await call(ctx, 'POST', '/v1/users/token/', { brand: true, ip: '198.51.100.10', json: { email: victim.email, password: PASSWORD } });
    expect(office.status).toBe(200);
  });
});

describe.skipIf(!process.env.TEST_REDIS_URL)('Redis-backed counters', () => {
  it('shares a budget between two limiter instances (two processes)', async () => {
    const a = createLimiters({ REDIS_URL: process.env.TEST_REDIS_URL });
    const b = createLimiters({ REDIS_URL: process.env.TEST_REDIS_URL });
    const name = `test-${randomUUID()}`;
    try {
      await new Promise((r) => setTimeout(r, 200)); // let both clients connect
      await a.budget(name, 2, 60).consume('k');
      await b.budget(name, 2, 60).consume('k');
      await expect(a.budget(name, 2, 60).consume('k')).rejects.toMatchObject({ status: 429 });
      await expect(b.budget(name, 2, 60).check('k')).rejects.toMatchObject({ status: 429 });
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('keeps the budgets of two deployments on one Redis apart (RATE_LIMIT_KEY_PREFIX, default from BRAND_SLUG)', async () => {
    const REDIS_URL = process.env.TEST_REDIS_URL;
    const brandA = `a${randomUUID().slice(0, 8)}`;
    const brandB = `b${randomUUID().slice(0, 8)}`;
    // The default prefix is derived from the brand: two brands, two prefixes.
    const configA = loadConfig({ REDIS_URL, BRAND_SLUG: brandA });
    const configB = loadConfig({ REDIS_URL, BRAND_SLUG: brandB });
    expect(configA.RATE_LIMIT_KEY_PREFIX).toBe(`pts:${brandA}`);
    const a = createLimiters(configA);
    const b = createLimiters(configB);
    const a2 = createLimiters({ REDIS_URL, RATE_LIMIT_KEY_PREFIX: `pts:${brandA}` }); // a second process of deployment A
    const redis = new Redis(REDIS_URL!);
    const name = `test-${randomUUID()}`;
    try {
      await Promise.all([a.settled(), b.settled(), a2.settled()]);
      expect([a.store(), b.store(), a2.store()]).toEqual(['redis', 'redis', 'redis']);
      await a.budget(name, 1, 60).consume('198.51.100.7');
      // Deployment B has its own budget for the same address; A's second process shares A's.
      await expect(b.budget(name, 1, 60).consume('198.51.100.7')).resolves.toBeUndefined();
      await expect(a2.budget(name, 1, 60).consume('198.51.100.7')).rejects.toMatchObject({ status: 429 });
      expect(await redis.exists(`pts:${brandA}:${name}:198.51.100.7`)).toBe(1);
      expect(await redis.exists(`pts:${brandB}:${name}:198.51.100.7`)).toBe(1);
      expect(await redis.exists(`pts:${name}:198.51.100.7`)).toBe(0);
    } finally {
      await redis.del(`pts:${brandA}:${name}:198.51.100.7`, `pts:${brandB}:${name}:198.51.100.7`);
      redis.disconnect();
      await Promise.all([a.close(), b.close(), a2.close()]);
    }
  });
});
