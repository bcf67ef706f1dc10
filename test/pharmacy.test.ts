// The pharmacy desk through HTTP (docs/pharmacy.md): the queue, every move and refusal,
// role checks, the parallel dispatch of one order, the patient's view and the EC arrival re-check.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTestContext, newStaff, seedPatient, type Patient, type TestContext } from './support/harness.ts';
import { paySandbox } from './billing-fixtures.ts';
import { FIXTURES, v, withAnswers } from './questionnaires.fixtures.ts';
import { withPhotos } from './support/photo-answers.ts';
import { toWorkingDayMorning } from './support/ec-clock.ts';

let ctx: TestContext;
let doctor: Patient;
let pharmacist: Patient;
beforeAll(async () => {
  ctx = await createTestContext();
  // Emergency contraception is sold for delivery only when it arrives in time: a fixed working-day morning.
  await toWorkingDayMorning(ctx);
  doctor = await newStaff(ctx, 'doctor');
  pharmacist = await newStaff(ctx, 'pharmacist');
});
afterAll(async () => {
  await ctx?.close();
});

const patient = async (columns: Record<string, unknown> = {}) =>
  seedPatient(ctx, {
    first_name: 'Ada',
    last_name: 'Test',
    date_of_birth: '1985-04-12',
    country_of_residence: 'DEU',
    gender: '0',
    locale: 'de',
    addresses: [{ street: 'Hauptstr. 1', postal_code: '10115', city: 'Berlin', country: 'DEU', is_default: true }],
    ...columns,
  });

async function submit(slug: string, data: unknown[], token: string) {
  const saved = await call(ctx, 'PATCH', `/v1/users/questionnaires/${slug}/progress/`, { token, json: { data: await withPhotos(ctx, token, slug, data) } });
  expect(saved.status, saved.text).toBe(200);
  const sub = await call(ctx, 'POST', `/v1/users/questionnaires/${slug}/submit/`, { token });
  expect(sub.body.outcome, sub.text).toBe('eligible');
  return sub.body.id as string;
}

/** A patient with an approved hair-growth consultation: its order awaits fulfilment. */
async function orderedPatient(): Promise<{ p: Patient; orderId: string }> {
  const p = await patient();
  await submit('hair_growth', FIXTURES.hair_growth.eligible, p.access);
  const { session } = await paySandbox(ctx, p, { category: 'hair_growth', plan: 'one_off' });
  const ok = await call(ctx, 'POST', `/v1/clinician/consultations/${session.consultation_id}/approve/`, { token: doctor.access, json: {} });
  expect(ok.status, ok.text).toBe(200);
  const orders = await call(ctx, 'GET', '/v1/users/orders/', { token: p.access });
  expect(orders.body).toHaveLength(1);
  return { p, orderId: orders.body[0].id };
}

const post = (path: string, json?: unknown, token = pharmacist.access) => call(ctx, 'POST', path, { token, ...(json === undefined ? {} : { json }) });
const dispatchBody = { carrier: 'DHL', tracking_number: '00340434161094042557', tracking_url: 'https://track.example.org/00340434161094042557' };

describe('pharmacy desk access', () => {
  it('no token 401, a patient 403, a doctor 403, a pharmacist 200', async () => {
    const p = await patient();
    expect((await call(ctx, 'GET', '/v1/pharmacy/orders/')).status).toBe(401);
    const asPatient = await call(ctx, 'GET', '/v1/pharmacy/orders/', { token: p.access });
    expect(asPatient.status).toBe(403);
    expect(asPatient.body).toMatchObject({ code: 'permission_denied', detail: expect.any(String) });
    expect((await call(ctx, 'GET', '/v1/pharmacy/orders/', { token: doctor.access })).status).toBe(403);
    expect((await call(ctx, 'GET', '/v1/pharmacy/orders/', { token: pharmacist.access })).status).toBe(200);
  });

  it('a patient cannot dispatch their own order (403 before the body is read); a pharmacist cannot use the review desk', async () => {
    const { p, orderId } = await orderedPatient();
    const r = await post(`/v1/pharmacy/orders/${orderId}/dispatch/`, dispatchBody, p.access);
    expect(r.status).toBe(403);
    expect((await call(ctx, 'GET', '/v1/clinician/consultations/', { token: pharmacist.access })).status).toBe(403);
    const orders = await call(ctx, 'GET', '/v1/users/orders/', { token: p.access });
    expect(orders.body[0].status).toBe('awaiting_fulfilment');
  });

  it('the sign-in answer names the pharmacist role', async () => {
    const tok = await call(ctx, 'POST', '/v1/users/token/', { brand: true, json: { email: pharmacist.email, password: 'Quiet-Harbour-Lantern-42' } });
    expect(tok.status, tok.text).toBe(200);
    expect(tok.body).toMatchObject({ is_pharmacist: true, is_doctor: false });
  });
});

