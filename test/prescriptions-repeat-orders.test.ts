// The patient orders a repeat (docs/prescriptions.md, "Repeats"): POST
// /v1/users/prescriptions/{id}/repeat-orders/ starts a checkout of kind `repeat_supply` at the
// catalogue's supply price; paying it opens the order the desk dispenses as the repeat. Refused while
// a supply waits at the pharmacy, before the interval, for a plan's prescription, after the last
// repeat and past the validity; another account's prescription is a 404 like a missing one; parallel
// requests open at most one order; a payment that can no longer open one is refunded. The desk
// refuses to dispense a prescription past its validity. The test clock moves forward in this file.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTestContext, newStaff, type Patient, type TestContext } from './support/harness.ts';
import { germanPatient, PRESCRIPTION_SELLER } from './support/prescription-fixtures.ts';
import { advanceTestClock, callAsFresh, freshToken, paySandbox } from './billing-fixtures.ts';
import { withPhotos } from './support/photo-answers.ts';
import { FIXTURES } from './questionnaires.fixtures.ts';
import { supplyPriceCents } from '../src/modules/fulfilment/products.ts';

const DAY = 24 * 3600 * 1000;
let ctx: TestContext;
let doctor: Patient;
let pharmacist: Patient;
let admin: Patient;

beforeAll(async () => {
  ctx = await createTestContext(PRESCRIPTION_SELLER);
  doctor = await newStaff(ctx, 'doctor');
  pharmacist = await newStaff(ctx, 'pharmacist');
  admin = await newStaff(ctx, 'backoffice_admin');
}, 60_000);
afterAll(async () => {
  await ctx?.close();
});

const patient = () => germanPatient(ctx);

async function approved(json: Record<string, unknown>, plan: 'one_off' | 'subscription' = 'one_off') {
  const p = await patient();
  const token = await freshToken(ctx, p);
  expect((await call(ctx, 'PATCH', '/v1/users/questionnaires/hair_growth/progress/', { token, json: { data: await withPhotos(ctx, token, 'hair_growth', FIXTURES.hair_growth.eligible) } })).status).toBe(200);
  expect((await call(ctx, 'POST', '/v1/users/questionnaires/hair_growth/submit/', { token })).body.outcome).toBe('eligible');
  const { session } = await paySandbox(ctx, { ...p, access: token }, { category: 'hair_growth', plan });
  const ok = await callAsFresh(ctx, doctor, 'POST', `/v1/clinician/consultations/${session.consultation_id}/approve/`, json);
  expect(ok.status, ok.text).toBe(200);
  const rx = (await callAsFresh(ctx, p, 'GET', '/v1/users/prescriptions/')).body.results[0];
  const orders = (await callAsFresh(ctx, p, 'GET', '/v1/users/orders/')).body;
  return { p, rxId: rx.id as string, treatmentId: rx.treatment_id as string, orderId: orders[0].id as string };
}

