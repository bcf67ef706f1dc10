// Authentication and roles run before body validation, on every registered route (deny by default).
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accessFor } from '../src/http/access.ts';
import { call, createTestContext, newStaff, seedPatient, type Patient, type TestContext } from './support/harness.ts';

let ctx: TestContext;
let patient: Patient;
let doctor: Patient;
beforeAll(async () => {
  ctx = await createTestContext();
  patient = await seedPatient(ctx);
  doctor = await newStaff(ctx, 'doctor');
});
afterAll(async () => {
  await ctx?.close();
});

/** A concrete URL for a route pattern: every path parameter becomes a fresh UUID. */
const concrete = (url: string) => url.replace(/:[A-Za-z_]+/g, () => randomUUID()).replace(/\*$/, 'x');
// A body no route accepts: wrong types for every plausible field name and an unknown key.
const BAD_BODY = { email: 5, password: [], otp: {}, reason: 7, content: 9, weight_kg: 'x', unknown_field: true };

describe('access control', () => {
  it('answers 401 on every non-public route without a token, whatever the body', async () => {
    const routes = ctx.app.registeredRoutes.filter((r) => r.access !== 'public');
    expect(routes.length).toBeGreaterThan(50);
    for (const route of routes) {
      const withBody = ['POST', 'PATCH', 'PUT'].includes(route.method);
      const res = await call(ctx, route.method, concrete(route.url), { json: withBody ? BAD_BODY : undefined });
      expect(res.status, `${route.method} ${route.url}`).toBe(401);
      expect(res.body.code, `${route.method} ${route.url}`).toBe('not_authenticated');
      expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    }
  });

  it('answers 401 token_not_valid on every non-public route with a forged token', async () => {
    const forged = `${patient.access.slice(0, -4)}AAAA`;
    for (const route of ctx.app.registeredRoutes.filter((r) => r.access !== 'public')) {
      const withBody = ['POST', 'PATCH', 'PUT'].includes(route.method);
      const res = await call(ctx, route.method, concrete(route.url), { token: forged, json: withBody ? BAD_BODY : undefined });
      expect(res.status, `${route.method} ${route.url}`).toBe(401);
      expect(res.body.code).toBe('token_not_valid');
    }
  });

  it('answers 403 permission_denied on every staff route with the wrong role, whatever the body', async () => {
    const staffRoutes = ctx.app.registeredRoutes.filter((r) => r.access === 'doctor' || r.access === 'backoffice_admin');
    expect(staffRoutes.some((r) => r.access === 'doctor')).toBe(true);
    expect(staffRoutes.some((r) => r.access === 'backoffice_admin')).toBe(true);
    for (const route of staffRoutes) {
      const wrong = route.access === 'doctor' ? [patient] : [patient, doctor];
      for (const who of wrong) {
        const withBody = ['POST', 'PATCH', 'PUT'].includes(route.method);
        const res = await call(ctx, route.method, concrete(route.url), { token: who.access, json: withBody ? BAD_BODY : undefined });
        expect(res.status, `${route.method} ${route.url}`).toBe(403);
        expect(res.body).toEqual({ detail: 'You do not have permission to perform this action.', code: 'permission_denied' });
      }
    }
  });

  it('lists staff prefixes by role and refuses to register an unlisted route outside /v1/', () => {
    expect(accessFor('GET', '/v1/clinician/consultations/')).toBe('doctor');
    expect(accessFor('POST', '/v1/backoffice/users/:id/disable/')).toBe('backoffice_admin');
    expect(accessFor('GET', '/v1/users/profile/')).toBe('user');
    expect(accessFor('POST', '/v1/users/token/')).toBe('public');
    // Only the listed method is public: GET on the sign-in path still needs a token.
    expect(accessFor('GET', '/v1/users/token/')).toBe('user');
    expect(() => accessFor('GET', '/internal/debug/')).toThrow(/PUBLIC_ROUTES/);
  });

  it('a HEAD request has the access rule of its GET: answered for the owner, 401 without a token, 403 for the wrong role', async () => {
    const own = await ctx.app.inject({ method: 'HEAD', url: '/v1/users/profile/', headers: { authorization: `Bearer ${patient.access}` } });
    expect(own.statusCode).toBe(200);
    expect(own.body).toBe('');
    const anonymous = await ctx.app.inject({ method: 'HEAD', url: '/v1/users/profile/' });
    expect(anonymous.statusCode).toBe(401);
    const patientOnDesk = await ctx.app.inject({ method: 'HEAD', url: '/v1/clinician/consultations/', headers: { authorization: `Bearer ${patient.access}` } });
    expect(patientOnDesk.statusCode).toBe(403);
    const doctorOnDesk = await ctx.app.inject({ method: 'HEAD', url: '/v1/clinician/consultations/', headers: { authorization: `Bearer ${doctor.access}` } });
    expect(doctorOnDesk.statusCode).toBe(200);
  });

  it('a signed-in patient with a bad body gets the field errors only after authentication', async () => {
    const res = await call(ctx, 'PATCH', '/v1/users/profile/me/', { token: patient.access, json: { first_name: 5 } });
    expect(res.status).toBe(400);
    expect(res.body).toHaveProperty('first_name');
  });
});
