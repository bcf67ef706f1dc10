// The Stripe provider (official SDK). Checkout Sessions in `payment` mode (one-off) or
// `subscription` mode (plans); `client_reference_id` binds the session to the account. Stripe bills
// plans itself: renewals and failures arrive as webhooks (stripe-webhook.ts). STRIPE_API_HOST/PORT/
// PROTOCOL point the SDK at another server (the tests run a local fake of the HTTP API).
import Stripe from 'stripe';
import type { Config } from '../config.ts';
import type { Queryable } from '../db/index.ts';
import type { ChargeResult, CheckoutRequest, CreatedCheckout, PaymentProvider, RefundResult, SessionState } from './types.ts';

export function stripeClient(config: Config): Stripe {
  if (!config.STRIPE_SECRET_KEY) throw new Error('PAYMENT_PROVIDER=stripe needs STRIPE_SECRET_KEY');
  return new Stripe(config.STRIPE_SECRET_KEY, {
    host: config.STRIPE_API_HOST,
    port: config.STRIPE_API_PORT,
    protocol: config.STRIPE_API_PROTOCOL,
    maxNetworkRetries: 2,
    timeout: 20_000,
    appInfo: { name: 'patient-treatment-service' },
  });
}

const idOf = (v: unknown): string | null => (typeof v === 'string' ? v : v && typeof v === 'object' && typeof (v as any).id === 'string' ? (v as any).id : null);

/** Maps a Checkout Session object (from the API or a webhook) to our session state. */
export function stripeSessionState(s: any): SessionState {
  const paid = s.status === 'complete' && (s.payment_status === 'paid' || s.payment_status === 'no_payment_required');
  const status: SessionState['status'] = paid ? 'paid' : s.status === 'expired' ? 'expired' : 'open';
  const pi = s.payment_intent && typeof s.payment_intent === 'object' ? s.payment_intent : null;
  const card = pi?.latest_charge?.payment_method_details?.card ?? null;
  return {
    id: s.id,
    status,
    clientReferenceId: s.client_reference_id ?? null,
    amountCents: typeof s.amount_total === 'number' ? s.amount_total : null,
    providerPaymentId: idOf(s.payment_intent) ?? idOf(s.invoice) ?? (paid ? s.id : null),
    providerSubscriptionId: idOf(s.subscription),
    providerCustomerId: idOf(s.customer),
    cardBrand: card?.brand ?? null,
    cardLast4: card?.last4 ?? null,
    declineCode: null,
  };
}

export function stripeProvider(config: Config): PaymentProvider {
  const stripe = stripeClient(config);
  return {
    name: 'stripe',
    async createCheckoutSession(_q: Queryable, req: CheckoutRequest): Promise<CreatedCheckout> {
      const session = await stripe.checkout.sessions.create({
        mode: req.plan === 'subscription' ? 'subscription' : 'payment',
        client_reference_id: req.userId,
        customer_email: req.email,
        success_url: req.successUrl,
        cancel_url: req.cancelUrl,
        metadata: { ...req.metadata, user_id: req.userId },
        ...(req.plan === 'subscription' ? { subscription_data: { metadata: { ...req.metadata, user_id: req.userId } } } : { payment_intent_data: { metadata: { ...req.metadata, user_id: req.userId } } }),
        line_items: req.lineItems.map((item) => ({
          quantity: item.quantity,
          price_data: {
            currency: req.currency.toLowerCase(),
            unit_amount: item.amount_cents,
            product_data: { name: item.name, description: item.description || undefined },
            ...(req.plan === 'subscription' ? { recurring: { interval: 'day' as const, interval_count: req.cycleDays ?? 28 } } : {}),
          },
        })),
      });
      if (!session.url) throw new Error('Stripe returned a checkout session without a url');
      const expiresAt = session.expires_at ? new Date(session.expires_at * 1000) : new Date(Date.now() + 24 * 3600 * 1000);
      return { id: session.id, url: session.url, expiresAt };
    },
    async retrieveSession(_q: Queryable, sessionId: string): Promise<SessionState | null> {
      try {
        const s = await stripe.checkout.sessions.retrieve(sessionId, { expand: ['payment_intent.latest_charge'] });
        return stripeSessionState(s);
      } catch (err: any) {
        if (err?.statusCode === 404 || err?.code === 'resource_missing') return null;
        throw err;
      }
    },
    async chargeRenewal(): Promise<ChargeResult> {
      // Stripe charges subscriptions on its own schedule; invoice.paid / invoice.payment_failed
      // webhooks record the outcome.
      return { ok: 'provider_managed' };
    },
    async refund({ providerPaymentId, amountCents, idempotencyKey }): Promise<RefundResult> {
      let target: { charge: string } | { payment_intent: string };
      if (providerPaymentId.startsWith('ch_')) target = { charge: providerPaymentId };
      else if (providerPaymentId.startsWith('in_')) {
        // A plan's payment is recorded by its invoice id: refund the invoice's payment intent.
        const inv: any = await stripe.invoices.retrieve(providerPaymentId, { expand: ['payments'] });
        const pi = idOf(inv.payment_intent) ?? idOf(inv.payments?.data?.find((p: any) => p.status === 'paid')?.payment?.payment_intent ?? inv.payments?.data?.[0]?.payment?.payment_intent);
        const charge = idOf(inv.charge);
        if (pi) target = { payment_intent: pi };
        else if (charge) target = { charge };
        else throw new Error(`invoice ${providerPaymentId} has no payment to refund`);
      } else target = { payment_intent: providerPaymentId };
      const refund = await stripe.refunds.create({ ...target, amount: amountCents }, { idempotencyKey });
      const status = refund.status === 'succeeded' ? 'succeeded' : refund.status === 'failed' || refund.status === 'canceled' ? 'failed' : 'pending';
      return { id: refund.id, status };
    },
    async cancelSubscription(providerSubscriptionId: string): Promise<void> {
      await stripe.subscriptions.cancel(providerSubscriptionId);
    },
    async expireSession(sessionId: string): Promise<void> {
      await stripe.checkout.sessions.expire(sessionId);
    },
    async billingPortalUrl({ providerCustomerId, returnUrl }): Promise<string | null> {
      if (!providerCustomerId) return null;
      const portal = await stripe.billingPortal.sessions.create({ customer: providerCustomerId, return_url: returnUrl });
      return portal.url;
    },
  };
}
