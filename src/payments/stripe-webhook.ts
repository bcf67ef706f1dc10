// POST /v1/webhooks/stripe/: Stripe events. The signature is verified on the RAW body (a
// content-type parser scoped to this plugin keeps the bytes); every event id is recorded in
// webhook_events in the same transaction as its effect, so a redelivered event changes nothing.
import Stripe from 'stripe';
import { z } from 'zod';
import type { ZodApp } from '../http/plugin.ts';
import type { Queryable } from '../db/index.ts';
import type { Deps } from '../deps.ts';
import { DetailCodeSchema, detailCode } from '../http/errors.ts';
import { applyRefund, finaliseInTx } from '../modules/billing/service.ts';
import { planPaymentDescription } from '../modules/billing/product.ts';
import { queueChargeReceipt, queueRefundReceipt } from '../modules/billing/receipts.ts';
import { stripeSessionState } from './stripe.ts';

const DAY_MS = 24 * 3600 * 1000;
const idOf = (v: any): string | null => (typeof v === 'string' ? v : (v?.id ?? null));
const fromUnix = (s: unknown) => (typeof s === 'number' ? new Date(s * 1000) : null);

const STATUS_MAP: Record<string, string> = { active: 'active', trialing: 'active', past_due: 'past_due', unpaid: 'past_due', incomplete: 'past_due', paused: 'paused', canceled: 'canceled', incomplete_expired: 'canceled' };

function invoiceSubscriptionId(inv: any): string | null {
  return idOf(inv.subscription) ?? idOf(inv.parent?.subscription_details?.subscription) ?? idOf(inv.lines?.data?.[0]?.subscription) ?? null;
}

async function handle(deps: Deps, q: Queryable, event: any): Promise<void> {
  const obj = event.data?.object ?? {};
  switch (event.type) {
    case 'checkout.session.completed':
    case 'checkout.session.async_payment_succeeded': {
      await finaliseInTx(deps, q, obj.id, stripeSessionState(obj));
      return;
    }
    case 'checkout.session.expired': {
      await q.query("update checkout_sessions set status = 'expired', updated_at = now() where id = $1 and status = 'open'", [obj.id]);
      return;
    }
    case 'invoice.paid': {
      const subId = invoiceSubscriptionId(obj);
      if (!subId || obj.billing_reason === 'subscription_create') return; // the checkout finalisation records the first payment
      const [sub] = await q.query("select * from subscriptions where provider = 'stripe' and provider_subscription_id = $1 for update", [subId]);
      if (!sub) return;
      const line = obj.lines?.data?.[0];
      const start = fromUnix(line?.period?.start) ?? new Date(sub.current_period_end);
      const end = fromUnix(line?.period?.end) ?? new Date(start.getTime() + sub.cycle_days * DAY_MS);
      const now = deps.clock.now();
      await q.query(
        `insert into payments (user_id, subscription_id, provider, provider_payment_id, provider_checkout_id, is_recurring, billing_reason, amount_cents, currency, status,
           description, captured_at, invoice_number, period_start, created_at, updated_at)
         values ($1, $2, 'stripe', $3, '', true, $4, $5, $6, 'succeeded', $7, $8, nextval('invoice_number_seq'), $9, $8, $8) on conflict do nothing`,
        [sub.user_id, sub.id, obj.id, obj.billing_reason ?? 'subscription_cycle', obj.amount_paid ?? sub.price_cents, String(obj.currency ?? sub.currency).toUpperCase(), await planPaymentDescription(sub), now, start],
      );
      await queueChargeReceipt(deps, q, 'stripe', obj.id);
      await q.query("update subscriptions set status = 'active', failed_attempts = 0, current_period_start = $2, current_period_end = $3, updated_at = now() where id = $1", [sub.id, start, end]);
      return;
    }
    case 'invoice.payment_failed': {
      const subId = invoiceSubscriptionId(obj);
      if (!subId) return;
      const [sub] = await q.query("select * from subscriptions where provider = 'stripe' and provider_subscription_id = $1 for update", [subId]);
      if (!sub) return;
      const now = deps.clock.now();
      const code = obj.last_finalization_error?.code ?? obj.payment_intent?.last_payment_error?.decline_code ?? 'card_declined';
      await q.query(
        `insert into payments (user_id, subscription_id, provider, provider_payment_id, provider_checkout_id, is_recurring, billing_reason, amount_cents, currency, status,
           failure_code, failed_at, description, created_at, updated_at)
         values ($1, $2, 'stripe', $3, '', true, $4, $5, $6, 'failed', $7, $8, $9, $8, $8) on conflict do nothing`,
        [sub.user_id, sub.id, `${obj.id}:attempt_${obj.attempt_count ?? 1}`, obj.billing_reason ?? 'subscription_cycle', obj.amount_due ?? sub.price_cents, String(obj.currency ?? sub.currency).toUpperCase(), code, now, await planPaymentDescription(sub)],
      );
      await q.query("update subscriptions set status = 'past_due', failed_attempts = failed_attempts + 1, updated_at = now() where id = $1", [sub.id]);
      return;
    }
    case 'charge.refunded': {
      const keys = [idOf(obj.payment_intent), idOf(obj.invoice), obj.id].filter(Boolean);
      const [p] = await q.query("select * from payments where provider = 'stripe' and provider_payment_id = any($1::text[]) for update", [keys]);
      if (!p) return;
      if (typeof obj.amount_refunded === 'number' && obj.amount_refunded <= p.refunded_amount_cents) return;
      const latest = obj.refunds?.data?.[0];
      await applyRefund(q, p, {
        id: latest?.id ?? `${obj.id}:${obj.amount_refunded}`,
        amountCents: obj.amount_refunded - p.refunded_amount_cents,
        totalRefundedCents: obj.amount_refunded,
        status: 'succeeded',
        reason: latest?.reason ?? '',
        at: deps.clock.now(),
      });
      await queueRefundReceipt(deps, q, p.id, { id: latest?.id ?? `${obj.id}:${obj.amount_refunded}`, amountCents: obj.amount_refunded - p.refunded_amount_cents, at: deps.clock.now() });
      return;
    }
    case 'customer.subscription.updated':
    case 'customer.subscription.deleted': {
      const item = obj.items?.data?.[0];
      const start = fromUnix(obj.current_period_start ?? item?.current_period_start);
      const end = fromUnix(obj.current_period_end ?? item?.current_period_end);
      const status = event.type === 'customer.subscription.deleted' ? 'canceled' : (STATUS_MAP[obj.status] ?? 'active');
      await q.query(
        `update subscriptions set status = $2, cancel_at_period_end = coalesce($3, cancel_at_period_end),
           current_period_start = coalesce($4, current_period_start), current_period_end = coalesce($5, current_period_end),
           canceled_at = case when $2 = 'canceled' then coalesce(canceled_at, $6, now()) else canceled_at end, updated_at = now()
         where provider = 'stripe' and provider_subscription_id = $1`,
        [obj.id, status, typeof obj.cancel_at_period_end === 'boolean' ? obj.cancel_at_period_end : null, start, end, fromUnix(obj.canceled_at)],
      );
      return;
    }
    default:
      return;
  }
}

