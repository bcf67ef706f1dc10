// A catalogue price change for a plan Stripe bills itself (docs/compliance.md, "Price changes"): the
// same notice as a plan billed here; the new price reaches Stripe's subscription only once the last
// period at the old price is running, without proration, so Stripe's first invoice at the new price
// is the period the notice names; the plan's own price follows when that invoice is paid. Stripe is a
// local fake of its HTTP API (the SDK's host/port/protocol options).
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { noticePriceChanges, pushNoticedPricesToProvider } from '../src/modules/subscriptions/index.ts';
import { call, createTestContext, firstRow, seedPatient, type TestContext } from './support/harness.ts';

const DAY = 86_400_000;
const WEBHOOK_SECRET = 'whsec_test_' + randomBytes(8).toString('hex');
const hex = (n = 8) => randomBytes(n).toString('hex');

interface Sent { method: string; path: string; body: URLSearchParams; idempotencyKey?: string }
let server: Server;
const sent: Sent[] = [];
let ctx: TestContext;

beforeAll(async () => {
  server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://x');
      sent.push({ method: req.method!, path: url.pathname, body: new URLSearchParams(raw), idempotencyKey: req.headers['idempotency-key'] as string | undefined });
      const send = (status: number, obj: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json', 'request-id': `req_${hex(4)}` });
        res.end(JSON.stringify(obj));
      };
      const sub = /^\/v1\/subscriptions\/([^/]+)$/.exec(url.pathname);
      if (sub) {
        return send(200, {
          id: sub[1],
          object: 'subscription',
          status: 'active',
          items: { object: 'list', data: [{ id: `si_${sub[1]}`, object: 'subscription_item', price: { id: `price_${hex(4)}`, object: 'price', product: `prod_${sub[1]}`, unit_amount: 19900 } }] },
        });
      }
      send(404, { error: { type: 'invalid_request_error', message: `unhandled ${req.method} ${url.pathname}` } });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  ctx = await createTestContext({
    PAYMENT_PROVIDER: 'stripe',
    STRIPE_SECRET_KEY: 'sk_test_' + hex(),
    STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
    STRIPE_API_HOST: '127.0.0.1',
    STRIPE_API_PORT: String((server.address() as AddressInfo).port),
    STRIPE_API_PROTOCOL: 'http',
  });
});
afterAll(async () => {
  await ctx?.close();
  await new Promise((r) => server?.close(r));
});

/** A Stripe-billed semaglutide plan charged `price` (the catalogue's plan price is 21900), its period ending in 20 days. */
async function stripePlan(price: number) {
  const p = await seedPatient(ctx, { locale: 'de', country_of_residence: 'DEU' });
  const now = ctx.deps.clock.now().getTime();
  const subscription = `sub_${hex()}`;
  const s = firstRow(await ctx.db.query(
    `insert into subscriptions (user_id, category, treatment_id, dosage, status, provider, provider_subscription_id, price_cents, interval, interval_count, cycle_days, started_at, current_period_start, current_period_end, payment_method_last4)
     values ($1, 'weight_loss', 'semaglutide', '1 mg', 'active', 'stripe', $2, $3, 'day', 28, 28, $4, $4, $5, '4242') returning id, current_period_end`,
    [p.id, subscription, price, new Date(now - 8 * DAY), new Date(now + 20 * DAY)],
  ));
  return { p, id: s.id as string, subscription, periodEnd: new Date(s.current_period_end as string) };
}

function invoicePaid(subscription: string, start: Date, amount: number) {
  const s = Math.floor(start.getTime() / 1000);
  const payload = JSON.stringify({
    id: `evt_${hex()}`, object: 'event', api_version: '2025-01-01', created: Math.floor(Date.now() / 1000), livemode: false, type: 'invoice.paid',
    data: { object: { id: `in_${hex()}`, object: 'invoice', subscription, billing_reason: 'subscription_cycle', amount_paid: amount, currency: 'eur', lines: { data: [{ period: { start: s, end: s + 28 * 86400 } }] } } },
  });
  const header = Stripe.webhooks.generateTestHeaderString({ payload, secret: WEBHOOK_SECRET });
  return call(ctx, 'POST', '/v1/webhooks/stripe/', { payload, headers: { 'content-type': 'application/json', 'stripe-signature': header } });
}

const priceUpdates = (subscription: string) => sent.filter((r) => r.method === 'POST' && r.path === `/v1/subscriptions/${subscription}`);