describe('the queue', () => {
  it('lists orders awaiting fulfilment oldest first, with what dispensing needs and no health answers; each read is logged', async () => {
    const a = await orderedPatient();
    const b = await orderedPatient();
    await ctx.db.query("update orders set created_at = now() - interval '2 days' where id = $1", [b.orderId]);
    const page = await call(ctx, 'GET', '/v1/pharmacy/orders/?limit=100', { token: pharmacist.access });
    expect(page.status, page.text).toBe(200);
    const ids = page.body.results.map((o: any) => o.id);
    expect(ids.indexOf(b.orderId)).toBeLessThan(ids.indexOf(a.orderId));
    const one = page.body.results.find((o: any) => o.id === a.orderId);
    expect(one).toMatchObject({ status: 'awaiting_fulfilment', patient: { first_name: 'Ada', last_name: 'Test' }, shipping_address: { city: 'Berlin' } });
    expect(one.prescription).toMatchObject({ treatment_id: expect.any(String), dosage: expect.any(String) });
    expect(one.items[0]).toMatchObject({ quantity: expect.any(Number) });
    expect(Object.keys(one)).not.toContain('answers');
    expect(JSON.stringify(one)).not.toMatch(/questionnaire|answers|date_of_birth/);
    const logged = await ctx.db.query("select actor_role, resource_type from access_log where resource_id = $1 and actor_id = $2", [a.orderId, pharmacist.id]);
    expect(logged).toContainEqual({ actor_role: 'pharmacist', resource_type: 'order' });
    // The patient sees the pharmacist's read in their access log.
    const seen = await call(ctx, 'GET', '/v1/users/me/access-log/', { token: a.p.access });
    expect(seen.status, seen.text).toBe(200);
    expect(JSON.stringify(seen.body)).toContain('pharmacist');
  });

  it('paginates (limit/offset with next link)', async () => {
    await orderedPatient();
    await orderedPatient();
    const page = await call(ctx, 'GET', '/v1/pharmacy/orders/?limit=1', { token: pharmacist.access });
    expect(page.body.results).toHaveLength(1);
    expect(page.body.count).toBeGreaterThanOrEqual(2);
    expect(page.body.next).toContain('offset=1');
  });

  it('an unknown order is 404 {detail}', async () => {
    const r = await call(ctx, 'GET', '/v1/pharmacy/orders/00000000-0000-4000-8000-000000000000/', { token: pharmacist.access });
    expect(r.status).toBe(404);
    expect(r.body).toEqual({ detail: expect.any(String) });
  });
});