export function registerStripeWebhook(app: ZodApp, deps: Deps) {
  app.register(async (scope) => {
    // Raw bytes for signature verification; only inside this plugin.
    scope.removeContentTypeParser(['application/json', 'text/plain']);
    scope.addContentTypeParser(['application/json', 'text/plain', 'application/octet-stream'], { parseAs: 'buffer', bodyLimit: 1024 * 1024 }, (_req, body, done) => done(null, body));
    scope.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: 1024 * 1024 }, (_req, body, done) => done(null, body));
    scope.post(
      '/v1/webhooks/stripe/',
      {
        schema: {
          tags: ['billing'],
          summary: 'Stripe webhook',
          description:
            'Stripe events, verified with the Stripe-Signature header on the raw body (STRIPE_WEBHOOK_SECRET). Handled: checkout.session.completed, invoice.paid, invoice.payment_failed, charge.refunded, customer.subscription.updated and .deleted. Each event id is processed once (a redelivery answers 200 with duplicate true).',
          security: [],
          response: {
            200: z.object({ received: z.literal(true), duplicate: z.boolean() }),
            400: DetailCodeSchema,
            404: DetailCodeSchema,
          },
        },
      },
      async (request) => {
        if (deps.config.PAYMENT_PROVIDER !== 'stripe' || !deps.config.STRIPE_WEBHOOK_SECRET) throw detailCode(404, 'not_found', 'Not found.');
        const sig = request.headers['stripe-signature'];
        const raw = request.body as Buffer | undefined;
        if (typeof sig !== 'string' || !Buffer.isBuffer(raw)) throw detailCode(400, 'invalid_signature', 'Missing Stripe-Signature header or body.');
        let event: any;
        try {
          event = Stripe.webhooks.constructEvent(raw, sig, deps.config.STRIPE_WEBHOOK_SECRET);
        } catch {
          throw detailCode(400, 'invalid_signature', 'The webhook signature does not verify.');
        }
        const duplicate = await deps.db.tx(async (q) => {
          const [fresh] = await q.query("insert into webhook_events (provider, event_id, type) values ('stripe', $1, $2) on conflict do nothing returning event_id", [event.id, event.type]);
          if (!fresh) return true;
          await handle(deps, q, event);
          return false;
        });
        return { received: true as const, duplicate };
      },
    );
  });
}
