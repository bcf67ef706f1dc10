// Authentication and roles run before body validation, on every registered route (deny by default).
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Fastify from 'fastify';
import { ROLE_PERMISSIONS, accessFor, installAccessControl, isStaff, requirePermission, rolesOf, type Role } from '../src/http/access.ts';
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

  it('roles reach the desks their permissions grant (one table, ROLE_PERMISSIONS), over HTTP', async () => {
    expect(ROLE_PERMISSIONS).toEqual({ doctor: ['clinician:desk'], backoffice_admin: ['backoffice:admin'], marketer: [], pharmacist: ['pharmacy:desk'] });
    const desks = { doctor: 'clinician:desk', backoffice_admin: 'backoffice:admin', pharmacist: 'pharmacy:desk' } as const;
    // One parameterless GET per desk, asked by an account of each role.
    const roles: Role[] = ['doctor', 'backoffice_admin', 'marketer', 'pharmacist'];
    const staff = Object.fromEntries(await Promise.all(roles.map(async (r) => [r, r === 'doctor' ? doctor : await newStaff(ctx, r)] as const)));
    for (const [access, permission] of Object.entries(desks)) {
      const route = ctx.app.registeredRoutes.find((r) => r.access === access && r.method === 'GET' && !r.url.includes(':'));
      expect(route, access).toBeDefined();
      for (const role of roles) {
        const res = await call(ctx, 'GET', route!.url, { token: staff[role]!.access });
        const granted = ROLE_PERMISSIONS[role].includes(permission);
        expect(res.body?.code === 'permission_denied', `${role} on ${route!.url}`).toBe(!granted);
      }
    }
  });

  it('requirePermission refuses with the 403 every staff route answers; every role is staff', () => {
    const flags = { is_doctor: false, is_backoffice_admin: false, is_marketer: true, is_pharmacist: false };
    expect(rolesOf(flags)).toEqual(['marketer']);
    expect(isStaff(flags)).toBe(true);
    expect(isStaff({ ...flags, is_marketer: false })).toBe(false);
    expect(() => requirePermission(flags, 'clinician:desk')).toThrow(expect.objectContaining({ status: 403, body: expect.objectContaining({ code: 'permission_denied' }) }));
    expect(() => requirePermission({ ...flags, is_doctor: true }, 'clinician:desk')).not.toThrow();
  });

  it('lists staff prefixes by role and refuses to register an unlisted route outside /v1/', () => {
    expect(accessFor('GET', '/v1/clinician/consultations/')).toBe('doctor');
    expect(accessFor('POST', '/v1/backoffice/users/:id/disable/')).toBe('backoffice_admin');
    expect(accessFor('GET', '/v1/pharmacy/orders/')).toBe('pharmacist');
    expect(accessFor('GET', '/v1/users/profile/')).toBe('user');
    // Public is what a route declares, not what its path looks like (deny by default).
    expect(accessFor('POST', '/v1/users/token/', 'public')).toBe('public');
    expect(accessFor('POST', '/v1/users/token/')).toBe('user');
    expect(() => accessFor('GET', '/internal/debug/')).toThrow(/PUBLIC_ROUTES/);
    expect(accessFor('GET', '/internal/debug/', 'public')).toBe('public');
  });

  it('is public only where a route declares it: the sign-up, sign-in and catalogue operations, by method', () => {
    const publicApi = ctx.app.registeredRoutes.filter((r) => r.access === 'public' && r.url.startsWith('/v1/') && !/^\/v1\/(docs|schema)\b/.test(r.url));
    expect(publicApi.map((r) => `${r.method} ${r.url}`).sort()).toEqual(
      [
        'POST /v1/users/register/',
        'POST /v1/users/verify-email/',
        'POST /v1/users/token/',
        'POST /v1/users/token/refresh/',
        'POST /v1/users/token/mfa/',
        'POST /v1/users/token/mfa/enrol/',
        'POST /v1/users/token/mfa/enrol/confirm/',
        'POST /v1/users/token/mfa/webauthn/options/',
        'POST /v1/users/token/mfa/enrol/passkey/options/',
        'POST /v1/users/token/mfa/enrol/passkey/',
        'POST /v1/users/google-login/',
        'POST /v1/users/forgot-password/',
        'POST /v1/users/reset-password/',
        'GET /v1/users/questionnaires/categories/',
        'GET /v1/users/questionnaires/:slug/schema/',
        'POST /v1/users/referrals/attribution-events/',
        'POST /v1/webhooks/stripe/',
        'POST /v1/webhooks/identity/:provider/',
        // A pharmacy checks a prescription it was handed; the sandbox CA's root is published.
        'GET /v1/prescriptions/ca/',
        'POST /v1/prescriptions/verify/',
        // What the law makes public: the prescribing doctors, the imprint, cancelling without signing in.
        'GET /v1/public/doctors/',
        'GET /v1/public/site/',
        'POST /v1/public/cancel/',
        'POST /v1/public/cancel/confirm/',
        // The two participants of a call, by the call pass their join answered (docs/appointments.md).
        'GET /v1/calls/signal/',
        'GET /v1/calls/signal/stream/',
        'POST /v1/calls/signal/',
        // A share link's manifest, for whoever holds the link and its passcode (docs/interoperability.md).
        'POST /v1/public/shl/:manifest_id/',
      ].sort(),
    );
    // Only the declared method is public: GET on the sign-in path still needs a token.
    expect(ctx.app.registeredRoutes.some((r) => r.method === 'GET' && r.url === '/v1/users/token/' && r.access === 'public')).toBe(false);
  });

  it('refuses to register a route that declares public access under a staff prefix', async () => {
    for (const url of ['/v1/clinician/open/', '/v1/backoffice/open/', '/v1/pharmacy/open/']) {
      const app = Fastify();
      installAccessControl(app, ctx.deps);
      const register = async () => {
        app.get(url, { config: { access: 'public' } }, () => Promise.resolve({}));
        await app.ready();
      };
      await expect(register(), url).rejects.toThrow(/never public/);
      await app.close();
    }
    // The same declaration elsewhere under /v1/ registers, public.
    const app = Fastify();
    const levels = installAccessControl(app, ctx.deps);
    app.get('/v1/users/open/', { config: { access: 'public' } }, () => Promise.resolve({}));
    await app.ready();
    expect(levels.get('GET /v1/users/open/')).toBe('public');
    await app.close();
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
