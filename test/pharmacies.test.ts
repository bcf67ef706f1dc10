// Partner pharmacies through HTTP (issue 25, docs/pharmacy.md "Partner pharmacies"): back-office
// management (roles, validation, audit), the patient's nearby list and its ranking rule.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTestContext, newStaff, seedPatient, type Patient, type TestContext } from './support/harness.ts';

let ctx: TestContext;
let admin: Patient;
beforeAll(async () => {
  ctx = await createTestContext();
  admin = await newStaff(ctx, 'backoffice_admin');
});
afterAll(async () => {
  await ctx?.close();
});

const pharmacyBody = (over: Record<string, unknown> = {}) => ({
  name: 'Apotheke am Markt',
  address_line: 'Marktplatz 3',
  postal_code: '10115',
  city: 'Berlin',
  country: 'DEU',
  opening_hours: [
    { day: 'mon', opens: '08:00', closes: '18:30' },
    { day: 'sat', opens: '09:00', closes: '13:00' },
  ],
  click_and_collect: true,
  delivery: false,
  ...over,
});

const create = async (over: Record<string, unknown> = {}) => {
  const r = await call(ctx, 'POST', '/v1/backoffice/pharmacies/', { token: admin.access, json: pharmacyBody(over) });
  expect(r.status, r.text).toBe(201);
  return r.body as { id: string; name: string };
};

describe('back office: partner pharmacies', () => {
  it('no token 401, a patient 403, a pharmacist 403, before the body is read', async () => {
    const p = await seedPatient(ctx);
    const pharmacist = await newStaff(ctx, 'pharmacist');
    const id = randomUUID();
    for (const [m, u] of <[string, string][]>[
      ['GET', '/v1/backoffice/pharmacies/'],
      ['POST', '/v1/backoffice/pharmacies/'],
      ['GET', `/v1/backoffice/pharmacies/${id}/`],
      ['PATCH', `/v1/backoffice/pharmacies/${id}/`],
      ['POST', `/v1/backoffice/pharmacies/${id}/deactivate/`],
      ['POST', `/v1/backoffice/pharmacies/${id}/activate/`],
    ]) {
      const json = m === 'GET' ? undefined : { name: '' };
      const none = await call(ctx, m, u, { json });
      expect(none.status, u).toBe(401);
      for (const token of [p.access, pharmacist.access]) {
        const r = await call(ctx, m, u, { token, json });
        expect(r.status, u).toBe(403);
        expect(r.body).toMatchObject({ code: 'permission_denied' });
      }
    }
  });

  it('creates (201), reads, changes, deactivates and activates a pharmacy; every change is audited', async () => {
    const made = await create();
    expect(made).toMatchObject({ name: 'Apotheke am Markt', country: 'DEU', is_active: true, deactivated_at: null, click_and_collect: true, delivery: false, opening_hours: [{ day: 'mon', opens: '08:00', closes: '18:30' }, { day: 'sat' }] });
    const got = await call(ctx, 'GET', `/v1/backoffice/pharmacies/${made.id}/`, { token: admin.access });
    expect(got.status).toBe(200);
    expect(got.body.id).toBe(made.id);
    const changed = await call(ctx, 'PATCH', `/v1/backoffice/pharmacies/${made.id}/`, { token: admin.access, json: { delivery: true, city: 'Berlin-Mitte' } });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.body).toMatchObject({ delivery: true, city: 'Berlin-Mitte', name: 'Apotheke am Markt' });
    const off = await call(ctx, 'POST', `/v1/backoffice/pharmacies/${made.id}/deactivate/`, { token: admin.access });
    expect(off.status).toBe(200);
    expect(off.body).toMatchObject({ is_active: false, deactivated_at: expect.any(String) });
    // Idempotent: a second deactivation changes nothing and writes no second entry.
    expect((await call(ctx, 'POST', `/v1/backoffice/pharmacies/${made.id}/deactivate/`, { token: admin.access })).body.deactivated_at).toBe(off.body.deactivated_at);
    const on = await call(ctx, 'POST', `/v1/backoffice/pharmacies/${made.id}/activate/`, { token: admin.access });
    expect(on.body).toMatchObject({ is_active: true, deactivated_at: null });
    const audit = await ctx.db.query<{ action: string; actor_id: string }>("select action, actor_id from audit_log where subject_type = 'partner_pharmacy' and subject_id = $1 order by created_at, id", [made.id]);
    expect(audit.map((a) => a.action)).toEqual(['pharmacy.created', 'pharmacy.updated', 'pharmacy.deactivated', 'pharmacy.activated']);
    expect(new Set(audit.map((a) => a.actor_id))).toEqual(new Set([admin.id]));
    const list = await call(ctx, 'GET', '/v1/backoffice/pharmacies/?limit=100', { token: admin.access });
    expect(list.status).toBe(200);
    expect(list.body.results.map((x: { id: string }) => x.id)).toContain(made.id);
  });

  it('refuses bad bodies with field-keyed 400s', async () => {
    const post = (json: unknown) => call(ctx, 'POST', '/v1/backoffice/pharmacies/', { token: admin.access, json });
    const empty = await post({});
    expect(empty.status).toBe(400);
    expect(Object.keys(empty.body)).toEqual(expect.arrayContaining(['name', 'address_line', 'postal_code', 'city', 'country']));
    expect((await post(pharmacyBody({ country: 'DE' }))).body).toHaveProperty('country');
    expect((await post(pharmacyBody({ country: 'USA' }))).body).toHaveProperty('country');
    expect((await post(pharmacyBody({ click_and_collect: false, delivery: false }))).body).toHaveProperty('click_and_collect');
    const hours = await post(pharmacyBody({ opening_hours: [{ day: 'mon', opens: '18:00', closes: '08:00' }, { day: 'xyz', opens: '25:00', closes: '10:00' }] }));
    expect(hours.status).toBe(400);
    expect(Object.keys(hours.body)).toEqual(expect.arrayContaining(['opening_hours.0.closes', 'opening_hours.1.day', 'opening_hours.1.opens']));
    const made = await create();
    const neither = await call(ctx, 'PATCH', `/v1/backoffice/pharmacies/${made.id}/`, { token: admin.access, json: { click_and_collect: false } });
    expect(neither.status).toBe(400);
    expect(neither.body).toHaveProperty('click_and_collect');
    const missing = await call(ctx, 'PATCH', `/v1/backoffice/pharmacies/${randomUUID()}/`, { token: admin.access, json: { city: 'X' } });
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ detail: expect.any(String) });
  });
});

