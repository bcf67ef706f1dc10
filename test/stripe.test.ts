// The Stripe provider against a local fake of the Stripe HTTP API (the SDK's host/port/protocol
// options) and real signed webhook payloads (stripe.webhooks.generateTestHeaderString).
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTestContext, seedPatient, type Patient, type TestContext, firstRow } from './support/harness.ts';
import { approveRenewalOfPeriod, readyPatient, staff } from './billing-fixtures.ts';

const WEBHOOK_SECRET = 'whsec_test_' + randomBytes(8).toString('hex');
const hex = (n = 12) => randomBytes(n).toString('hex');

interface Fake {
  server: Server;
  port: number;
  sessions: Map<string, any>;
  requests: { method: string; path: string; body: URLSearchParams; idempotencyKey?: string }[];
}

/** Invoice statuses the fake knows (draft until finalised; GET of an unknown invoice answers paid). */
const invoiceStatus = new Map<string, string>();

async function fakeStripe(): Promise<Fake> {
  const sessions = new Map<string, any>();
  const requests: Fake['requests'] = [];
  const server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://x');
      const body = new URLSearchParams(raw);
      requests.push({ method: req.method!, path: url.pathname, body, idempotencyKey: req.headers['idempotency-key'] as string | undefined });
      const send = (status: number, obj: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json', 'request-id': `req_${hex(6)}` });
        res.end(JSON.stringify(obj));
      };
      if (!/^Bearer sk_test_/.test(String(req.headers.authorization))) return send(401, { error: { type: 'invalid_request_error', message: 'bad key' } });
      if (req.method === 'POST' && url.pathname === '/v1/checkout/sessions') {
        const id = `cs_test_${hex()}`;
        const s = {
          id,
          object: 'checkout.session',
          mode: body.get('mode'),
          client_reference_id: body.get('client_reference_id'),
          customer_email: body.get('customer_email'),
          amount_total: Number(body.get('line_items[0][price_data][unit_amount]')),
          currency: body.get('line_items[0][price_data][currency]'),
          status: 'open',
          payment_status: 'unpaid',
          payment_intent: null,
          subscription: null,
          invoice: null,
          success_url: body.get('success_url'),
          cancel_url: body.get('cancel_url'),
          url: `https://checkout.stripe.test/c/pay/${id}`,
          expires_at: Math.floor(Date.now() / 1000) + 86400,
        };
        sessions.set(id, s);
        return send(200, s);
      }
      const m = /^\/v1\/checkout\/sessions\/([^/]+)$/.exec(url.pathname);
      if (req.method === 'GET' && m) {
        const s = sessions.get(m[1]!);
        if (!s) return send(404, { error: { type: 'invalid_request_error', code: 'resource_missing', message: `No such checkout.session: '${m[1]}'` } });
        return send(200, s);
      }
      const inv = /^\/v1\/invoices\/([^/]+)$/.exec(url.pathname);
      if (req.method === 'GET' && inv) {
        return send(200, { id: inv[1], object: 'invoice', status: invoiceStatus.get(inv[1]!) ?? 'paid', payments: { object: 'list', data: [{ object: 'invoice_payment', status: 'paid', payment: { type: 'payment_intent', payment_intent: `pi_for_${inv[1]}` } }] } });
      }
      if (req.method === 'POST' && inv) return send(200, { id: inv[1], object: 'invoice', status: invoiceStatus.get(inv[1]!) ?? 'draft', auto_advance: body.get('auto_advance') === 'true' });
      if (req.method === 'DELETE' && inv) {
        invoiceStatus.set(inv[1]!, 'deleted');
        return send(200, { id: inv[1], object: 'invoice', deleted: true });
      }
      const invAction = /^\/v1\/invoices\/([^/]+)\/(finalize|pay)$/.exec(url.pathname);
      if (req.method === 'POST' && invAction) {
        invoiceStatus.set(invAction[1]!, invAction[2] === 'finalize' ? 'open' : 'paid');
        return send(200, { id: invAction[1], object: 'invoice', status: invoiceStatus.get(invAction[1]!) });
      }
      if (req.method === 'POST' && url.pathname === '/v1/billing_portal/sessions') {
        return send(200, { id: `bps_${hex()}`, object: 'billing_portal.session', customer: body.get('customer'), url: `https://billing.stripe.test/p/session/${hex()}` });
      }
      const subPath = /^\/v1\/subscriptions\/([^/]+)$/.exec(url.pathname);
      if (req.method === 'DELETE' && subPath) return send(200, { id: subPath[1], object: 'subscription', status: 'canceled' });
      if (req.method === 'POST' && url.pathname === '/v1/refunds') {
        return send(200, { id: `re_${hex()}`, object: 'refund', amount: Number(body.get('amount')), payment_intent: body.get('payment_intent'), status: 'succeeded' });
      }
      send(404, { error: { type: 'invalid_request_error', message: `unhandled ${req.method} ${url.pathname}` } });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, port: (server.address() as AddressInfo).port, sessions, requests };
}

