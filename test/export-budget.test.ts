// The data export's budget (5 an hour per account, docs/rate-limits.md) is spent by exports, not by
// requests refused for their input: a bad `format` is a 400 that costs nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTestContext, newPatient, type TestContext } from './support/harness.ts';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(async () => ctx?.close());

describe('the export budget', () => {
  it('is not spent by bad format values', async () => {
    const p = await newPatient(ctx, 'exportfmt');
    for (const format of ['pdf', 'xml', 'JSON', '', 'zip2', 'csv', 'tar']) {
      const bad = await call(ctx, 'GET', `/v1/users/me/export/?format=${encodeURIComponent(format)}`, { token: p.access });
      expect([bad.status, Object.keys(bad.body ?? {})], format).toEqual([400, ['format']]);
    }
    for (let i = 0; i < 5; i++) expect((await call(ctx, 'GET', '/v1/users/me/export/', { token: p.access })).status).toBe(200);
    // The sixth export in the hour is over the budget.
    expect((await call(ctx, 'GET', '/v1/users/me/export/?format=json', { token: p.access })).status).toBe(429);
  });
});
