// `iso` is the one timestamp formatter of API answers. The consultation list hands it PostgreSQL's
// JSON text of timestamptz values (no to_char, no Date on its fast path); whatever the text, the
// answer must equal what the driver's Date gives for the same value.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { iso } from '../src/lib/iso.ts';
import { createTestContext, type TestContext } from './support/harness.ts';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(async () => ctx?.close());

describe('iso', () => {
  it('formats Dates, canonical text and PostgreSQL JSON text alike, cutting to milliseconds', () => {
    expect(iso(new Date('2026-01-31T09:30:00.123Z'))).toBe('2026-01-31T09:30:00.123Z');
    expect(iso('2026-01-31T09:30:00.123Z')).toBe('2026-01-31T09:30:00.123Z');
    expect(iso('2026-01-31T09:30:00.123999+00:00')).toBe('2026-01-31T09:30:00.123Z');
    expect(iso('2026-01-31T09:30:00.12+00:00')).toBe('2026-01-31T09:30:00.120Z');
    expect(iso('2026-01-31T09:30:00+00:00')).toBe('2026-01-31T09:30:00.000Z');
    expect(iso('2026-01-31T11:30:00.5+02:00')).toBe('2026-01-31T09:30:00.500Z');
    expect(iso(null)).toBeNull();
  });

  it('gives for json_build_object text exactly what it gives for the Date the driver parses', async () => {
    const rows = await ctx.db.query<{ t: Date; j: { t: string } }>(
      `select t, json_build_object('t', t) as j from (values
         (timestamptz '2026-01-31 09:30:00.123456+00'), (timestamptz '2026-01-31 09:30:00.12+00'),
         (timestamptz '2026-01-31 09:30:00+00'), (timestamptz '1999-12-31 23:59:59.999999+00'),
         (now()), (now() - interval '1 year 3 hours 7.000123 seconds')) v(t)`,
    );
    expect(rows).toHaveLength(6);
    for (const r of rows) expect(iso(r.j.t), r.j.t).toBe(iso(r.t));
  });
});
