// The payment provider interface. Two implementations: `sandbox` (built in, default) and `stripe`
// (the official SDK). Adapters hold no SQL and know no module: the checkout and payments modules
// talk to this interface, and provider state that must survive a restart lives in their tables
// (checkout_sessions, payments, subscriptions), handed to the adapter when it needs it.

export type ProviderName = 'sandbox' | 'stripe';
export type CheckoutPlan = 'one_off' | 'subscription';

export interface LineItem {
  name: string;
  description: string;
  amount_cents: number;
  quantity: number;
}

export interface CheckoutRequest {
  /** Our account id; bound to the session (Stripe: client_reference_id). */
  userId: string;
  email: string;
  plan: CheckoutPlan;
  currency: string;
  amountCents: number;
  lineItems: LineItem[];
  /** Billing cycle of a plan, in days. */
  cycleDays: number | null;
  successUrl: string;
  cancelUrl: string;
  metadata: Record<string, string>;
}

export interface CreatedCheckout {
  id: string;
  url: string;
  expiresAt: Date;
}

export type SessionStatus = 'open' | 'paid' | 'declined' | 'expired';

/** What the provider says about a checkout session. */
export interface SessionState {
  id: string;
  status: SessionStatus;
  /** Account the session was created for (Stripe: client_reference_id). */
  clientReferenceId: string | null;
  amountCents: number | null;
  /** The provider's id of the captured payment (payment intent / invoice / sandbox charge). */
  providerPaymentId: string | null;
  providerSubscriptionId: string | null;
  /** The provider's customer (Stripe: cus_...), when it has one. */
  providerCustomerId?: string | null;
  cardBrand: string | null;
  cardLast4: string | null;
  /** Identifies the card without revealing it, where the provider gives one (self-referral checks). */
  cardFingerprint?: string | null;
  declineCode: string | null;
}

/** What this service recorded of a checkout session (checkout_sessions): the sandbox's whole truth. */
export interface StoredSession {
  id: string;
  userId: string;
  status: string;
  expiresAt: Date;
  amountCents: number;
  providerPaymentId: string | null;
  providerSubscriptionId: string | null;
  cardBrand: string | null;
  cardLast4: string | null;
  cardFingerprint?: string | null;
  declineCode: string | null;
}

export interface RenewalCharge {
  subscriptionId: string;
  providerSubscriptionId: string | null;
  amountCents: number;
  currency: string;
  cardLast4: string | null;
  /** Idempotency key: the same key never charges twice. */
  idempotencyKey: string;
}

export type ChargeResult =
  | { ok: true; providerPaymentId: string }
  | { ok: false; providerPaymentId: string; failureCode: string }
  /** The provider bills the plan itself (Stripe): the result arrives by webhook. */
  | { ok: 'provider_managed' };

export interface RefundResult {
  id: string;
  status: 'succeeded' | 'pending' | 'failed';
}

export interface PaymentProvider {
  readonly name: ProviderName;
  createCheckoutSession(req: CheckoutRequest): Promise<CreatedCheckout>;
  /** Current state, or null when the provider does not know the session. */
  retrieveSession(stored: StoredSession): Promise<SessionState | null>;
  chargeRenewal(charge: RenewalCharge): Promise<ChargeResult>;
  refund(input: { providerPaymentId: string; amountCents: number; idempotencyKey: string }): Promise<RefundResult>;
  /** Ends a plan the provider bills itself (Stripe), e.g. one opened by a duplicate checkout. */
  cancelSubscription?(providerSubscriptionId: string): Promise<void>;
  /**
   * A plan's next invoice the provider drafted (Stripe's invoice.created) is held as a draft: it is
   * not finalised or charged until `releaseInvoice` (the period's renewal was approved) or is
   * deleted by `discardInvoice` (the plan ended). Providers that do not bill plans themselves lack these.
   */
  holdInvoice?(invoiceId: string): Promise<void>;
  releaseInvoice?(invoiceId: string): Promise<void>;
  discardInvoice?(invoiceId: string): Promise<void>;
  /**
   * The price of a plan the provider bills itself, from its next invoice on: no proration, so the
   * period already invoiced keeps its price. Used only after a price-change notice (docs/compliance.md).
   */
  changePlanPrice?(input: { providerSubscriptionId: string; amountCents: number; currency: string; cycleDays: number; idempotencyKey: string }): Promise<void>;
  /** Closes an open checkout page so it can no longer be paid (a newer checkout replaced it). */
  expireSession?(sessionId: string): Promise<void>;
  /** A link where the patient manages the payment method (Stripe billing portal). */
  billingPortalUrl(input: { userId: string; providerCustomerId: string | null; returnUrl: string }): Promise<string | null>;
}

/** A provider event in this service's terms (the adapter maps the provider's own objects). */
export type ProviderEvent =
  | { kind: 'session_completed'; state: SessionState }
  | { kind: 'session_expired'; sessionId: string }
  /** The provider drafted a plan's next invoice (not yet charged). */
  | { kind: 'plan_invoice_created'; providerSubscriptionId: string; invoiceId: string; billingReason: string }
  | {
      kind: 'plan_invoice_paid';
      providerSubscriptionId: string;
      providerPaymentId: string;
      billingReason: string;
      amountCents: number | null;
      currency: string | null;
      periodStart: Date | null;
      periodEnd: Date | null;
    }
  | {
      kind: 'plan_invoice_failed';
      providerSubscriptionId: string;
      providerPaymentId: string;
      billingReason: string;
      amountCents: number | null;
      currency: string | null;
      failureCode: string;
    }
  | { kind: 'charge_refunded'; providerPaymentIds: string[]; chargeId: string; amountRefundedCents: number | null; refundId: string | null; reason: string }
  | {
      kind: 'plan_updated';
      providerSubscriptionId: string;
      status: 'active' | 'past_due' | 'paused' | 'canceled';
      cancelAtPeriodEnd: boolean | null;
      periodStart: Date | null;
      periodEnd: Date | null;
      canceledAt: Date | null;
    };

/** Where a verified webhook event goes: the checkout module records it once and applies it. */
export interface WebhookPort {
  /** Records the event id and applies the event in one transaction; true when it was already recorded. */
  receive(provider: ProviderName, eventId: string, type: string, event: ProviderEvent | null): Promise<boolean>;
}