let fake: Fake;
let ctx: TestContext;
beforeAll(async () => {
  fake = await fakeStripe();
  ctx = await createTestContext({
    PAYMENT_PROVIDER: 'stripe',
    CORS_ORIGINS: 'https://app.example.org',
    STRIPE_SECRET_KEY: 'sk_test_' + hex(),
    STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
    STRIPE_API_HOST: '127.0.0.1',
    STRIPE_API_PORT: String(fake.port),
    STRIPE_API_PROTOCOL: 'http',
  });
});
afterAll(async () => {
  await ctx?.close();
  await new Promise((r) => fake?.server.close(r));
});

function webhook(event: Record<string, unknown>, secret = WEBHOOK_SECRET) {
  const payload = JSON.stringify({ object: 'event', api_version: '2025-01-01', created: Math.floor(Date.now() / 1000), livemode: false, ...event });
  const header = Stripe.webhooks.generateTestHeaderString({ payload, secret });
  return call(ctx, 'POST', '/v1/webhooks/stripe/', { payload, headers: { 'content-type': 'application/json', 'stripe-signature': header } });
}

function pay(sessionId: string, plan: 'one_off' | 'subscription') {
  const s = fake.sessions.get(sessionId);
  Object.assign(s, { status: 'complete', payment_status: 'paid' });
  if (plan === 'subscription') Object.assign(s, { subscription: `sub_${hex()}`, invoice: `in_${hex()}`, customer: `cus_${hex()}` });
  else s.payment_intent = `pi_${hex()}`;
  return s;
}

async function startCheckout(p: Patient, plan: 'one_off' | 'subscription' = 'subscription') {
  const r = await call(ctx, 'POST', '/v1/users/checkout/', { token: p.access, json: { category: 'weight_loss', plan } });
  expect(r.status).toBe(200);
  return r.body;
}

const counts = async (userId: string) => {
  const r = firstRow(await ctx.db.query(
    `select (select count(*)::int from consultations where user_id = $1) as c, (select count(*)::int from payments where user_id = $1) as p, (select count(*)::int from subscriptions where user_id = $1) as s`,
    [userId],
  ));
  return [r.c, r.p, r.s];
};