const dispense = (orderId: string) => callAsFresh(ctx, pharmacist, 'POST', `/v1/pharmacy/orders/${orderId}/dispense/`, { batch: 'LOT-7', expiry: '2028-06-30' });
const order = async (p: Patient, rxId: string, headers: Record<string, string> = {}) => call(ctx, 'POST', `/v1/users/prescriptions/${rxId}/repeat-orders/`, { token: await freshToken(ctx, p), json: {}, headers });
const payPage = (checkoutUrl: string) => call(ctx, 'POST', `${new URL(checkoutUrl).pathname}pay/`, { payload: '', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
const repeatOrdersOf = (rxId: string) => ctx.db.query<{ id: string; status: string; checkout_session_id: string }>('select id, status, checkout_session_id from orders where prescription_id = $1 and checkout_session_id is not null', [rxId]);

describe('ordering a repeat', () => {
  it('waits for the first supply and the interval, charges the supply price once, opens the order the desk dispenses; only the owner', async () => {
    const { p, rxId, treatmentId, orderId } = await approved({ repeats: 2, repeat_interval_days: 30 });
    const price = supplyPriceCents(treatmentId);
    expect(price, `${treatmentId} has a supply price`).not.toBeNull();

    // The first supply still waits for the pharmacy.
    const waiting = await order(p, rxId);
    expect(waiting.status, waiting.text).toBe(409);
    expect(waiting.body).toMatchObject({ code: 'repeat_order_open', order_id: orderId });

    expect((await dispense(orderId)).status).toBe(200);
    const early = await order(p, rxId);
    expect(early.status).toBe(409);
    expect(early.body.code).toBe('repeat_too_early');
    const dispensedAt = (await callAsFresh(ctx, p, 'GET', `/v1/users/prescriptions/${rxId}/`)).body.dispensing.next_dispensing_from;
    expect(early.body.earliest_at).toBe(dispensedAt);

    // Another account's real prescription id answers exactly like a missing one.
    const other = await patient();
    const foreign = await order(other, rxId);
    const missing = await order(other, randomUUID());
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual(missing.body);
    expect(missing.status).toBe(404);

    await advanceTestClock(ctx, admin, 30);
    const key = randomUUID();
    const started = await order(p, rxId, { 'idempotency-key': key });
    expect(started.status, started.text).toBe(200);
    expect(started.body).toMatchObject({ kind: 'repeat_supply', prescription_id: rxId, amount_cents: price, currency: 'EUR', repeats_left: 2 });
    // A retry with the same key answers the same session.
    const replay = await order(p, rxId, { 'idempotency-key': key });
    expect(replay.body.session_id).toBe(started.body.session_id);
    expect(replay.headers['idempotent-replayed']).toBe('true');

    expect((await payPage(started.body.checkout_url)).status).toBe(303);
    const session = await callAsFresh(ctx, p, 'GET', `/v1/users/sandbox/session/${started.body.session_id}/`);
    expect(session.body).toMatchObject({ status: 'paid', kind: 'repeat_supply', prescription_id: rxId, consultation_id: null, amount_cents: price });
    const payments = await ctx.db.query<{ amount_cents: number; billing_reason: string; consultation_id: string | null }>('select amount_cents, billing_reason, consultation_id from payments where checkout_session_id = $1', [started.body.session_id]);
    expect(payments).toEqual([{ amount_cents: price, billing_reason: 'repeat_supply', consultation_id: null }]);
    const [paid] = await ctx.db.query<{ id: string }>('select id from payments where checkout_session_id = $1', [started.body.session_id]);
    const invoice = await ctx.app.inject({ method: 'GET', url: `/v1/users/payments/${paid!.id}/invoice/`, headers: { authorization: `Bearer ${await freshToken(ctx, p)}` } });
    expect(invoice.statusCode).toBe(200);
    expect(invoice.headers['content-type']).toMatch(/^application\/pdf/);
    const opened = await repeatOrdersOf(rxId);
    expect(opened).toHaveLength(1);
    expect(opened[0]).toMatchObject({ status: 'awaiting_fulfilment', checkout_session_id: started.body.session_id });
    const mine = (await callAsFresh(ctx, p, 'GET', '/v1/users/orders/')).body as { id: string; prescription_id?: string }[];
    expect(mine.map((o) => o.id)).toContain(opened[0]!.id);

    // While it waits, no other repeat; once dispensed, one repeat used.
    expect((await order(p, rxId)).body.code).toBe('repeat_order_open');
    expect((await dispense(opened[0]!.id)).status).toBe(200);
    const detail = (await callAsFresh(ctx, p, 'GET', `/v1/users/prescriptions/${rxId}/`)).body;
    expect(detail.dispensing).toMatchObject({ repeats_used: 1, repeats_left: 1 });
  });

  it('two parallel requests: one payable session and at most one order; a payment that can no longer open one is refunded', async () => {
    const { p, rxId, orderId } = await approved({ repeats: 2, repeat_interval_days: 1 });
    expect((await dispense(orderId)).status).toBe(200);
    await advanceTestClock(ctx, admin, 1);
    const [a, b] = await Promise.all([order(p, rxId), order(p, rxId)]);
    expect([a.status, b.status]).toEqual([200, 200]);
    const open = await ctx.db.query<{ id: string }>(`select id from checkout_sessions where prescription_id = $1 and status = 'open'`, [rxId]);
    expect(open).toHaveLength(1);
    const pays = await Promise.all([payPage(a.body.checkout_url), payPage(b.body.checkout_url)]);
    expect(pays.some((r) => r.status === 303)).toBe(true);
    expect(await repeatOrdersOf(rxId)).toHaveLength(1);

    // A second open checkout made while the first order waits (here written straight to the table,
    // as a stale tab's would be) is refunded when paid: no second order.
    const stale = await order(p, rxId);
    expect(stale.body.code).toBe('repeat_order_open');
    await ctx.db.query(`update orders set status = 'cancelled' where prescription_id = $1 and checkout_session_id is not null`, [rxId]);
    const late = await order(p, rxId);
    expect(late.status, late.text).toBe(200);
    await ctx.db.query(`update orders set status = 'awaiting_fulfilment' where prescription_id = $1 and checkout_session_id is not null and status = 'cancelled'`, [rxId]);
    expect((await payPage(late.body.checkout_url)).status).toBe(303);
    const refunded = await callAsFresh(ctx, p, 'GET', `/v1/users/sandbox/session/${late.body.session_id}/`);
    expect(refunded.body).toMatchObject({ status: 'refunded', refund_reason: 'repeat_not_available' });
    expect(await repeatOrdersOf(rxId)).toHaveLength(1);
  });

  it('refuses a prescription without repeats and a plan’s prescription', async () => {
    const none = await approved({});
    expect((await dispense(none.orderId)).status).toBe(200);
    expect((await order(none.p, none.rxId)).body.code).toBe('repeat_not_available');
    const plan = await approved({}, 'subscription');
    expect((await dispense(plan.orderId)).status).toBe(200);
    const refused = await order(plan.p, plan.rxId);
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe('repeat_not_available');
  });

  it('after the last repeat 409 already_dispensed; past the validity neither ordered nor dispensed (409 prescription_expired)', async () => {
    const { p, rxId, orderId } = await approved({ repeats: 1, repeat_interval_days: 7 });
    expect((await dispense(orderId)).status).toBe(200);
    await advanceTestClock(ctx, admin, 7);
    const started = await order(p, rxId);
    expect((await payPage(started.body.checkout_url)).status).toBe(303);
    const [repeat] = await repeatOrdersOf(rxId);
    expect((await dispense(repeat!.id)).status).toBe(200);
    expect((await order(p, rxId)).body.code).toBe('already_dispensed');

    // A prescription whose first supply waits when its validity ends: the desk refuses it.
    const waiting = await approved({ repeats: 1, repeat_interval_days: 30 });
    const validUntil = (await callAsFresh(ctx, waiting.p, 'GET', `/v1/users/prescriptions/${waiting.rxId}/`)).body.valid_until as string;
    const now = Date.parse((await callAsFresh(ctx, admin, 'GET', '/v1/backoffice/test-clock/')).body.now);
    await advanceTestClock(ctx, admin, Math.ceil((Date.parse(validUntil) - now) / DAY) + 1);
    const refused = await dispense(waiting.orderId);
    expect(refused.status, refused.text).toBe(409);
    expect(refused.body.code).toBe('prescription_expired');
    expect((await callAsFresh(ctx, waiting.p, 'GET', '/v1/users/orders/')).body[0].dispensed_at ?? null).toBeNull();
    expect((await order(waiting.p, waiting.rxId)).body.code).toBe('prescription_expired');
  });
});
