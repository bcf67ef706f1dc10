// The payment provider interface. Two implementations: `sandbox` (built in, default) and `stripe`
// (the official SDK). The billing module talks only to this interface; provider state that must
// survive a restart lives in the database (checkout_sessions, payments, subscriptions).
import type { Queryable } from '../db/index.ts';

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
  createCheckoutSession(q: Queryable, req: CheckoutRequest): Promise<CreatedCheckout>;
  /** Current state, or null when the provider does not know the session. */
  retrieveSession(q: Queryable, sessionId: string): Promise<SessionState | null>;
  chargeRenewal(charge: RenewalCharge): Promise<ChargeResult>;
  refund(input: { providerPaymentId: string; amountCents: number; idempotencyKey: string }): Promise<RefundResult>;
  /** Ends a plan the provider bills itself (Stripe), e.g. one opened by a duplicate checkout. */
  cancelSubscription?(providerSubscriptionId: string): Promise<void>;
  /** Closes an open checkout page so it can no longer be paid (a newer checkout replaced it). */
  expireSession?(sessionId: string): Promise<void>;
  /** A link where the patient manages the payment method (Stripe billing portal). */
  billingPortalUrl(input: { userId: string; providerCustomerId: string | null; returnUrl: string }): Promise<string | null>;
}