describe('patient: nearby pharmacies', () => {
  // Austria is kept for this block: its list holds only what these tests create.
  it('ranks by postal code, postal area (3 then 2 characters), city, then the country; inactive and other countries left out', async () => {
    const exact = await create({ name: 'Z Exact', postal_code: '1010', city: 'Wien', country: 'AUT' });
    const area3 = await create({ name: 'Y Area3', postal_code: '1015', city: 'Somewhere', country: 'AUT' });
    const area2 = await create({ name: 'X Area2', postal_code: '1090', city: 'Elsewhere', country: 'AUT' });
    const city = await create({ name: 'W City', postal_code: '9999', city: 'wien ', country: 'AUT' });
    const far = await create({ name: 'V Far', postal_code: '6020', city: 'Innsbruck', country: 'AUT', click_and_collect: false, delivery: true });
    const off = await create({ name: 'U Off', postal_code: '1010', city: 'Wien', country: 'AUT' });
    await call(ctx, 'POST', `/v1/backoffice/pharmacies/${off.id}/deactivate/`, { token: admin.access });
    const abroad = await create({ name: 'T Abroad', postal_code: '1010', city: 'Wien', country: 'DEU' });
    const p = await seedPatient(ctx, { country_of_residence: 'AUT', postal_code: '1010', city: 'Wien' });
    const r = await call(ctx, 'GET', '/v1/users/pharmacies/?near=profile', { token: p.access });
    expect(r.status, r.text).toBe(200);
    expect(r.body.results.map((x: { id: string }) => x.id)).toEqual([exact.id, area3.id, area2.id, city.id, far.id]);
    expect(r.body.results.map((x: { match: string }) => x.match)).toEqual(['postal_code', 'postal_area_3', 'postal_area_2', 'city', 'country']);
    expect(r.body.count).toBe(5);
    expect(JSON.stringify(r.body)).not.toContain(off.id);
    expect(JSON.stringify(r.body)).not.toContain(abroad.id);
    expect(Object.keys(r.body.results[0])).not.toContain('is_active');
    // Only click-and-collect, and paginated.
    const collect = await call(ctx, 'GET', '/v1/users/pharmacies/?service=click_and_collect&limit=2', { token: p.access });
    expect(collect.body.count).toBe(4);
    expect(collect.body.results.map((x: { id: string }) => x.id)).toEqual([exact.id, area3.id]);
    expect(collect.body.next).toContain('offset=2');
    // Overrides: another postal code ranks the Innsbruck pharmacy first.
    const over = await call(ctx, 'GET', '/v1/users/pharmacies/?postal_code=6020', { token: p.access });
    expect(over.body.results[0]).toMatchObject({ id: far.id, match: 'postal_code' });
    const byCity = await call(ctx, 'GET', '/v1/users/pharmacies/?city=Innsbruck', { token: p.access });
    expect(byCity.body.results[0].id).toBe(exact.id); // the profile's postal code still ranks first
  });

  it('a profile without a country, or without postal code and city, is a 400 field error on near; no token 401', async () => {
    expect((await call(ctx, 'GET', '/v1/users/pharmacies/')).status).toBe(401);
    const noCountry = await seedPatient(ctx, { postal_code: '1010', city: 'Wien' });
    const a = await call(ctx, 'GET', '/v1/users/pharmacies/?near=profile', { token: noCountry.access });
    expect(a.status).toBe(400);
    expect(a.body).toEqual({ near: [expect.any(String)] });
    const noPlace = await seedPatient(ctx, { country_of_residence: 'AUT' });
    const b = await call(ctx, 'GET', '/v1/users/pharmacies/?near=profile', { token: noPlace.access });
    expect(b.status).toBe(400);
    expect(b.body).toEqual({ near: [expect.any(String)] });
    // The override fills the gap.
    expect((await call(ctx, 'GET', '/v1/users/pharmacies/?city=Wien', { token: noPlace.access })).status).toBe(200);
    expect((await call(ctx, 'GET', '/v1/users/pharmacies/?near=elsewhere', { token: noPlace.access })).body).toHaveProperty('near');
  });
});