describe('the moves', () => {
  it('dispense -> dispatch -> deliver: recorded, the patient sees tracking and dates, and is mailed in their locale', async () => {
    const { p, orderId } = await orderedPatient();
    const dispensed = await post(`/v1/pharmacy/orders/${orderId}/dispense/`, { batch: 'LOT-24A17', expiry: '2027-06-30' });
    expect(dispensed.status, dispensed.text).toBe(200);
    expect(dispensed.body.dispensing).toMatchObject({ batch: 'LOT-24A17', expiry: '2027-06-30' });
    const shipped = await post(`/v1/pharmacy/orders/${orderId}/dispatch/`, dispatchBody);
    expect(shipped.status, shipped.text).toBe(200);
    expect(shipped.body).toMatchObject({ status: 'shipped', carrier: 'DHL', tracking_number: dispatchBody.tracking_number, shipped_at: expect.any(String), delivered_at: null });
    const mine = await call(ctx, 'GET', '/v1/users/orders/', { token: p.access });
    expect(mine.body[0]).toMatchObject({ status: 'shipped', carrier: 'DHL', tracking_number: dispatchBody.tracking_number, tracking_url: dispatchBody.tracking_url, shipped_at: expect.any(String) });
    const mail = await ctx.db.query<{ subject: string; text: string }>("select subject, text_body as text from mail_outbox where to_address = $1 and template = 'order_shipped'", [p.email]);
    expect(mail).toHaveLength(1);
    expect(mail[0]!.subject).toBe('Ihre Bestellung ist unterwegs');
    expect(mail[0]!.text).toContain(dispatchBody.tracking_url);
    expect(mail[0]!.text).not.toMatch(/minoxidil|finasteride|mg/i);
    const delivered = await post(`/v1/pharmacy/orders/${orderId}/deliver/`);
    expect(delivered.status, delivered.text).toBe(200);
    expect(delivered.body).toMatchObject({ status: 'delivered', delivered_at: expect.any(String) });
    expect((await call(ctx, 'GET', '/v1/users/orders/', { token: p.access })).body[0]).toMatchObject({ status: 'delivered', delivered_at: expect.any(String) });
  });

  it('illegal moves are 409 invalid_status_transition: deliver before dispatch, dispatch twice, dispense after dispatch, undeliverable after delivery', async () => {
    const { orderId } = await orderedPatient();
    const early = await post(`/v1/pharmacy/orders/${orderId}/deliver/`);
    expect(early.status).toBe(409);
    expect(early.body).toEqual({ detail: expect.any(String), code: 'invalid_status_transition' });
    expect((await post(`/v1/pharmacy/orders/${orderId}/dispatch/`, dispatchBody)).status).toBe(200);
    const twice = await post(`/v1/pharmacy/orders/${orderId}/dispatch/`, dispatchBody);
    expect(twice.status).toBe(409);
    expect(twice.body.code).toBe('invalid_status_transition');
    expect((await post(`/v1/pharmacy/orders/${orderId}/dispense/`, { batch: 'L1', expiry: '2027-01-01' })).body.code).toBe('invalid_status_transition');
    expect((await post(`/v1/pharmacy/orders/${orderId}/deliver/`)).status).toBe(200);
    const after = await post(`/v1/pharmacy/orders/${orderId}/undeliverable/`, { reason: 'Returned to sender.' });
    expect(after.status).toBe(409);
    expect(after.body.code).toBe('invalid_status_transition');
  });

  it('undeliverable: recorded with its reason, the patient is mailed, the order leaves the queue', async () => {
    const { p, orderId } = await orderedPatient();
    expect((await post(`/v1/pharmacy/orders/${orderId}/dispatch/`, { carrier: 'DPD', tracking_number: 'X1' })).status).toBe(200);
    const r = await post(`/v1/pharmacy/orders/${orderId}/undeliverable/`, { reason: 'Returned to sender: address unknown.' });
    expect(r.status, r.text).toBe(200);
    expect(r.body).toMatchObject({ status: 'undeliverable', undeliverable_reason: 'Returned to sender: address unknown.', undeliverable_at: expect.any(String) });
    expect((await call(ctx, 'GET', '/v1/users/orders/', { token: p.access })).body[0].status).toBe('undeliverable');
    expect(await ctx.db.query("select 1 from mail_outbox where to_address = $1 and template = 'order_undeliverable'", [p.email])).toHaveLength(1);
    const queue = await call(ctx, 'GET', '/v1/pharmacy/orders/?limit=100', { token: pharmacist.access });
    expect(queue.body.results.map((o: any) => o.id)).not.toContain(orderId);
  });

  it('bad bodies are field-keyed 400s; an unknown order is 404', async () => {
    const { orderId } = await orderedPatient();
    const bad = await post(`/v1/pharmacy/orders/${orderId}/dispatch/`, { carrier: '', tracking_number: 'X', tracking_url: 'javascript:alert(1)' });
    expect(bad.status).toBe(400);
    expect(Object.keys(bad.body)).toEqual(expect.arrayContaining(['carrier', 'tracking_url']));
    const badDate = await post(`/v1/pharmacy/orders/${orderId}/dispense/`, { batch: 'L1', expiry: '30/06/2027' });
    expect(badDate.status).toBe(400);
    expect(badDate.body).toHaveProperty('expiry');
    expect((await post('/v1/pharmacy/orders/00000000-0000-4000-8000-000000000000/dispatch/', dispatchBody)).status).toBe(404);
  });

  it('two parallel dispatches of one order: exactly one wins, one mail', async () => {
    const { p, orderId } = await orderedPatient();
    const results = await Promise.all([0, 1, 2].map((i) => post(`/v1/pharmacy/orders/${orderId}/dispatch/`, { carrier: 'DHL', tracking_number: `T${i}` })));
    expect(results.map((r) => r.status).sort()).toEqual([200, 409, 409]);
    expect(await ctx.db.query("select 1 from mail_outbox where to_address = $1 and template = 'order_shipped'", [p.email])).toHaveLength(1);
  });
});

