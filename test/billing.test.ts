import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTestContext, seedPatient, type TestContext, firstRow } from './support/harness.ts';
import { addSubmission, approveRenewalOfPeriod, paySandbox, readyPatient, staff } from './billing-fixtures.ts';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext({ CORS_ORIGINS: 'https://app.example.org' });
});
afterAll(async () => {
  await ctx?.close();
});

describe('checkout', () => {
  it('refuses an incomplete profile first, even before the body is validated', async () => {
    const p = await seedPatient(ctx);
    const r = await call(ctx, 'POST', '/v1/users/checkout/', { token: p.access, json: { category: 'weight_loss', plan: 'subscription' } });
    expect(r.status).toBe(400);
    expect(r.body.error_name).toBe('PROFILE_INCOMPLETE');
    expect(r.body.missing_fields).toEqual(expect.arrayContaining(['date_of_birth', 'country_of_residence']));
    const bad = await call(ctx, 'POST', '/v1/users/checkout/', { token: p.access, json: { plan: 'nonsense' } });
    expect(bad.body.error_name).toBe('PROFILE_INCOMPLETE');
  });

  it('needs a token', async () => {
    const r = await call(ctx, 'POST', '/v1/users/checkout/', { json: { category: 'weight_loss', plan: 'subscription' } });
    expect(r.status).toBe(401);
  });

  it('refuses without a submission, with an ineligible one, and an unknown category', async () => {
    const p = await seedPatient(ctx, { date_of_birth: '1985-04-12', country_of_residence: 'DEU', gender: '0' });
    const none = await call(ctx, 'POST', '/v1/users/checkout/', { token: p.access, json: { category: 'weight_loss', plan: 'subscription' } });
    expect(none.status).toBe(400);
    expect(none.body.error_name).toBe('SUBMISSION_REQUIRED');
    await addSubmission(ctx, p.id, 'weight_loss', 'ineligible');
    const inel = await call(ctx, 'POST', '/v1/users/checkout/', { token: p.access, json: { category: 'weight_loss', plan: 'subscription' } });
    expect(inel.status).toBe(400);
    expect(inel.body).toMatchObject({ error_name: 'SUBMISSION_NOT_ELIGIBLE', outcome: 'ineligible' });
    const unknown = await call(ctx, 'POST', '/v1/users/checkout/', { token: p.access, json: { category: 'astrology', plan: 'one_off' } });
    expect(unknown.status).toBe(400);
    expect(unknown.body.category).toBeDefined();
    const badDose = await call(ctx, 'POST', '/v1/users/checkout/', { token: p.access, json: { category: 'hair_growth', plan: 'one_off', dosage: '99 mg' } });
    expect(badDose.status).toBe(400);
  });

  it('an unknown session is 404 sandbox_session_not_found', async () => {
    const p = await seedPatient(ctx);
    const r = await call(ctx, 'GET', `/v1/users/sandbox/session/cs_${randomUUID().replace(/-/g, '')}/`, { token: p.access });
    expect(r.status).toBe(404);
    expect(r.body).toEqual({ detail: expect.any(String), code: 'sandbox_session_not_found' });
    const s = await call(ctx, 'GET', `/v1/users/stripe/session/cs_test_x/`, { token: p.access });
    expect(s.body.code).toBe('stripe_session_not_found');
    const long = await call(ctx, 'GET', `/v1/users/sandbox/session/${'x'.repeat(90)}/`, { token: p.access });
    expect(long.status).toBe(404);
    expect(long.body.code).toBe('sandbox_session_not_found');
    const noToken = await call(ctx, 'GET', `/v1/users/sandbox/session/cs_x/`);
    expect(noToken.status).toBe(401);
  });
});