describe('a catalogue price change for a plan Stripe bills itself', () => {
  it('is noticed like any plan; Stripe gets the new price only when the last old-price period runs, once, without proration; the plan follows the paid invoice', async () => {
    const plan = await stripePlan(19900);
    await noticePriceChanges(ctx.deps);
    const notice = firstRow(await ctx.db.query('select * from plan_price_notices where subscription_id = $1', [plan.id]));
    expect([notice.old_price_cents, notice.new_price_cents]).toEqual([19900, 21900]);
    const effective = new Date(notice.effective_from);
    // Day 20 is too early for 30 days' notice; day 48 is the first period at the new price.
    expect(effective.getTime()).toBe(plan.periodEnd.getTime() + 28 * DAY);
    await ctx.flushMail();
    const mails = ctx.mails.filter((m) => m.to === plan.p.email && m.subject === 'Der Preis Ihres Plans ändert sich');
    expect(mails).toHaveLength(1);
    expect(mails[0]!.text).toContain(effective.toISOString().slice(0, 10));

    // The running period (to day 20) is not the last at the old price: Stripe keeps the old price.
    expect(await pushNoticedPricesToProvider(ctx.deps)).toBe(0);
    expect(priceUpdates(plan.subscription)).toEqual([]);

    // Stripe invoiced and was paid for day 20 to 48 at the old price (Stripe's times are whole
    // seconds): now the new price goes to Stripe.
    expect((await invoicePaid(plan.subscription, plan.periodEnd, 19900)).status).toBe(200);
    expect(firstRow(await ctx.db.query('select price_cents from subscriptions where id = $1', [plan.id])).price_cents).toBe(19900);
    expect(await pushNoticedPricesToProvider(ctx.deps)).toBe(1);
    expect(await pushNoticedPricesToProvider(ctx.deps)).toBe(0);
    const [update, ...more] = priceUpdates(plan.subscription);
    expect(more).toEqual([]);
    expect(update!.body.get('proration_behavior')).toBe('none');
    expect(update!.body.get('items[0][id]')).toBe(`si_${plan.subscription}`);
    expect(update!.body.get('items[0][price_data][unit_amount]')).toBe('21900');
    expect(update!.body.get('items[0][price_data][currency]')).toBe('eur');
    expect(update!.body.get('items[0][price_data][product]')).toBe(`prod_${plan.subscription}`);
    expect(update!.body.get('items[0][price_data][recurring][interval_count]')).toBe('28');
    expect(update!.idempotencyKey).toBe(`price_notice_${notice.id}`);

    // Stripe's invoice for the period from day 48 is paid at the new price: the plan's own price follows.
    expect((await invoicePaid(plan.subscription, new Date(plan.periodEnd.getTime() + 28 * DAY), 21900)).status).toBe(200);
    const after = firstRow(await ctx.db.query('select s.price_cents, n.applied_at from subscriptions s join plan_price_notices n on n.subscription_id = s.id where s.id = $1', [plan.id]));
    expect(after.price_cents).toBe(21900);
    expect(after.applied_at).not.toBeNull();
  });

  it('a notice superseded after Stripe got its price sets the plan’s own price back at Stripe first', async () => {
    const plan = await stripePlan(19900);
    // A catalogue price of 23900 was noticed and already set at Stripe; the catalogue is now 21900.
    const old = firstRow(await ctx.db.query(
      `insert into plan_price_notices (user_id, subscription_id, treatment_id, old_price_cents, new_price_cents, currency, notified_at, effective_from, provider_applied_at)
       values ($1, $2, 'semaglutide', 19900, 23900, 'EUR', $3, $4, $3) returning id`,
      [plan.p.id, plan.id, ctx.deps.clock.now(), plan.periodEnd],
    ));
    await noticePriceChanges(ctx.deps);
    const [back] = priceUpdates(plan.subscription);
    expect(back!.body.get('items[0][price_data][unit_amount]')).toBe('19900');
    expect(back!.idempotencyKey).toBe(`price_notice_${old.id}_withdrawn`);
    const rows = await ctx.db.query('select new_price_cents, superseded_at is not null as superseded from plan_price_notices where subscription_id = $1 order by notified_at, superseded_at nulls last', [plan.id]);
    expect(rows).toEqual([{ new_price_cents: 23900, superseded: true }, { new_price_cents: 21900, superseded: false }]);
  });
});
