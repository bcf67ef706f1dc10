// POST /v1/webhooks/stripe/: Stripe events. The signature is verified on the RAW body (a
// content-type parser scoped to this plugin keeps the bytes); the event is mapped to this service's
// terms (ProviderEvent) and handed to the checkout module, which records every event id in
// webhook_events in the same transaction as its effect, so a redelivered event changes nothing.
import type Stripe from 'stripe';
import { z } from 'zod';
import type { ZodApp } from '../http/plugin.ts';
import type { Deps } from '../deps.ts';
import { DetailCodeSchema, fail } from '../http/errors.ts';
import { loadStripe, stripeSessionState } from './stripe.ts';
import type { ProviderEvent, WebhookPort } from './types.ts';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const obj = (v: unknown): Obj => (isObj(v) ? v : {});
const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
const num = (v: unknown): number | null => (typeof v === 'number' ? v : null);
/** An expandable field: the id string, or the expanded object's id. */
const idOf = (v: unknown): string | null => str(v) ?? (isObj(v) ? str(v.id) : null);
const fromUnix = (s: unknown) => (typeof s === 'number' ? new Date(s * 1000) : null);
const first = (list: unknown): Obj => {
  const data = obj(list).data;
  return Array.isArray(data) ? obj(data[0]) : {};
};

const STATUS_MAP: Record<string, 'active' | 'past_due' | 'paused' | 'canceled'> = {
  active: 'active',
  trialing: 'active',
  past_due: 'past_due',
  unpaid: 'past_due',
  incomplete: 'past_due',
  paused: 'paused',
  canceled: 'canceled',
  incomplete_expired: 'canceled',
};

function invoiceSubscriptionId(inv: Obj): string | null {
  return idOf(inv.subscription) ?? idOf(obj(obj(inv.parent).subscription_details).subscription) ?? idOf(first(inv.lines).subscription) ?? null;
}

/** The Stripe event in this service's terms; null for an event that changes nothing here. */
export function stripeEvent(type: string, o: Obj): ProviderEvent | null {
  switch (type) {
    case 'checkout.session.completed':
    case 'checkout.session.async_payment_succeeded': {
      const id = str(o.id);
      return id ? { kind: 'session_completed', state: stripeSessionState(o) } : null;
    }
    case 'checkout.session.expired': {
      const id = str(o.id);
      return id ? { kind: 'session_expired', sessionId: id } : null;
    }
    case 'invoice.created': {
      const subId = invoiceSubscriptionId(o);
      const id = str(o.id);
      // Only a plan's next period waits for its review; the first invoice is the checkout's.
      if (!subId || !id || o.billing_reason !== 'subscription_cycle' || o.status !== 'draft') return null;
      return { kind: 'plan_invoice_created', providerSubscriptionId: subId, invoiceId: id, billingReason: 'subscription_cycle' };
    }
    case 'invoice.paid': {
      const subId = invoiceSubscriptionId(o);
      const id = str(o.id);
      // The checkout finalisation records a plan's first payment.
      if (!subId || !id || o.billing_reason === 'subscription_create') return null;
      const period = obj(first(o.lines).period);
      return {
        kind: 'plan_invoice_paid',
        providerSubscriptionId: subId,
        providerPaymentId: id,
        billingReason: str(o.billing_reason) ?? 'subscription_cycle',
        amountCents: num(o.amount_paid),
        currency: str(o.currency)?.toUpperCase() ?? null,
        periodStart: fromUnix(period.start),
        periodEnd: fromUnix(period.end),
      };
    }
    case 'invoice.payment_failed': {
      const subId = invoiceSubscriptionId(o);
      const id = str(o.id);
      if (!subId || !id) return null;
      const code = str(obj(o.last_finalization_error).code) ?? str(obj(obj(o.payment_intent).last_payment_error).decline_code) ?? 'card_declined';
      return {
        kind: 'plan_invoice_failed',
        providerSubscriptionId: subId,
        providerPaymentId: `${id}:attempt_${num(o.attempt_count) ?? 1}`,
        billingReason: str(o.billing_reason) ?? 'subscription_cycle',
        amountCents: num(o.amount_due),
        currency: str(o.currency)?.toUpperCase() ?? null,
        failureCode: code,
      };
    }
    case 'charge.refunded': {
      const id = str(o.id);
      if (!id) return null;
      const latest = first(o.refunds);
      return {
        kind: 'charge_refunded',
        providerPaymentIds: [idOf(o.payment_intent), idOf(o.invoice), id].filter((k): k is string => Boolean(k)),
        chargeId: id,
        amountRefundedCents: num(o.amount_refunded),
        refundId: str(latest.id),
        reason: str(latest.reason) ?? '',
      };
    }
    case 'customer.subscription.updated':
    case 'customer.subscription.deleted': {
      const id = str(o.id);
      if (!id) return null;
      const item = first(o.items);
      return {
        kind: 'plan_updated',
        providerSubscriptionId: id,
        status: type === 'customer.subscription.deleted' ? 'canceled' : (STATUS_MAP[str(o.status) ?? ''] ?? 'active'),
        cancelAtPeriodEnd: typeof o.cancel_at_period_end === 'boolean' ? o.cancel_at_period_end : null,
        periodStart: fromUnix(o.current_period_start ?? item.current_period_start),
        periodEnd: fromUnix(o.current_period_end ?? item.current_period_end),
        canceledAt: fromUnix(o.canceled_at),
      };
    }
    default:
      return null;
  }
}

