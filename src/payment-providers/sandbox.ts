// The built-in sandbox provider: no network, no keys. Its checkout sessions are this service's own
// checkout_sessions rows (handed in as StoredSession); the hosted page (sandbox-pages.ts) marks
// them paid or declined through the checkout module.
//
// Test cards (documented in docs/billing.md, same numbers as Stripe's test cards):
//   4242 4242 4242 4242  succeeds (the default on the page)
//   4000 0000 0000 0002  declined at checkout (card_declined)
//   4000 0000 0000 9995  declined at checkout (insufficient_funds)
//   4000 0000 0000 0341  succeeds at checkout, every later recurring charge fails (card_declined)
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Clock } from '../lib/clock.ts';
import type { ChargeResult, CreatedCheckout, PaymentProvider, RefundResult, RenewalCharge, SessionState, StoredSession } from './types.ts';

export const SANDBOX_SESSION_TTL_MS = 24 * 3600 * 1000;

export const SANDBOX_CARDS: Record<string, { outcome: 'succeeds' | 'declined' | 'renewals_fail'; brand: string; declineCode?: string }> = {
  '4242424242424242': { outcome: 'succeeds', brand: 'visa' },
  '5555555555554444': { outcome: 'succeeds', brand: 'mastercard' },
  '4000000000000002': { outcome: 'declined', brand: 'visa', declineCode: 'card_declined' },
  '4000000000009995': { outcome: 'declined', brand: 'visa', declineCode: 'insufficient_funds' },
  '4000000000000341': { outcome: 'renewals_fail', brand: 'visa' },
};

/** Last4 of the card whose recurring charges fail. */
export const RENEWAL_FAIL_LAST4 = '0341';

export const newSandboxId = (prefix: string) => `${prefix}_${randomBytes(16).toString('hex')}`;

/**
 * A 1-hour capability token for the sandbox billing portal (what Stripe's portal sessions are):
 * `<account id hex>.<expiry seconds>.<HMAC-SHA256, 128 bits>`, short enough for a path segment.
 */
export function sandboxPortalToken(key: Uint8Array, clock: Clock, userId: string): string {
  const body = `${userId.replace(/-/g, '')}.${Math.floor(clock.now().getTime() / 1000) + 3600}`;
  return `${body}.${createHmac('sha256', key).update(`sandbox_portal:${body}`).digest('base64url').slice(0, 22)}`;
}

/** The account id of a valid, unexpired portal token, else null. */
export function sandboxPortalAccount(key: Uint8Array, clock: Clock, token: string): string | null {
  const m = /^([0-9a-f]{32})\.(\d{1,12})\.([A-Za-z0-9_-]{22})$/.exec(token);
  const [, h, expiry, mac] = m ?? [];
  if (h === undefined || expiry === undefined || mac === undefined) return null;
  const expected = createHmac('sha256', key).update(`sandbox_portal:${h}.${expiry}`).digest('base64url').slice(0, 22);
  if (!timingSafeEqual(Buffer.from(expected), Buffer.from(mac)) || Number(expiry) * 1000 <= clock.now().getTime()) return null;
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

export function sandboxProvider(baseUrl: string, clock: Clock, portalKey?: Uint8Array): PaymentProvider {
  return {
    name: 'sandbox',
    createCheckoutSession(): Promise<CreatedCheckout> {
      const id = newSandboxId('cs_sandbox');
      return Promise.resolve({ id, url: `${baseUrl}/sandbox/checkout/${id}/`, expiresAt: new Date(clock.now().getTime() + SANDBOX_SESSION_TTL_MS) });
    },
    retrieveSession(row: StoredSession): Promise<SessionState | null> {
      let status: SessionState['status'] = row.status === 'paid' || row.status === 'declined' || row.status === 'expired' ? row.status : 'open';
      if (status === 'open' && row.expiresAt.getTime() <= clock.now().getTime()) status = 'expired';
      return Promise.resolve({
        id: row.id,
        status,
        clientReferenceId: row.userId,
        amountCents: row.amountCents,
        providerPaymentId: row.providerPaymentId,
        providerSubscriptionId: row.providerSubscriptionId,
        cardBrand: row.cardBrand,
        cardLast4: row.cardLast4,
        cardFingerprint: row.cardFingerprint ?? null,
        declineCode: row.declineCode,
      });
    },
    chargeRenewal(charge: RenewalCharge): Promise<ChargeResult> {
      const providerPaymentId = `py_sandbox_${charge.idempotencyKey}`;
      if (charge.cardLast4 === RENEWAL_FAIL_LAST4) return Promise.resolve({ ok: false, providerPaymentId, failureCode: 'card_declined' });
      return Promise.resolve({ ok: true, providerPaymentId });
    },
    refund(): Promise<RefundResult> {
      return Promise.resolve({ id: newSandboxId('re_sandbox'), status: 'succeeded' });
    },
    billingPortalUrl({ userId, returnUrl }): Promise<string | null> {
      if (!portalKey) return Promise.resolve(null);
      return Promise.resolve(`${baseUrl}/sandbox/portal/${sandboxPortalToken(portalKey, clock, userId)}/?return_url=${encodeURIComponent(returnUrl)}`);
    },
  };
}