describe('the paid journey (sandbox)', () => {
  it('pays a weight-loss plan in the browser page and sees consultation, payment, invoice and subscription', async () => {
    const p = await readyPatient(ctx);
    const co = await call(ctx, 'POST', '/v1/users/checkout/', { token: p.access, json: { category: 'weight_loss', plan: 'subscription' } });
    expect(co.status).toBe(200);
    expect(co.body.covered_by_subscription).toBe(false);
    expect(co.body.checkout_url).toBe(`http://api.test.local/sandbox/checkout/${co.body.session_id}/`);
    const open = await call(ctx, 'GET', `/v1/users/sandbox/session/${co.body.session_id}/`, { token: p.access });
    expect(open.body).toMatchObject({ status: 'open', consultation_id: null, payment_id: null });

    const page = await call(ctx, 'GET', new URL(co.body.checkout_url).pathname);
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toMatch(/text\/html/);
    expect(page.text).toContain('Pay');
    expect(page.text).toContain('Decline');
    expect(page.text).toContain((co.body.amount_cents / 100).toFixed(2));

    const pay = await call(ctx, 'POST', `${new URL(co.body.checkout_url).pathname}pay/`, { payload: 'card_number=4242424242424242', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(pay.status).toBe(303);
    expect(pay.headers.location).toContain(`session_id=${co.body.session_id}`);

    const s = await call(ctx, 'GET', `/v1/users/sandbox/session/${co.body.session_id}/`, { token: p.access });
    expect(s.status).toBe(200);
    expect(s.body.status).toBe('paid');
    expect(s.body.consultation_id).toBeTruthy();

    const cons = await call(ctx, 'GET', '/v1/users/consultations/', { token: p.access });
    expect(cons.body.count).toBe(1);
    const c = cons.body.results[0];
    expect(c).toMatchObject({ status: 'pending_review', plan: 'subscription', supply_days: 28, origin: 'checkout', doctor: null, decided_at: null });
    expect(c.user).toMatchObject({ id: p.id, email: p.email, consultation_count: 1, subscription_status: 'active', total_spent_cents: co.body.amount_cents, net_spent_cents: co.body.amount_cents });
    expect(c.form_snapshot).toEqual(expect.arrayContaining([{ step_id: 1, question_key: 'height_cm', value: 180 }, { step_id: 2, question_key: 'conditions', values: { diabetes: false } }]));
    expect(c.questionnaire_submission).toMatchObject({ category: 'weight_loss', outcome: 'eligible' });
    expect(c.payments).toHaveLength(1);

    const pays = await call(ctx, 'GET', '/v1/users/payments/', { token: p.access });
    expect(pays.body.count).toBe(1);
    const pm = pays.body.results[0];
    expect(pm).toMatchObject({
      consultation_id: c.id,
      patient_email: p.email,
      patient_id: p.id,
      provider: 'sandbox',
      provider_checkout_id: co.body.session_id,
      is_recurring: false,
      billing_reason: 'subscription_create',
      amount_cents: co.body.amount_cents,
      refunded_amount_cents: 0,
      net_amount_cents: co.body.amount_cents,
      currency: 'EUR',
      status: 'succeeded',
      failure_code: '',
      failed_at: null,
      refund: null,
      invoice_url: `http://api.test.local/v1/users/payments/${pm.id}/invoice/`,
    });
    expect(pm.subscription_id).toBeTruthy();

    const inv = await call(ctx, 'GET', `/v1/users/payments/${pm.id}/invoice/`, { token: p.access });
    expect(inv.status).toBe(200);
    expect(inv.headers['content-type']).toBe('application/pdf');
    expect(inv.headers['content-disposition']).toMatch(/^attachment; filename="invoice-INV-\d+\.pdf"$/);
    expect(inv.text.startsWith('%PDF')).toBe(true);

    const [sub] = await ctx.db.query('select * from subscriptions where id = $1', [pm.subscription_id]);
    expect(sub).toMatchObject({ status: 'active', cycle_days: 28, payment_method_brand: 'visa', payment_method_last4: '4242', price_cents: co.body.amount_cents });

    // A second checkout in the same category while the review is open is refused.
    const again = await call(ctx, 'POST', '/v1/users/checkout/', { token: p.access, json: { category: 'weight_loss', plan: 'subscription' } });
    expect(again.status).toBe(409);
    expect(again.body.error_name).toBe('CONSULTATION_ALREADY_OPEN');
  });

  it('one-off supply days: 30 for hair loss, 28 for weight loss', async () => {
    const p = await readyPatient(ctx, 'hair_growth');
    const { session } = await paySandbox(ctx, p, { category: 'hair_growth', plan: 'one_off' });
    const c = await call(ctx, 'GET', `/v1/users/consultations/${session.consultation_id}/`, { token: p.access });
    expect(c.body).toMatchObject({ plan: 'one_off', supply_days: 30 });
    const p2 = await readyPatient(ctx, 'weight_loss');
    const r2 = await paySandbox(ctx, p2, { category: 'weight_loss', plan: 'one_off' });
    const c2 = await call(ctx, 'GET', `/v1/users/consultations/${r2.session.consultation_id}/`, { token: p2.access });
    expect(c2.body).toMatchObject({ plan: 'one_off', supply_days: 28 });
    expect(c2.body.payments[0].billing_reason).toBe('checkout');
  });

  it('a declined card or the Decline button creates nothing', async () => {
    const p = await readyPatient(ctx);
    const co = await call(ctx, 'POST', '/v1/users/checkout/', { token: p.access, json: { category: 'weight_loss', plan: 'one_off' } });
    const path = new URL(co.body.checkout_url).pathname;
    const pay = await call(ctx, 'POST', `${path}pay/`, { payload: 'card_number=4000 0000 0000 0002', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(pay.status).toBe(303);
    expect(pay.headers.location).toContain('/checkout/cancelled/');
    const s = await call(ctx, 'GET', `/v1/users/sandbox/session/${co.body.session_id}/`, { token: p.access });
    expect(s.body.status).toBe('declined');
    const co2 = await call(ctx, 'POST', '/v1/users/checkout/', { token: p.access, json: { category: 'weight_loss', plan: 'one_off', cancel_url: 'https://app.example.org/cancel' } });
    const dec = await call(ctx, 'POST', `${new URL(co2.body.checkout_url).pathname}decline/`);
    expect(dec.status).toBe(303);
    expect(dec.headers.location).toBe('https://app.example.org/cancel');
    const cons = await call(ctx, 'GET', '/v1/users/consultations/', { token: p.access });
    expect(cons.body.count).toBe(0);
    const pays = await call(ctx, 'GET', '/v1/users/payments/', { token: p.access });
    expect(pays.body.count).toBe(0);
  });

  it('20 parallel session checks and the sandbox pay finalise exactly once', async () => {
    const p = await readyPatient(ctx);
    const co = await call(ctx, 'POST', '/v1/users/checkout/', { token: p.access, json: { category: 'weight_loss', plan: 'subscription' } });
    // Mark paid at the provider without finalising, then race the checks against the pay page.
    await ctx.db.query("update checkout_sessions set status = 'paid', provider_payment_id = 'py_sandbox_race', payment_method_brand = 'visa', payment_method_last4 = '4242' where id = $1", [co.body.session_id]);
    const path = new URL(co.body.checkout_url).pathname;
    const results = await Promise.all([
      ...Array.from({ length: 20 }, () => call(ctx, 'GET', `/v1/users/sandbox/session/${co.body.session_id}/`, { token: p.access })),
      call(ctx, 'POST', `${path}pay/`),
    ]);
    for (const r of results.slice(0, 20)) {
      expect(r.status).toBe(200);
      expect(r.body.status).toBe('paid');
    }
    const ids = new Set(results.slice(0, 20).map((r) => r.body.consultation_id));
    expect(ids.size).toBe(1);
    const { n: nc } = firstRow(await ctx.db.query('select count(*)::int as n from consultations where user_id = $1', [p.id]));
    const { n: np } = firstRow(await ctx.db.query('select count(*)::int as n from payments where user_id = $1', [p.id]));
    const { n: ns } = firstRow(await ctx.db.query('select count(*)::int as n from subscriptions where user_id = $1', [p.id]));
    expect([nc, np, ns]).toEqual([1, 1, 1]);
  });

  it("another account's session is 404 and finalises nothing", async () => {
    const owner = await readyPatient(ctx);
    const other = await readyPatient(ctx);
    const co = await call(ctx, 'POST', '/v1/users/checkout/', { token: owner.access, json: { category: 'weight_loss', plan: 'one_off' } });
    await ctx.db.query("update checkout_sessions set status = 'paid' where id = $1", [co.body.session_id]);
    const r = await call(ctx, 'GET', `/v1/users/sandbox/session/${co.body.session_id}/`, { token: other.access });
    expect(r.status).toBe(404);
    expect(r.body.code).toBe('sandbox_session_not_found');
    const { n } = firstRow(await ctx.db.query('select count(*)::int as n from consultations where checkout_session_id = $1', [co.body.session_id]));
    expect(n).toBe(0);
    const viaStripePath = await call(ctx, 'GET', `/v1/users/stripe/session/${co.body.session_id}/`, { token: owner.access });
    expect(viaStripePath.status).toBe(404);
  });

  it("another account's payment, invoice, consultation and prescription are 404, exactly like missing ones", async () => {
    const owner = await readyPatient(ctx);
    const other = await seedPatient(ctx);
    const { session } = await paySandbox(ctx, owner, { category: 'weight_loss', plan: 'one_off' });
    const doctor = await staff(ctx, 'doctor');
    expect((await call(ctx, 'POST', `/v1/clinician/consultations/${session.consultation_id}/approve/`, { token: doctor.access, json: {} })).status).toBe(200);
    const rx = await call(ctx, 'GET', '/v1/users/prescriptions/', { token: owner.access });
    expect(rx.body.count).toBe(1);
    const rxId: string = rx.body.results[0].id;
    // The owner reads all three; the other account gets the answer a missing id gets.
    const paths = [`/v1/users/payments/${session.payment_id}/invoice/`, `/v1/users/consultations/${session.consultation_id}/`, `/v1/users/prescriptions/${rxId}/pdf/`];
    const missingPaths = [`/v1/users/payments/${randomUUID()}/invoice/`, `/v1/users/consultations/${randomUUID()}/`, `/v1/users/prescriptions/${randomUUID()}/pdf/`];
    for (const [k, path] of paths.entries()) {
      expect((await call(ctx, 'GET', path, { token: owner.access })).status, path).toBe(200);
      const theirs = await call(ctx, 'GET', path, { token: other.access });
      const missing = await call(ctx, 'GET', missingPaths[k]!, { token: other.access });
      expect(theirs.status, path).toBe(404);
      expect(missing.status, path).toBe(404);
      expect(theirs.body, path).toEqual(missing.body);
    }
    expect((await call(ctx, 'GET', '/v1/users/prescriptions/', { token: other.access })).body.count).toBe(0);
    expect((await call(ctx, 'GET', '/v1/users/payments/', { token: other.access })).body.count).toBe(0);
    expect((await call(ctx, 'GET', '/v1/users/orders/', { token: other.access })).body).toEqual([]);
    expect((await call(ctx, 'GET', '/v1/users/payments/not-a-uuid/invoice/', { token: owner.access })).status).toBe(404);
  });
});

describe('plans: covered consultations and recurring charges', () => {
  it('an active plan covers the next consultation without a payment', async () => {
    const p = await readyPatient(ctx);
    const { session } = await paySandbox(ctx, p);
    await ctx.db.query("update consultations set status = 'approved' where id = $1", [session.consultation_id]);
    await addSubmission(ctx, p.id, 'weight_loss');
    const r = await call(ctx, 'POST', '/v1/users/checkout/', { token: p.access, json: { category: 'weight_loss', plan: 'subscription' } });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ covered_by_subscription: true, checkout_url: null, session_id: null });
    const c = await call(ctx, 'GET', `/v1/users/consultations/${r.body.consultation_id}/`, { token: p.access });
    expect(c.body).toMatchObject({ origin: 'subscription_covered', plan: 'subscription', supply_days: 28, payments: [] });
  });

  it('the scheduler charges a due cycle once, and a failing card makes the plan past_due', async () => {
    const good = await readyPatient(ctx);
    const g = await paySandbox(ctx, good);
    const bad = await readyPatient(ctx);
    const b = await paySandbox(ctx, bad, { category: 'weight_loss', plan: 'subscription' }, '4000000000000341');
    for (const id of [g.session.subscription_id, b.session.subscription_id]) {
      await ctx.db.query("update subscriptions set current_period_start = now() - interval '28 days', current_period_end = now() - interval '1 minute' where id = $1", [id]);
      await approveRenewalOfPeriod(ctx, id);
    }
    await Promise.all([ctx.deps.scheduler.runDue(), ctx.deps.scheduler.runDue()]);
    await ctx.deps.scheduler.runDue();
    const gp = await call(ctx, 'GET', '/v1/users/payments/', { token: good.access });
    expect(gp.body.count).toBe(2);
    expect(gp.body.results[0]).toMatchObject({ is_recurring: true, billing_reason: 'subscription_cycle', status: 'succeeded', subscription_id: g.session.subscription_id });
    const gs = firstRow(await ctx.db.query('select status, current_period_end from subscriptions where id = $1', [g.session.subscription_id]));
    expect(gs.status).toBe('active');
    expect(new Date(gs.current_period_end).getTime()).toBeGreaterThan(Date.now());

    const bp = await call(ctx, 'GET', '/v1/users/payments/', { token: bad.access });
    expect(bp.body.count).toBe(2);
    expect(bp.body.results[0]).toMatchObject({ is_recurring: true, status: 'failed', failure_code: 'card_declined', net_amount_cents: 0 });
    expect(bp.body.results[0].failed_at).toBeTruthy();
    const [bs] = await ctx.db.query('select status, failed_attempts from subscriptions where id = $1', [b.session.subscription_id]);
    expect(bs).toMatchObject({ status: 'past_due', failed_attempts: 1 });
  });
});

describe('plan lifecycle', () => {
  it('four failed charges cancel the plan; cancel_at_period_end ends it at the period end', async () => {
    const bad = await readyPatient(ctx);
    const b = await paySandbox(ctx, bad, { category: 'weight_loss', plan: 'subscription' }, '4000000000000341');
    await ctx.db.query("update subscriptions set current_period_end = now() - interval '1 minute' where id = $1", [b.session.subscription_id]);
    await approveRenewalOfPeriod(ctx, b.session.subscription_id);
    for (let i = 0; i < 4; i++) {
      await ctx.db.query('update subscriptions set next_charge_attempt_at = null where id = $1', [b.session.subscription_id]);
      await ctx.deps.scheduler.runDue();
    }
    const [s1] = await ctx.db.query('select status, failed_attempts, canceled_at from subscriptions where id = $1', [b.session.subscription_id]);
    expect(s1).toMatchObject({ status: 'canceled', failed_attempts: 4 });
    const failed = await ctx.db.query("select count(*)::int as n from payments where subscription_id = $1 and status = 'failed'", [b.session.subscription_id]);
    expect(failed[0]?.n).toBe(4);

    const p = await readyPatient(ctx);
    const g = await paySandbox(ctx, p);
    await ctx.db.query("update subscriptions set cancel_at_period_end = true, current_period_end = now() - interval '1 minute' where id = $1", [g.session.subscription_id]);
    await ctx.deps.scheduler.runDue();
    const s2 = firstRow(await ctx.db.query('select status, canceled_at from subscriptions where id = $1', [g.session.subscription_id]));
    expect(s2.status).toBe('canceled');
    expect((await call(ctx, 'GET', '/v1/users/payments/', { token: p.access })).body.count).toBe(1);
  });

  it('a used submission needs a new one; parallel checkouts covered by a plan create one consultation', async () => {
    const p = await readyPatient(ctx);
    const { session } = await paySandbox(ctx, p);
    await ctx.db.query("update consultations set status = 'approved' where id = $1", [session.consultation_id]);
    const used = await call(ctx, 'POST', '/v1/users/checkout/', { token: p.access, json: { category: 'weight_loss', plan: 'subscription' } });
    expect(used.status).toBe(409);
    expect(used.body).toMatchObject({ error_name: 'SUBMISSION_ALREADY_USED', consultation_id: session.consultation_id });
    await addSubmission(ctx, p.id, 'weight_loss');
    const rs = await Promise.all(Array.from({ length: 8 }, () => call(ctx, 'POST', '/v1/users/checkout/', { token: p.access, json: { category: 'weight_loss', plan: 'subscription' } })));
    expect(rs.filter((r) => r.status === 200 && r.body.covered_by_subscription)).toHaveLength(1);
    // The losers see whichever refusal their timing meets: the open consultation, or (having passed
    // that check just before the winner committed) the submission it now uses.
    const losers = rs.filter((r) => !(r.status === 200 && r.body.covered_by_subscription));
    expect(losers).toHaveLength(7);
    for (const r of losers) {
      expect(r.status).toBe(409);
      expect(['CONSULTATION_ALREADY_OPEN', 'SUBMISSION_ALREADY_USED']).toContain(r.body.error_name);
    }
    const { n } = firstRow(await ctx.db.query('select count(*)::int as n from consultations where user_id = $1', [p.id]));
    expect(n).toBe(2);
  });

  it('an expired sandbox session cannot be paid; the sandbox has no billing portal', async () => {
    const p = await readyPatient(ctx);
    const co = await call(ctx, 'POST', '/v1/users/checkout/', { token: p.access, json: { category: 'weight_loss', plan: 'one_off' } });
    await ctx.db.query("update checkout_sessions set expires_at = now() - interval '1 second' where id = $1", [co.body.session_id]);
    const s = await call(ctx, 'GET', `/v1/users/sandbox/session/${co.body.session_id}/`, { token: p.access });
    expect(s.body.status).toBe('expired');
    await ctx.deps.scheduler.runDue();
    const row = firstRow(await ctx.db.query('select status from checkout_sessions where id = $1', [co.body.session_id]));
    expect(row.status).toBe('expired');
    const pay = await call(ctx, 'POST', `${new URL(co.body.checkout_url).pathname}pay/`);
    expect(pay.status).toBe(303);
    expect(pay.headers.location).toContain('/checkout/cancelled/');
    expect((await call(ctx, 'GET', '/v1/users/consultations/', { token: p.access })).body.count).toBe(0);
    const portal = await call(ctx, 'POST', '/v1/users/billing-portal/', { token: p.access, json: {} });
    expect(portal.body).toEqual({ url: null, provider: null });
    expect((await call(ctx, 'GET', `/sandbox/checkout/cs_sandbox_${'0'.repeat(32)}/`)).status).toBe(404);
  });
});

describe('records', () => {
  it('lists are paginated envelopes, orders a bare array', async () => {
    const p = await seedPatient(ctx);
    for (const path of ['/v1/users/consultations/', '/v1/users/payments/', '/v1/users/prescriptions/']) {
      const r = await call(ctx, 'GET', path, { token: p.access });
      expect(r.status).toBe(200);
      expect(r.body).toEqual({ count: 0, next: null, previous: null, results: [] });
    }
    const o = await call(ctx, 'GET', '/v1/users/orders/', { token: p.access });
    expect(o.body).toEqual([]);
    expect((await call(ctx, 'GET', `/v1/users/payments/${randomUUID()}/invoice/`, { token: p.access })).status).toBe(404);
  });

  it('an order item that does not parse is left out of the order, not a 500', async () => {
    const p = await seedPatient(ctx);
    const item = { treatment_id: 'wl_tirzepatide', name: 'Tirzepatide', dosage: '2.5 mg', quantity: 1, supply_days: 28 };
    await ctx.db.query('insert into orders (user_id, items) values ($1, $2::jsonb)', [p.id, JSON.stringify([item, { name: 5 }, 'x'])]);
    const o = await call(ctx, 'GET', '/v1/users/orders/', { token: p.access });
    expect(o.status).toBe(200);
    // An item stored before instructions were copied to the order reads with empty instructions.
    expect(o.body.map((x: { items: unknown }) => x.items)).toEqual([[{ ...item, instructions: '' }]]);
    const profile = await call(ctx, 'GET', '/v1/users/profile/', { token: p.access });
    expect(profile.body.orders[0].items).toEqual([{ ...item, instructions: '' }]);
  });

  it("the profile's orders are the orders route's, newest first, on GET and PATCH", async () => {
    const p = await seedPatient(ctx);
    const other = await seedPatient(ctx);
    const item = { treatment_id: 'hl_finasteride', name: 'Finasteride', dosage: '1 mg', quantity: 1, supply_days: 90 };
    // Microseconds in the timestamps: the profile's JSON text and the route's Dates must both cut them to milliseconds.
    const insert = (owner: string, created: string, shipped: string | null) =>
      ctx.db.query(
        `insert into orders (user_id, items, shipping_address, status, carrier, tracking_number, shipped_at, created_at, updated_at)
         values ($1, $2::jsonb, $3::jsonb, $4, $5, $6, $7, $8, $8)`,
        [owner, JSON.stringify([item]), JSON.stringify({ line1: 'Hauptstr. 1', city: 'Berlin' }), shipped ? 'shipped' : 'awaiting_fulfilment', shipped ? 'DHL' : null, shipped ? '00340434161094042557' : null, shipped, created],
      );
    await insert(p.id, '2026-01-02T10:00:00.123456Z', '2026-01-03T08:30:00.987654Z');
    await insert(p.id, '2026-02-01T10:00:00.5Z', null);
    await insert(other.id, '2026-03-01T10:00:00Z', null);
    const route = await call(ctx, 'GET', '/v1/users/orders/', { token: p.access });
    expect(route.body.map((o: { created_at: string }) => o.created_at)).toEqual(['2026-02-01T10:00:00.500Z', '2026-01-02T10:00:00.123Z']);
    expect(route.body[1].shipped_at).toBe('2026-01-03T08:30:00.987Z');
    const got = await call(ctx, 'GET', '/v1/users/profile/me/', { token: p.access });
    expect(got.body.orders).toEqual(route.body);
    const patched = await call(ctx, 'PATCH', '/v1/users/profile/me/', { token: p.access, json: { city: 'Hamburg' } });
    expect(patched.status).toBe(200);
    expect(patched.body.orders).toEqual(route.body);
  });
});