describe('emergency contraception at dispatch', () => {
  it('refuses an order that would arrive after the window (409 delivery_too_late), marks it undeliverable and mails the patient', async () => {
    const p = await patient({ gender: '1' });
    const submissionId = await submit('emergency_contraception', withAnswers(FIXTURES.emergency_contraception.eligible, v(2, 'hours_since_unprotected_sex', 10)), p.access);
    const { session } = await paySandbox(ctx, p, { category: 'emergency_contraception', plan: 'one_off', treatment_id: 'levonorgestrel' });
    const ok = await call(ctx, 'POST', `/v1/clinician/consultations/${session.consultation_id}/approve/`, { token: doctor.access, json: { treatment_id: 'levonorgestrel' } });
    expect(ok.status, ok.text).toBe(200);
    const orderId = (await call(ctx, 'GET', '/v1/users/orders/', { token: p.access })).body[0].id;
    // 10 h at submission + 40 h waiting + the estimate from now (next working day by 18:00) + the 12 h margin > 72 h.
    await ctx.db.query("update questionnaire_submissions set created_at = created_at - interval '40 hours' where id = $1", [submissionId]);
    const r = await post(`/v1/pharmacy/orders/${orderId}/dispatch/`, dispatchBody);
    expect(r.status, r.text).toBe(409);
    expect(r.body).toMatchObject({ code: 'delivery_too_late', detail: expect.any(String), order_status: 'undeliverable', reason_codes: ['LEVONORGESTREL_OVER_72_HOURS'] });
    const mine = (await call(ctx, 'GET', '/v1/users/orders/', { token: p.access })).body[0];
    expect(mine).toMatchObject({ status: 'undeliverable', tracking_number: null, shipped_at: null });
    const mail = await ctx.db.query<{ text: string }>("select text_body as text from mail_outbox where to_address = $1 and template = 'order_too_late'", [p.email]);
    expect(mail).toHaveLength(1);
    expect(mail[0]!.text).toContain('Apotheke');
    expect(mail[0]!.text).not.toMatch(/levonorgestrel/i);
    expect((await post(`/v1/pharmacy/orders/${orderId}/dispatch/`, dispatchBody)).body.code).toBe('invalid_status_transition');
  });

  it('dispatches one that still arrives in time', async () => {
    const p = await patient({ gender: '1' });
    await submit('emergency_contraception', withAnswers(FIXTURES.emergency_contraception.eligible, v(2, 'hours_since_unprotected_sex', 10)), p.access);
    const { session } = await paySandbox(ctx, p, { category: 'emergency_contraception', plan: 'one_off', treatment_id: 'levonorgestrel' });
    expect((await call(ctx, 'POST', `/v1/clinician/consultations/${session.consultation_id}/approve/`, { token: doctor.access, json: { treatment_id: 'levonorgestrel' } })).status).toBe(200);
    const orderId = (await call(ctx, 'GET', '/v1/users/orders/', { token: p.access })).body[0].id;
    expect((await post(`/v1/pharmacy/orders/${orderId}/dispatch/`, dispatchBody)).status).toBe(200);
  });
});

