// The Stripe provider (official SDK). Checkout Sessions in `payment` mode (one-off) or
// `subscription` mode (plans); `client_reference_id` binds the session to the account. Stripe bills
// plans itself: renewals and failures arrive as webhooks (stripe-webhook.ts). STRIPE_API_HOST/PORT/
// PROTOCOL point the SDK at another server (the tests run a local fake of the HTTP API).
import { createRequire } from 'node:module';
import type Stripe from 'stripe';
import type { Config } from '../config.ts';
import type { ChargeResult, CheckoutRequest, CreatedCheckout, PaymentProvider, RefundResult, SessionState, StoredSession } from './types.ts';

// The SDK (~200 modules, a good part of the server's start time) is loaded when first needed: with
// PAYMENT_PROVIDER=stripe when the provider is made, else by the first Stripe webhook.
const require = createRequire(import.meta.url);
export const loadStripe = (): typeof Stripe => require('stripe') as typeof Stripe;

export function stripeClient(config: Config): Stripe {
  if (!config.STRIPE_SECRET_KEY) throw new Error('PAYMENT_PROVIDER=stripe needs STRIPE_SECRET_KEY');
  const StripeSdk = loadStripe();
  return new StripeSdk(config.STRIPE_SECRET_KEY, {
    host: config.STRIPE_API_HOST,
    port: config.STRIPE_API_PORT,
    protocol: config.STRIPE_API_PROTOCOL,
    maxNetworkRetries: 2,
    timeout: 20_000,
    appInfo: { name: 'patient-treatment-service' },
  });
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
/** An expandable field: the id string, or the expanded object's id. */
const idOf = (v: unknown): string | null => str(v) ?? (isObj(v) ? str(v.id) : null);

/** Maps a Checkout Session object (from the API or a webhook) to our session state. */
export function stripeSessionState(s: Obj): SessionState {
  const paid = s.status === 'complete' && (s.payment_status === 'paid' || s.payment_status === 'no_payment_required');
  const status: SessionState['status'] = paid ? 'paid' : s.status === 'expired' ? 'expired' : 'open';
  const pi = isObj(s.payment_intent) ? s.payment_intent : null;
  const charge = pi && isObj(pi.latest_charge) ? pi.latest_charge : null;
  const details = charge && isObj(charge.payment_method_details) ? charge.payment_method_details : null;
  const card = details && isObj(details.card) ? details.card : null;
  const id = str(s.id) ?? '';
  return {
    id,
    status,
    clientReferenceId: str(s.client_reference_id),
    amountCents: typeof s.amount_total === 'number' ? s.amount_total : null,
    providerPaymentId: idOf(s.payment_intent) ?? idOf(s.invoice) ?? (paid ? id : null),
    providerSubscriptionId: idOf(s.subscription),
    providerCustomerId: idOf(s.customer),
    cardBrand: str(card?.brand),
    cardLast4: str(card?.last4),
    cardFingerprint: str(card?.fingerprint),
    declineCode: null,
  };
}

export function stripeProvider(config: Config): PaymentProvider {
  const stripe = stripeClient(config);
  return {
    name: 'stripe',
    async createCheckoutSession(req: CheckoutRequest): Promise<CreatedCheckout> {
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
    async retrieveSession(stored: StoredSession): Promise<SessionState | null> {
      try {
        const s: unknown = await stripe.checkout.sessions.retrieve(stored.id, { expand: ['payment_intent.latest_charge'] });
        return stripeSessionState(isObj(s) ? s : {});
      } catch (err: unknown) {
        if (isObj(err) && (err.statusCode === 404 || err.code === 'resource_missing')) return null;
        throw err;
      }
    },
    chargeRenewal(): Promise<ChargeResult> {
      // Stripe charges subscriptions on its own schedule; invoice.paid / invoice.payment_failed
      // webhooks record the outcome.
      return Promise.resolve({ ok: 'provider_managed' });
    },
    async refund({ providerPaymentId, amountCents, idempotencyKey }): Promise<RefundResult> {
      let target: { charge: string } | { payment_intent: string };
      if (providerPaymentId.startsWith('ch_')) target = { charge: providerPaymentId };
      else if (providerPaymentId.startsWith('in_')) {
        // A plan's payment is recorded by its invoice id: refund the invoice's payment intent.
        const fetched: unknown = await stripe.invoices.retrieve(providerPaymentId, { expand: ['payments'] });
        const inv = isObj(fetched) ? fetched : {};
        // Older API versions name the intent on the invoice; newer ones under payments.data[].payment.
        const payments = isObj(inv.payments) && Array.isArray(inv.payments.data) ? inv.payments.data.filter(isObj) : [];
        const paidEntry = payments.find((p) => p.status === 'paid') ?? payments[0];
        const entryPayment = paidEntry && isObj(paidEntry.payment) ? paidEntry.payment : null;
        const pi = idOf(inv.payment_intent) ?? idOf(entryPayment?.payment_intent);
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
    async changePlanPrice({ providerSubscriptionId, amountCents, currency, cycleDays, idempotencyKey }): Promise<void> {
      // A subscription item's price_data needs the product: the one the checkout created for the plan.
      const sub = await stripe.subscriptions.retrieve(providerSubscriptionId);
      const item = sub.items.data[0];
      const product = item ? idOf(item.price.product) : null;
      if (!item || !product) throw new Error(`subscription ${providerSubscriptionId} has no priced item`);
      await stripe.subscriptions.update(
        providerSubscriptionId,
        {
          items: [{ id: item.id, price_data: { currency: currency.toLowerCase(), product, unit_amount: amountCents, recurring: { interval: 'day', interval_count: cycleDays } } }],
          proration_behavior: 'none',
        },
        { idempotencyKey },
      );
    },
    async holdInvoice(invoiceId: string): Promise<void> {
      // A draft with auto_advance off is never finalised or charged by Stripe on its own.
      await stripe.invoices.update(invoiceId, { auto_advance: false });
    },
    async releaseInvoice(invoiceId: string): Promise<void> {
      const inv = await stripe.invoices.retrieve(invoiceId);
      if (inv.status === 'draft') await stripe.invoices.finalizeInvoice(invoiceId, { auto_advance: true });
      if (inv.status === 'draft' || inv.status === 'open') {
        // A declined card is Stripe's invoice.payment_failed webhook (the plan becomes past_due), not an error here.
        await stripe.invoices.pay(invoiceId).catch((err: unknown) => {
          if (!(isObj(err) && err.type === 'StripeCardError')) throw err;
        });
      }
    },
    async discardInvoice(invoiceId: string): Promise<void> {
      const inv = await stripe.invoices.retrieve(invoiceId);
      if (inv.status === 'draft') await stripe.invoices.del(invoiceId);
      else if (inv.status === 'open') await stripe.invoices.voidInvoice(invoiceId);
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