export function registerStripeWebhook(app: ZodApp, deps: Deps, port: WebhookPort): void {
  void app.register((scope) => {
    // Raw bytes for signature verification; only inside this plugin.
    scope.removeContentTypeParser(['application/json', 'text/plain']);
    scope.addContentTypeParser(['application/json', 'text/plain', 'application/octet-stream'], { parseAs: 'buffer', bodyLimit: 1024 * 1024 }, (_req, body, done) => done(null, body));
    scope.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: 1024 * 1024 }, (_req, body, done) => done(null, body));
    scope.post(
      '/v1/webhooks/stripe/',
      {
        config: {
          access: 'public',
          operation: {
            id: 'receiveStripeWebhook',
            rawBody: true,
            errors: { 400: [{ detail_code: ['invalid_signature'] }], 404: [{ detail_code: ['not_found'] }] },
            descriptions: { 200: 'The event was recorded (or had been: `duplicate`)', 404: 'The service does not use Stripe' },
          },
        },
        schema: {
          tags: ['billing'],
          summary: 'Stripe webhook',
          description:
            'Stripe events, verified with the Stripe-Signature header on the raw body (STRIPE_WEBHOOK_SECRET). Handled: checkout.session.completed, invoice.created (a plan’s next invoice is held as a draft until its renewal is approved), invoice.paid, invoice.payment_failed, charge.refunded, customer.subscription.updated and .deleted. Each event id is processed once (a redelivery answers 200 with duplicate true).',
          security: [],
          response: {
            200: z.object({ received: z.literal(true), duplicate: z.boolean() }),
            400: DetailCodeSchema,
            404: DetailCodeSchema,
          },
        },
      },
      async (request) => {
        if (deps.config.PAYMENT_PROVIDER !== 'stripe' || !deps.config.STRIPE_WEBHOOK_SECRET) throw fail('not_found');
        const sig = request.headers['stripe-signature'];
        const raw = request.body;
        if (typeof sig !== 'string' || !Buffer.isBuffer(raw)) throw fail('invalid_signature', { message: 'Missing Stripe-Signature header or body.' });
        let event: Stripe.Event;
        try {
          event = loadStripe().webhooks.constructEvent(raw, sig, deps.config.STRIPE_WEBHOOK_SECRET);
        } catch {
          throw fail('invalid_signature', { message: 'The webhook signature does not verify.' });
        }
        const o: unknown = event.data.object;
        const duplicate = await port.receive('stripe', event.id, event.type, stripeEvent(event.type, obj(o)));
        return { received: true as const, duplicate };
      },
    );
    return Promise.resolve();
  });
}