describe('after an undeliverable order: reship or refund, one or the other', () => {
  let admin: Patient;
  beforeAll(async () => {
    admin = await newStaff(ctx, 'backoffice_admin');
  });
  const refund = (id: string, token = admin.access, json: unknown = {}) => call(ctx, 'POST', `/v1/backoffice/orders/${id}/refund/`, { token, json });

  async function undeliverable() {
    const o = await orderedPatient();
    expect((await post(`/v1/pharmacy/orders/${o.orderId}/dispense/`, { batch: 'LOT-1', expiry: '2027-06-30' })).status).toBe(200);
    expect((await post(`/v1/pharmacy/orders/${o.orderId}/dispatch/`, dispatchBody)).status).toBe(200);
    expect((await post(`/v1/pharmacy/orders/${o.orderId}/undeliverable/`, { reason: 'Returned to sender: address unknown.' })).status).toBe(200);
    return o;
  }

  it('reship: a new attempt awaiting dispatch, the failed one kept, new tracking at dispatch, the patient mailed; then refund is refused', async () => {
    const { p, orderId } = await undeliverable();
    const r = await post(`/v1/pharmacy/orders/${orderId}/reship/`);
    expect(r.status, r.text).toBe(200);
    expect(r.body).toMatchObject({ status: 'awaiting_fulfilment', attempt: 2, carrier: null, tracking_number: null, shipped_at: null, undeliverable_reason: null, dispensing: null, refunded_at: null });
    expect(r.body.previous_attempts).toEqual([
      expect.objectContaining({ attempt: 1, carrier: 'DHL', tracking_number: dispatchBody.tracking_number, batch: 'LOT-1', undeliverable_reason: 'Returned to sender: address unknown.', shipped_at: expect.any(String) }),
    ]);
    const mail = await ctx.db.query<{ subject: string; text: string }>("select subject, text_body as text from mail_outbox where to_address = $1 and template = 'order_reshipped'", [p.email]);
    expect(mail).toHaveLength(1);
    expect(mail[0]!.subject).toBe('Wir senden Ihre Bestellung erneut');
    expect(mail[0]!.text).not.toMatch(/minoxidil|finasteride|mg/i);
    const queue = await call(ctx, 'GET', '/v1/pharmacy/orders/?limit=100', { token: pharmacist.access });
    expect(queue.body.results.map((o: any) => o.id)).toContain(orderId);
    const mine = (await call(ctx, 'GET', '/v1/users/orders/', { token: p.access })).body[0];
    expect(mine).toMatchObject({ status: 'awaiting_fulfilment', attempt: 2, tracking_number: null });
    const again = await post(`/v1/pharmacy/orders/${orderId}/dispatch/`, { carrier: 'UPS', tracking_number: '1Z999' });
    expect(again.status, again.text).toBe(200);
    expect(again.body).toMatchObject({ status: 'shipped', carrier: 'UPS', tracking_number: '1Z999', attempt: 2 });
    // Not undeliverable any more: no second reship, no refund.
    const twice = await post(`/v1/pharmacy/orders/${orderId}/reship/`);
    expect(twice.status).toBe(409);
    expect(twice.body).toEqual({ detail: expect.any(String), code: 'invalid_status_transition' });
    expect((await refund(orderId)).body.code).toBe('invalid_status_transition');
    const audit = await ctx.db.query("select action, actor_id from audit_log where subject_type = 'order' and subject_id = $1", [orderId]);
    expect(audit).toContainEqual({ action: 'order.reshipped', actor_id: pharmacist.id });
  });

  it('refund: the payment is refunded in full, the order marked refunded, the patient mailed; reship and a second refund are refused', async () => {
    const { p, orderId } = await undeliverable();
    const r = await refund(orderId, admin.access, { reason: 'Returned twice; the patient asked for a refund.' });
    expect(r.status, r.text).toBe(200);
    expect(r.body).toMatchObject({ order_id: orderId, status: 'undeliverable', refunded_at: expect.any(String), refunds: [{ payment_id: expect.any(String), amount_cents: expect.any(Number), currency: 'EUR' }] });
    const pay = (await call(ctx, 'GET', '/v1/users/payments/', { token: p.access })).body.results[0];
    expect(pay).toMatchObject({ id: r.body.refunds[0].payment_id, status: 'refunded', net_amount_cents: 0 });
    expect(await ctx.db.query("select 1 from mail_outbox where to_address = $1 and template = 'order_refunded'", [p.email])).toHaveLength(1);
    const desk = await call(ctx, 'GET', `/v1/pharmacy/orders/${orderId}/`, { token: pharmacist.access });
    expect(desk.body).toMatchObject({ status: 'undeliverable', refunded_at: r.body.refunded_at });
    const reship = await post(`/v1/pharmacy/orders/${orderId}/reship/`);
    expect(reship.status).toBe(409);
    expect(reship.body).toEqual({ detail: expect.any(String), code: 'order_refunded' });
    const second = await refund(orderId);
    expect(second.status).toBe(409);
    expect(second.body.code).toBe('order_refunded');
    expect((await call(ctx, 'GET', '/v1/users/payments/', { token: p.access })).body.results[0].refunded_amount_cents).toBe(pay.refunded_amount_cents);
  });

  it('reship and refund of an order that is not undeliverable are 409; unknown ids 404; roles: none 401, patient/pharmacist/doctor 403 as fits', async () => {
    const { p, orderId } = await orderedPatient();
    const early = await post(`/v1/pharmacy/orders/${orderId}/reship/`);
    expect(early.status).toBe(409);
    expect(early.body.code).toBe('invalid_status_transition');
    expect((await refund(orderId)).body.code).toBe('invalid_status_transition');
    const unknown = '00000000-0000-4000-8000-000000000000';
    expect((await post(`/v1/pharmacy/orders/${unknown}/reship/`)).status).toBe(404);
    const missing = await refund(unknown);
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ detail: expect.any(String) });
    // Another patient's real order id is no use to a patient: both routes are staff-only.
    const other = await orderedPatient();
    expect((await call(ctx, 'POST', `/v1/pharmacy/orders/${other.orderId}/reship/`)).status).toBe(401);
    expect((await call(ctx, 'POST', `/v1/backoffice/orders/${other.orderId}/refund/`, { json: {} })).status).toBe(401);
    for (const token of [p.access, doctor.access]) {
      expect((await post(`/v1/pharmacy/orders/${other.orderId}/reship/`, undefined, token)).status).toBe(403);
    }
    for (const token of [p.access, pharmacist.access, doctor.access]) {
      const r = await refund(other.orderId, token);
      expect(r.status).toBe(403);
      expect(r.body.code).toBe('permission_denied');
    }
    expect((await call(ctx, 'GET', '/v1/users/orders/', { token: other.p.access })).body[0].status).toBe('awaiting_fulfilment');
  });

  it('a reship and a refund at the same time: exactly one happens', async () => {
    const { p, orderId } = await undeliverable();
    const [a, b] = await Promise.all([post(`/v1/pharmacy/orders/${orderId}/reship/`), refund(orderId)]);
    expect([a.status, b.status].sort()).toEqual([200, 409]);
    const row = (await ctx.db.query<{ status: string; refunded_at: Date | null; attempt: number }>('select status, refunded_at, attempt from orders where id = $1', [orderId]))[0]!;
    const payments = (await call(ctx, 'GET', '/v1/users/payments/', { token: p.access })).body.results;
    if (a.status === 200) {
      expect(row).toMatchObject({ status: 'awaiting_fulfilment', refunded_at: null, attempt: 2 });
      expect(payments[0].status).toBe('succeeded');
    } else {
      expect(row).toMatchObject({ status: 'undeliverable', attempt: 1 });
      expect(row.refunded_at).not.toBeNull();
      expect(payments[0].status).toBe('refunded');
    }
  });

  it('an order stopped as too late for its window cannot be reshipped (409 order_not_reshippable) but can be refunded', async () => {
    const { orderId } = await undeliverable();
    await ctx.db.query("update orders set undeliverable_reason = 'delivery_too_late: test' where id = $1", [orderId]);
    const r = await post(`/v1/pharmacy/orders/${orderId}/reship/`);
    expect(r.status).toBe(409);
    expect(r.body.code).toBe('order_not_reshippable');
    expect((await refund(orderId)).status).toBe(200);
  });
});