describe('stripe checkout', () => {
  it('creates a Checkout Session in subscription mode bound to the account', async () => {
    const p = await readyPatient(ctx);
    const co = await startCheckout(p);
    expect(co.provider).toBe('stripe');
    expect(co.checkout_url).toBe(`https://checkout.stripe.test/c/pay/${co.session_id}`);
    const req = fake.requests.find((r) => r.path === '/v1/checkout/sessions' && r.body.get('client_reference_id') === p.id)!;
    expect(req.body.get('mode')).toBe('subscription');
    expect(req.body.get('line_items[0][price_data][recurring][interval]')).toBe('day');
    expect(req.body.get('line_items[0][price_data][recurring][interval_count]')).toBe('28');
    expect(req.body.get('success_url')).toContain('{CHECKOUT_SESSION_ID}'); // Stripe substitutes it
    const one = await readyPatient(ctx);
    await startCheckout(one, 'one_off');
    expect(fake.requests.find((r) => r.body.get('client_reference_id') === one.id)!.body.get('mode')).toBe('payment');
  });

  it('session check: open, then paid finalises once; the webhook afterwards is a no-op', async () => {
    const p = await readyPatient(ctx);
    const co = await startCheckout(p, 'one_off');
    const open = await call(ctx, 'GET', `/v1/users/stripe/session/${co.session_id}/`, { token: p.access });
    expect(open.body).toMatchObject({ status: 'open', provider: 'stripe', consultation_id: null });
    const s = pay(co.session_id, 'one_off');
    const paid = await call(ctx, 'GET', `/v1/users/stripe/session/${co.session_id}/`, { token: p.access });
    expect(paid.body.status).toBe('paid');
    expect(paid.body.consultation_id).toBeTruthy();
    const wh = await webhook({ id: `evt_${hex()}`, type: 'checkout.session.completed', data: { object: s } });
    expect(wh.status).toBe(200);
    expect(await counts(p.id)).toEqual([1, 1, 0]);
    const pays = await call(ctx, 'GET', '/v1/users/payments/', { token: p.access });
    expect(pays.body.results[0]).toMatchObject({ provider: 'stripe', provider_payment_id: s.payment_intent, provider_checkout_id: s.id, billing_reason: 'checkout' });
    expect((await call(ctx, 'GET', `/v1/users/sandbox/session/${co.session_id}/`, { token: p.access })).body.code).toBe('sandbox_session_not_found');
    const unknown = await call(ctx, 'GET', `/v1/users/stripe/session/cs_test_${hex()}/`, { token: p.access });
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe('stripe_session_not_found');
  });

  it('20 parallel session checks plus the webhook create exactly one consultation, payment and subscription', async () => {
    const p = await readyPatient(ctx);
    const co = await startCheckout(p, 'subscription');
    const s = pay(co.session_id, 'subscription');
    const event = { id: `evt_${hex()}`, type: 'checkout.session.completed', data: { object: s } };
    const rs = await Promise.all([
      ...Array.from({ length: 20 }, () => call(ctx, 'GET', `/v1/users/stripe/session/${co.session_id}/`, { token: p.access })),
      webhook(event),
      webhook(event),
    ]);
    for (const r of rs) expect(r.status).toBe(200);
    expect(new Set(rs.slice(0, 20).map((r) => r.body.consultation_id)).size).toBe(1);
    expect(rs.slice(20).map((r) => r.body.duplicate).sort()).toEqual([false, true]);
    expect(await counts(p.id)).toEqual([1, 1, 1]);
    const sub = firstRow(await ctx.db.query('select * from subscriptions where user_id = $1', [p.id]));
    expect(sub).toMatchObject({ provider: 'stripe', provider_subscription_id: s.subscription, provider_customer_id: s.customer, status: 'active', cycle_days: 28 });
    // Refunding the plan's first payment (recorded by invoice id) refunds the invoice's payment intent.
    const admin = await staff(ctx, 'backoffice_admin');
    const first = firstRow(await ctx.db.query('select id from payments where user_id = $1', [p.id]));
    const rf = await call(ctx, 'POST', `/v1/backoffice/payments/${first.id}/refund/`, { token: admin.access, json: { amount_cents: 100 } });
    expect(rf.status).toBe(200);
    expect(fake.requests.filter((x) => x.path === '/v1/refunds').pop()!.body.get('payment_intent')).toBe(`pi_for_${s.invoice}`);
    const portal = await call(ctx, 'POST', '/v1/users/billing-portal/', { token: p.access, json: { return_url: 'https://app.example.org/account' } });
    expect(portal.status).toBe(200);
    expect(portal.body).toMatchObject({ provider: 'stripe', url: expect.stringMatching(/^https:\/\/billing\.stripe\.test\//) });
    const portalReq = fake.requests.filter((x) => x.path === '/v1/billing_portal/sessions').pop()!;
    expect(portalReq.body.get('customer')).toBe(s.customer);
    expect(portalReq.body.get('return_url')).toBe('https://app.example.org/account');
  });

  it('a doctor rejects a paid Stripe plan: the invoice is refunded in full at Stripe (idempotency key per payment), the Stripe subscription cancelled, the plan canceled', async () => {
    const p = await readyPatient(ctx);
    const co = await startCheckout(p, 'subscription');
    const s = pay(co.session_id, 'subscription');
    expect((await call(ctx, 'GET', `/v1/users/stripe/session/${co.session_id}/`, { token: p.access })).status).toBe(200);
    const consultation = firstRow(await ctx.db.query('select id from consultations where user_id = $1', [p.id]));
    const payment = firstRow(await ctx.db.query('select id, amount_cents from payments where user_id = $1', [p.id]));
    const doctor = await staff(ctx, 'doctor');
    const before = fake.requests.length;
    const r = await call(ctx, 'POST', `/v1/clinician/consultations/${consultation.id}/reject/`, { token: doctor.access, json: { decision_reason: 'Not suitable for an online prescription.' } });
    expect(r.status).toBe(200);
    const sent = fake.requests.slice(before);
    const refund = sent.find((x) => x.path === '/v1/refunds')!;
    expect(refund.body.get('payment_intent')).toBe(`pi_for_${s.invoice}`);
    expect(Number(refund.body.get('amount'))).toBe(payment.amount_cents);
    expect(refund.idempotencyKey).toBe(`outcome_${payment.id}_0`);
    expect(sent.some((x) => x.method === 'DELETE' && x.path === `/v1/subscriptions/${s.subscription}`)).toBe(true);
    expect(firstRow(await ctx.db.query('select status from subscriptions where user_id = $1', [p.id])).status).toBe('canceled');
    expect(firstRow(await ctx.db.query('select status, refunded_amount_cents from payments where id = $1', [payment.id]))).toEqual({ status: 'refunded', refunded_amount_cents: payment.amount_cents });
  });

  it('a Stripe plan’s next invoice is held as a draft until its renewal is approved, then finalised and paid; a canceled plan’s draft is deleted', async () => {
    const p = await readyPatient(ctx);
    const co = await startCheckout(p, 'subscription');
    const s = pay(co.session_id, 'subscription');
    expect((await call(ctx, 'GET', `/v1/users/stripe/session/${co.session_id}/`, { token: p.access })).status).toBe(200);
    const plan = firstRow(await ctx.db.query('select id from subscriptions where user_id = $1', [p.id]));
    const invoice = `in_${hex()}`;
    invoiceStatus.set(invoice, 'draft');
    const created = (id: string) => webhook({ id: `evt_${hex()}`, type: 'invoice.created', data: { object: { id, object: 'invoice', status: 'draft', subscription: s.subscription, billing_reason: 'subscription_cycle' } } });
    expect((await created(invoice)).status).toBe(200);
    const held = fake.requests.filter((x) => x.path === `/v1/invoices/${invoice}` && x.method === 'POST').pop();
    expect(held?.body.get('auto_advance')).toBe('false');
    expect(firstRow(await ctx.db.query('select held_provider_invoice_id from subscriptions where id = $1', [plan.id])).held_provider_invoice_id).toBe(invoice);

    // No approved renewal: the scheduler leaves it held, nothing is charged.
    await ctx.deps.scheduler.runDue();
    expect(invoiceStatus.get(invoice)).toBe('draft');
    await approveRenewalOfPeriod(ctx, plan.id);
    await ctx.deps.scheduler.runDue();
    expect(invoiceStatus.get(invoice)).toBe('paid');
    expect(fake.requests.some((x) => x.path === `/v1/invoices/${invoice}/finalize`)).toBe(true);
    expect(firstRow(await ctx.db.query('select held_provider_invoice_id from subscriptions where id = $1', [plan.id])).held_provider_invoice_id).toBeNull();

    // A plan that has ended: its next draft is deleted at once.
    await ctx.db.query("update subscriptions set status = 'canceled', canceled_at = now() where id = $1", [plan.id]);
    const late = `in_${hex()}`;
    invoiceStatus.set(late, 'draft');
    expect((await created(late)).status).toBe(200);
    expect(invoiceStatus.get(late)).toBe('deleted');
  });

  it("another account's session is 404 and finalises nothing; a webhook for a session bound to someone else is ignored", async () => {
    const owner = await readyPatient(ctx);
    const other = await seedPatient(ctx);
    const co = await startCheckout(owner, 'one_off');
    pay(co.session_id, 'one_off');
    const r = await call(ctx, 'GET', `/v1/users/stripe/session/${co.session_id}/`, { token: other.access });
    expect(r.status).toBe(404);
    expect(r.body.code).toBe('stripe_session_not_found');
    expect(await counts(owner.id)).toEqual([0, 0, 0]);
    const forged = { ...fake.sessions.get(co.session_id), client_reference_id: other.id };
    await webhook({ id: `evt_${hex()}`, type: 'checkout.session.completed', data: { object: forged } });
    expect(await counts(owner.id)).toEqual([0, 0, 0]);
    expect(await counts(other.id)).toEqual([0, 0, 0]);
  });
});

describe('stripe webhooks', () => {
  it('refuses a bad or missing signature and processes an event id once', async () => {
    const bad = await webhook({ id: `evt_${hex()}`, type: 'checkout.session.completed', data: { object: {} } }, 'whsec_wrong');
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('invalid_signature');
    // The signature covers the exact bytes: the same JSON re-serialised does not verify.
    const payload = JSON.stringify({ id: `evt_${hex()}`, object: 'event', type: 'ping.unknown', data: { object: {} } });
    const header = Stripe.webhooks.generateTestHeaderString({ payload, secret: WEBHOOK_SECRET });
    const reformatted = await call(ctx, 'POST', '/v1/webhooks/stripe/', { payload: JSON.stringify(JSON.parse(payload), null, 2), headers: { 'content-type': 'application/json', 'stripe-signature': header } });
    expect(reformatted.status).toBe(400);
    const exact = await call(ctx, 'POST', '/v1/webhooks/stripe/', { payload, headers: { 'content-type': 'application/json; charset=utf-8', 'stripe-signature': header } });
    expect(exact.status).toBe(200);
    const none = await call(ctx, 'POST', '/v1/webhooks/stripe/', { json: { id: 'evt_x' } });
    expect(none.status).toBe(400);
    const id = `evt_${hex()}`;
    const a = await webhook({ id, type: 'ping.unknown', data: { object: {} } });
    const b = await webhook({ id, type: 'ping.unknown', data: { object: {} } });
    expect([a.body.duplicate, b.body.duplicate]).toEqual([false, true]);
  });

  it('a completed session this service never opened is acknowledged (200, no retry) and records nothing', async () => {
    const p = await readyPatient(ctx);
    const co = await startCheckout(p, 'one_off');
    pay(co.session_id, 'one_off');
    const unknown = { ...fake.sessions.get(co.session_id), id: `cs_test_unknown_${hex()}` };
    const res = await webhook({ id: `evt_${hex()}`, type: 'checkout.session.completed', data: { object: unknown } });
    expect(res.status).toBe(200);
    expect(await counts(p.id)).toEqual([0, 0, 0]);
  });

  it('invoice.paid, invoice.payment_failed, customer.subscription.updated and deleted drive the plan', async () => {
    const p = await readyPatient(ctx);
    const co = await startCheckout(p, 'subscription');
    const s = pay(co.session_id, 'subscription');
    await webhook({ id: `evt_${hex()}`, type: 'checkout.session.completed', data: { object: s } });
    // The first invoice is recorded by the checkout finalisation, not twice.
    await webhook({ id: `evt_${hex()}`, type: 'invoice.paid', data: { object: { id: s.invoice, object: 'invoice', subscription: s.subscription, billing_reason: 'subscription_create', amount_paid: 21900, currency: 'eur' } } });
    expect(await counts(p.id)).toEqual([1, 1, 1]);

    const start = Math.floor(Date.now() / 1000) + 28 * 86400;
    const inv = { id: `in_${hex()}`, object: 'invoice', subscription: s.subscription, billing_reason: 'subscription_cycle', amount_paid: 21900, currency: 'eur', lines: { data: [{ period: { start, end: start + 28 * 86400 } }] } };
    const evt = { id: `evt_${hex()}`, type: 'invoice.paid', data: { object: inv } };
    await webhook(evt);
    await webhook({ ...evt, id: `evt_${hex()}` }); // same invoice, another event id: still one payment
    let pays = await call(ctx, 'GET', '/v1/users/payments/', { token: p.access });
    expect(pays.body.count).toBe(2);
    expect(pays.body.results[0]).toMatchObject({ is_recurring: true, billing_reason: 'subscription_cycle', provider_payment_id: inv.id, status: 'succeeded', amount_cents: 21900 });
    const sub1 = firstRow(await ctx.db.query('select * from subscriptions where user_id = $1', [p.id]));
    expect(new Date(sub1.current_period_end).getTime()).toBe((start + 28 * 86400) * 1000);

    await webhook({ id: `evt_${hex()}`, type: 'invoice.payment_failed', data: { object: { id: `in_${hex()}`, object: 'invoice', subscription: s.subscription, billing_reason: 'subscription_cycle', amount_due: 21900, currency: 'eur', attempt_count: 1 } } });
    pays = await call(ctx, 'GET', '/v1/users/payments/', { token: p.access });
    expect(pays.body.count).toBe(3);
    const failed = pays.body.results.find((x: any) => x.status === 'failed');
    expect(failed).toMatchObject({ is_recurring: true, failure_code: 'card_declined', net_amount_cents: 0 });
    expect(failed.failed_at).toBeTruthy();
    expect((await ctx.db.query('select status from subscriptions where user_id = $1', [p.id]))[0]?.status).toBe('past_due');

    await webhook({ id: `evt_${hex()}`, type: 'customer.subscription.updated', data: { object: { id: s.subscription, object: 'subscription', status: 'active', cancel_at_period_end: true, items: { data: [{ current_period_start: start, current_period_end: start + 28 * 86400 }] } } } });
    let [sub] = await ctx.db.query('select * from subscriptions where user_id = $1', [p.id]);
    expect(sub).toMatchObject({ status: 'active', cancel_at_period_end: true });
    await webhook({ id: `evt_${hex()}`, type: 'customer.subscription.deleted', data: { object: { id: s.subscription, object: 'subscription', status: 'canceled', canceled_at: start } } });
    [sub] = await ctx.db.query('select * from subscriptions where user_id = $1', [p.id]);
    expect(sub?.status).toBe('canceled');
    expect(sub?.canceled_at).toBeTruthy();
    // Stripe bills plans itself: the local scheduler leaves Stripe plans alone.
    await ctx.db.query("update subscriptions set status = 'active', current_period_end = now() - interval '1 day' where user_id = $1", [p.id]);
    await ctx.deps.scheduler.runDue();
    expect((await call(ctx, 'GET', '/v1/users/payments/', { token: p.access })).body.count).toBe(3);
  });

  it('charge.refunded and a back-office refund through the Stripe API update the payment', async () => {
    const p = await readyPatient(ctx);
    const co = await startCheckout(p, 'one_off');
    const s = pay(co.session_id, 'one_off');
    await webhook({ id: `evt_${hex()}`, type: 'checkout.session.completed', data: { object: s } });
    const payment = firstRow(await ctx.db.query('select * from payments where user_id = $1', [p.id]));
    await webhook({
      id: `evt_${hex()}`,
      type: 'charge.refunded',
      data: { object: { id: `ch_${hex()}`, object: 'charge', payment_intent: s.payment_intent, amount: payment.amount_cents, amount_refunded: 500, refunds: { data: [{ id: `re_${hex()}`, amount: 500, reason: 'requested_by_customer' }] } } },
    });
    let [row] = await ctx.db.query('select * from payments where id = $1', [payment.id]);
    expect(row).toMatchObject({ status: 'partially_refunded', refunded_amount_cents: 500 });

    const admin = await staff(ctx, 'backoffice_admin');
    const r = await call(ctx, 'POST', `/v1/backoffice/payments/${payment.id}/refund/`, { token: admin.access, json: {} });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ status: 'refunded', refunded_amount_cents: payment.amount_cents, net_amount_cents: 0, provider: 'stripe' });
    const refundReq = fake.requests.filter((x) => x.path === '/v1/refunds').pop()!;
    expect(refundReq.body.get('payment_intent')).toBe(s.payment_intent);
    expect(refundReq.body.get('amount')).toBe(String(payment.amount_cents - 500));
    [row] = await ctx.db.query('select * from consultations where id = $1', [payment.consultation_id]);
    expect(row?.status).toBe('refunded');
  });
});
