// Bad input is a clean, field-keyed 4xx everywhere: NUL characters, impossible calendar dates,
// prototype keys as whitelist lookups, wrong-type values, and JSON error bodies.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTestContext, newStaff, seedPatient, type Patient, type TestContext } from './support/harness.ts';
import { paySandbox, readyPatient } from './billing-fixtures.ts';

let ctx: TestContext;
let patient: Patient;
let admin: Patient;
let doctor: Patient;
let thread: string;
beforeAll(async () => {
  ctx = await createTestContext();
  patient = await readyPatient(ctx);
  admin = await newStaff(ctx, 'backoffice_admin');
  doctor = await newStaff(ctx, 'doctor');
  // An active plan, so the journal routes accept writes.
  await paySandbox(ctx, patient, { category: 'weight_loss', plan: 'subscription' });
  thread = (await call(ctx, 'GET', '/v1/users/conversations/', { token: patient.access })).body.results[0].id;
});
afterAll(async () => {
  await ctx?.close();
});

const NUL = 'a\u0000b';

describe('NUL characters', () => {
  it('are refused with a 400 keyed by the field, on public, patient and staff routes', async () => {
    const cases: Array<[string, string, { json?: unknown; token?: string; brand?: boolean }, string]> = [
      ['POST', '/v1/users/register/', { brand: true, json: { email: `x${NUL}@example.org`, password: 'Quiet-Harbour-Lantern-42' } }, 'email'],
      ['POST', '/v1/users/token/', { brand: true, json: { email: 'a@example.org', password: NUL } }, 'password'],
      ['POST', '/v1/users/verify-email/', { brand: true, json: { email: 'a@example.org', otp: `12${NUL}34` } }, 'otp'],
      ['POST', '/v1/users/forgot-password/', { brand: true, json: { email: `a${NUL}@example.org` } }, 'email'],
      ['PATCH', '/v1/users/profile/me/', { token: patient.access, json: { first_name: NUL } }, 'first_name'],
      ['PATCH', '/v1/users/profile/me/', { token: patient.access, json: { addresses: [{ line1: NUL, city: 'Berlin', postal_code: '1', country: 'DEU' }] } }, 'addresses.0.line1'],
      ['POST', `/v1/users/conversations/${thread}/messages/`, { token: patient.access, json: { content: NUL } }, 'content'],
      ['POST', '/v1/users/journal/notes/', { token: patient.access, json: { content: NUL } }, 'content'],
      ['POST', '/v1/users/journal/weight-entries/', { token: patient.access, json: { weight_kg: 80, note: NUL } }, 'note'],
      ['POST', '/v1/users/journal/side-effects/', { token: patient.access, json: { symptom: NUL, severity: 'mild' } }, 'symptom'],
      ['POST', `/v1/backoffice/payments/${randomUUID()}/refund/`, { token: admin.access, json: { reason: NUL } }, 'reason'],
    ];
    for (const [method, url, opts, field] of cases) {
      const res = await call(ctx, method, url, opts);
      expect(res.status, `${method} ${url}`).toBe(400);
      expect(res.body, `${method} ${url}`).toEqual({ [field]: ['Null characters are not allowed.'] });
    }
  });

  it('are refused in query strings and path segments too', async () => {
    const q = await call(ctx, 'GET', `/v1/backoffice/users/?email=a%00b`, { token: admin.access });
    expect(q.status).toBe(400);
    expect(q.body).toEqual({ email: ['Null characters are not allowed.'] });
    const s = await call(ctx, 'GET', '/v1/users/sandbox/session/ab%00cd/', { token: patient.access });
    expect(s.status).toBe(400);
    expect(s.body).toEqual({ id: ['Null characters are not allowed.'] });
    const c = await call(ctx, 'GET', '/v1/clinician/consultations/?category=x%00', { token: doctor.access });
    expect(c.status).toBe(400);
  });

  it('in a multipart message field is refused too', async () => {
    const boundary = 'nulboundary';
    const payload = `--${boundary}\r\nContent-Disposition: form-data; name="content"\r\n\r\n${NUL}\r\n--${boundary}--\r\n`;
    const res = await call(ctx, 'POST', `/v1/users/conversations/${thread}/messages/`, { token: patient.access, headers: { 'content-type': `multipart/form-data; boundary=${boundary}` }, payload });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ content: ['Null characters are not allowed.'] });
  });
});

