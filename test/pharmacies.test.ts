// Partner pharmacies through HTTP (docs/pharmacy.md "Partner pharmacies"): back-office
// management (roles, validation, audit), the patient's nearby list and its ranking rule.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { advanceTestClock, callAsFresh, paySandbox, readyPatient, WEIGHT_LOSS_RENEWAL_SAFETY } from './billing-fixtures.ts';
import { call, createTestContext, newStaff, seedPatient, type Patient, type TestContext } from './support/harness.ts';

let ctx: TestContext;
let admin: Patient;
let doctor: Patient;
let pharmacist: Patient;
beforeAll(async () => {
  ctx = await createTestContext();
  admin = await newStaff(ctx, 'backoffice_admin');
  doctor = await newStaff(ctx, 'doctor');
  pharmacist = await newStaff(ctx, 'pharmacist');
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

describe('collection at checkout and renewal', () => {
  const as = (p: Patient, method: string, url: string, json?: unknown) => callAsFresh(ctx, p, method, url, json);
  const approve = (id: string) => as(doctor, 'POST', `/v1/clinician/consultations/${id}/approve/`, {});

  it('checkout with collection: the order names the pharmacy for the patient and the desk; delivery stays the default', async () => {
    const shop = await create({ name: 'Collect Point Mitte', postal_code: '10117' });
    const p = await readyPatient(ctx, 'hair_growth');
    const { session } = await paySandbox(ctx, p, { category: 'hair_growth', plan: 'one_off', fulfilment: { method: 'collection', pharmacy_id: shop.id } });
    expect((await approve(session.consultation_id)).status).toBe(200);
    const mine = await as(p, 'GET', '/v1/users/orders/');
    expect(mine.body[0].fulfilment).toMatchObject({ method: 'collection', pharmacy: { id: shop.id, name: 'Collect Point Mitte', postal_code: '10117', city: 'Berlin', opening_hours: expect.any(Array) } });
    expect(Object.keys(mine.body[0].fulfilment.pharmacy)).not.toContain('is_active');
    const desk = await as(pharmacist, 'GET', `/v1/pharmacy/orders/${mine.body[0].id}/`);
    expect(desk.body.fulfilment).toMatchObject({ method: 'collection', pharmacy: { id: shop.id, address_line: 'Marktplatz 3' } });
    // The profile's orders carry it too.
    const profile = await as(p, 'GET', '/v1/users/profile/me/');
    expect(profile.status, profile.text).toBe(200);
    expect(profile.body.orders[0].fulfilment).toMatchObject({ method: 'collection', pharmacy: { id: shop.id } });
    // The profile reads its orders as JSON in its own statement: the same answer as the orders route's rows.
    expect(profile.body.orders).toEqual(mine.body);

    const q = await readyPatient(ctx, 'hair_growth');
    const plain = await paySandbox(ctx, q, { category: 'hair_growth', plan: 'one_off' });
    expect((await approve(plain.session.consultation_id)).status).toBe(200);
    expect((await as(q, 'GET', '/v1/users/orders/')).body[0].fulfilment).toEqual({ method: 'delivery', pharmacy: null });
    const r = await readyPatient(ctx, 'hair_growth');
    const explicit = await paySandbox(ctx, r, { category: 'hair_growth', plan: 'one_off', fulfilment: { method: 'delivery' } });
    expect(explicit.session.consultation_id).toEqual(expect.any(String));
  });

  it('an unknown, inactive, delivery-only or foreign pharmacy is a 400 field error on fulfilment.pharmacy_id; a malformed choice too', async () => {
    const p = await readyPatient(ctx, 'hair_growth');
    const off = await create();
    await call(ctx, 'POST', `/v1/backoffice/pharmacies/${off.id}/deactivate/`, { token: admin.access });
    const deliveryOnly = await create({ click_and_collect: false, delivery: true });
    const foreign = await create({ country: 'FRA', postal_code: '75001', city: 'Paris' });
    for (const id of [randomUUID(), off.id, deliveryOnly.id, foreign.id]) {
      const r = await as(p, 'POST', '/v1/users/checkout/', { category: 'hair_growth', plan: 'one_off', fulfilment: { method: 'collection', pharmacy_id: id } });
      expect(r.status, id).toBe(400);
      expect(Object.keys(r.body)).toEqual(['fulfilment.pharmacy_id']);
    }
    const missing = await as(p, 'POST', '/v1/users/checkout/', { category: 'hair_growth', plan: 'one_off', fulfilment: { method: 'collection' } });
    expect(missing.status).toBe(400);
    expect(missing.body).toHaveProperty(['fulfilment.pharmacy_id']);
    const bad = await as(p, 'POST', '/v1/users/checkout/', { category: 'hair_growth', plan: 'one_off', fulfilment: { method: 'drone' } });
    expect(bad.status).toBe(400);
    expect(Object.keys(bad.body).some((k) => k.startsWith('fulfilment'))).toBe(true);
    expect(await ctx.db.query('select 1 from checkout_sessions where user_id = $1', [p.id])).toHaveLength(0);
  });

  it('renewal confirm with collection: the renewal order is collected there; a bad pharmacy is refused and nothing confirmed', async () => {
    const shop = await create({ name: 'Renewal Collect', postal_code: '10119' });
    const p = await readyPatient(ctx, 'weight_loss', 'eligible', { locale: 'en' });
    const { session } = await paySandbox(ctx, p, { category: 'weight_loss', plan: 'subscription', treatment_id: 'semaglutide', dosage: '0.25 mg' });
    expect((await approve(session.consultation_id)).status).toBe(200);
    await advanceTestClock(ctx, admin, 22);
    const o = (await as(p, 'GET', '/v1/users/subscriptions/renewal-options/?category=weight_loss')).body;
    expect(o.mode).toBe('pending_choice');
    const body = { consultation_id: o.pending_consultation_id, answers: WEIGHT_LOSS_RENEWAL_SAFETY, changed: false, change_note: '' };
    const refused = await as(p, 'POST', '/v1/users/subscriptions/pending-choice/confirm/', { ...body, fulfilment: { method: 'collection', pharmacy_id: randomUUID() } });
    expect(refused.status).toBe(400);
    expect(refused.body).toHaveProperty(['fulfilment.pharmacy_id']);
    expect(await ctx.db.query('select patient_choice_status from consultations where id = $1', [o.pending_consultation_id])).toEqual([{ patient_choice_status: 'pending' }]);
    const ok = await as(p, 'POST', '/v1/users/subscriptions/pending-choice/confirm/', { ...body, fulfilment: { method: 'collection', pharmacy_id: shop.id } });
    expect(ok.status, ok.text).toBe(200);
    expect((await approve(o.pending_consultation_id)).status).toBe(200);
    const orders = (await as(p, 'GET', '/v1/users/orders/')).body;
    expect(orders).toHaveLength(2);
    expect(orders.find((x: { consultation_id: string }) => x.consultation_id === o.pending_consultation_id).fulfilment).toMatchObject({ method: 'collection', pharmacy: { id: shop.id } });
    expect(orders.find((x: { consultation_id: string }) => x.consultation_id === session.consultation_id).fulfilment.method).toBe('delivery');
  });
});