describe('calendar dates', () => {
  const IMPOSSIBLE = ['2026-02-30', '2026-04-31', '2026-11-00', '2026-13-01', '2025-02-29'];
  it('refuses impossible dates in every journal date and timestamp field with a 400', async () => {
    for (const day of IMPOSSIBLE) {
      const checks: Array<[string, string, unknown, string]> = [
        ['POST', '/v1/users/journal/weight-entries/', { weight_kg: 80, logged_on: day }, 'logged_on'],
        ['POST', '/v1/users/journal/injections/', { medication: 'semaglutide', dose: '0.25 mg', injected_at: `${day}T08:00:00+01:00` }, 'injected_at'],
        ['PATCH', '/v1/users/journal/injection-plan/', { starts_on: day }, 'starts_on'],
        ['POST', '/v1/users/journal/side-effects/', { symptom: 'nausea', severity: 'mild', started_on: day }, 'started_on'],
        ['PATCH', '/v1/users/profile/me/', { date_of_birth: day }, 'date_of_birth'],
      ];
      for (const [method, url, json, field] of checks) {
        const res = await call(ctx, method, url, { token: patient.access, json });
        expect(res.status, `${url} ${day}`).toBe(400);
        expect(Object.keys(res.body), `${url} ${day} -> ${res.text}`).toContain(field);
      }
    }
  });

  it('refuses impossible times of day and accepts a real leap day', async () => {
    const bad = await call(ctx, 'POST', '/v1/users/journal/injections/', { token: patient.access, json: { medication: 'semaglutide', dose: '0.25 mg', injected_at: '2026-03-01T24:30:00+01:00' } });
    expect(bad.status).toBe(400);
    const leap = await call(ctx, 'POST', '/v1/users/journal/weight-entries/', { token: patient.access, json: { weight_kg: 81, logged_on: '2024-02-29' } });
    expect(leap.status).toBe(201);
  });
});

describe('whitelists and wrong types', () => {
  it('treats prototype names in ?ordering= as unknown (a field-keyed 400), never a 500', async () => {
    for (const ordering of ['constructor', '__proto__', 'toString', 'valueOf', '-hasOwnProperty', '-constructor']) {
      const res = await call(ctx, 'GET', `/v1/users/payments/?ordering=${ordering}`, { token: patient.access });
      expect(res.status, ordering).toBe(400);
      expect(Object.keys(res.body)).toEqual(['ordering']);
    }
    expect((await call(ctx, 'GET', '/v1/users/payments/?ordering=-amount_cents', { token: patient.access })).body.count).toBeGreaterThan(0);
  });

  it('gives the DRF message for each wrong type', async () => {
    const profile = await call(ctx, 'PATCH', '/v1/users/profile/me/', { token: patient.access, json: { first_name: 5 } });
    expect(profile.body).toEqual({ first_name: ['Not a valid string.'] });
    const weight = await call(ctx, 'POST', '/v1/users/journal/weight-entries/', { token: patient.access, json: { weight_kg: 'x' } });
    expect(weight.body).toEqual({ weight_kg: ['A valid number is required.'] });
    const plan = await call(ctx, 'PATCH', '/v1/users/journal/injection-plan/', { token: patient.access, json: { active: 'yes' } });
    expect(plan.body).toEqual({ active: ['Must be a valid boolean.'] });
    const nul = await call(ctx, 'PATCH', '/v1/users/profile/me/', { token: patient.access, json: { first_name: null } });
    expect(nul.body).toEqual({ first_name: ['This field may not be null.'] });
    const missing = await call(ctx, 'POST', '/v1/users/journal/notes/', { token: patient.access, json: {} });
    expect(missing.body).toEqual({ content: ['This field is required.'] });
  });
});

describe('the profile document number', () => {
  it('is "" when unset and may not be null', async () => {
    const p = await seedPatient(ctx);
    const me = await call(ctx, 'GET', '/v1/users/profile/me/', { token: p.access });
    expect(me.body.document_number).toBe('');
    const nul = await call(ctx, 'PATCH', '/v1/users/profile/me/', { token: p.access, json: { document_number: null } });
    expect(nul.status).toBe(400);
    expect(nul.body).toEqual({ document_number: ['This field may not be null.'] });
    await call(ctx, 'PATCH', '/v1/users/profile/me/', { token: p.access, json: { document_number: 'C01X00T47' } });
    const cleared = await call(ctx, 'PATCH', '/v1/users/profile/me/', { token: p.access, json: { document_number: '' } });
    expect(cleared.body.document_number).toBe('');
  });
});

describe('logs', () => {
  it('log a failed statement by code and label, never its parameters or the values the server quotes', async () => {
    const { loggerOptions, REDACT_PATHS } = await import('../src/http/logging.ts');
    const secret = 'Private journal note about my symptoms';
    let caught: unknown;
    try {
      await ctx.db.query('insert into users (id, email) values ($1, $2)', ['not-a-uuid', secret]);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeDefined();
    const serialise = (loggerOptions('info').serializers as Record<string, (e: unknown) => unknown>).err!;
    const line = JSON.stringify(serialise(caught));
    expect(line).not.toContain(secret);
    expect(line).not.toContain('not-a-uuid');
    expect(line).toContain('22P02');
    expect(line).toContain('insert into users');
    // Error codes (pg-boss's, ours) stay readable in logs.
    expect(REDACT_PATHS).not.toContain('*.code');
  });
});
