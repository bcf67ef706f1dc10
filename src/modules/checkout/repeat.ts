// The patient's repeat order (docs/prescriptions.md, "Repeats"; docs/billing.md, "Repeat supplies"):
// a checkout session of kind `repeat_supply` for one supply of a prescription's medicine, at the
// catalogue's supply price. Fulfilment decides whether a repeat may be ordered (and opens the order
// when the finalisation records the payment); this module takes the money.
import type { Deps } from '../../deps.ts';
import { providerFor } from '../../payment-providers/index.ts';
import { repeatSupplyOf } from '../fulfilment/index.ts';
import { expireOpenSessionsOfPrescription, insertSession, lockAccount } from './repository.ts';
import { safeUrl } from './service.ts';

export interface RepeatCheckoutInput {
  success_url?: string;
  cancel_url?: string;
}

export interface RepeatCheckoutResult {
  kind: 'repeat_supply';
  prescription_id: string;
  checkout_url: string;
  session_id: string;
  provider: string;
  treatment_id: string;
  dosage: string;
  amount_cents: number;
  currency: string;
  supply_days: number | null;
  repeats_left: number;
  expires_at: string;
}

/**
 * POST /v1/users/prescriptions/{id}/repeat-orders/: the provider page paying one repeat supply.
 * Refusals are fulfilment's (`repeatSupplyOf`): 404 for a prescription that is not the caller's,
 * 409 prescription_cancelled / prescription_expired / repeat_not_available / repeat_order_open /
 * already_dispensed / repeat_too_early. A newer checkout replaces the caller's older open one of the
 * same prescription (under the prescription's row lock), so only one can be paid; the finalisation
 * checks again and refunds a payment that could no longer open a repeat.
 */
export async function startRepeatCheckout(deps: Deps, user: { id: string; email: string }, prescriptionId: string, input: RepeatCheckoutInput): Promise<RepeatCheckoutResult> {
  const successUrl = safeUrl(deps, 'success_url', input.success_url);
  const cancelUrl = safeUrl(deps, 'cancel_url', input.cancel_url);
  const supply = await repeatSupplyOf(deps.db, user.id, prescriptionId, deps.clock.now(), false);
  const provider = providerFor(deps);
  const base = deps.config.PUBLIC_BASE_URL;
  const successTemplate = successUrl ?? `${base}/checkout/complete/?session_id={CHECKOUT_SESSION_ID}`;
  const cancelTemplate = cancelUrl ?? `${base}/checkout/cancelled/?session_id={CHECKOUT_SESSION_ID}`;
  const product = `${supply.treatmentName}${supply.dosage ? ` ${supply.dosage}` : ''}`;
  const created = await provider.createCheckoutSession({
    userId: user.id,
    email: user.email,
    plan: 'one_off',
    currency: supply.currency,
    amountCents: supply.amountCents,
    cycleDays: null,
    lineItems: [{ name: `Repeat supply of your prescription: ${product}`, description: supply.supplyDays ? `${supply.supplyDays}-day supply, without a new consultation` : 'One supply, without a new consultation', amount_cents: supply.amountCents, quantity: 1 }],
    successUrl: successTemplate,
    cancelUrl: cancelTemplate,
    metadata: { kind: 'repeat_supply', prescription_id: supply.prescriptionId, category: supply.category, treatment_id: supply.treatmentId, dosage: supply.dosage },
  });
  const fill = (u: string) => u.replaceAll('{CHECKOUT_SESSION_ID}', created.id);
  const older = await deps.db.tx(async (q) => {
    await lockAccount(q, user.id);
    const now = deps.clock.now();
    // Checked again under the prescription's lock: an order opened meanwhile refuses this one.
    const locked = await repeatSupplyOf(q, user.id, prescriptionId, now, true);
    const replaced = await expireOpenSessionsOfPrescription(q, user.id, prescriptionId);
    await insertSession(q, {
      id: created.id,
      user_id: user.id,
      provider: provider.name,
      kind: 'repeat_supply',
      prescription_id: locked.prescriptionId,
      category: locked.category,
      plan: 'one_off',
      treatment_id: locked.treatmentId,
      treatment_name: locked.treatmentName,
      dosage: locked.dosage,
      submission_id: null,
      amount_cents: supply.amountCents,
      currency: supply.currency,
      status: 'open',
      success_url: fill(successTemplate),
      cancel_url: fill(cancelTemplate),
      expires_at: created.expiresAt,
      checkout_url: created.url,
      cycle_days: null,
      supply_days: locked.supplyDays,
      collection_pharmacy_id: null,
      created_at: now,
      updated_at: now,
    });
    return { replaced, repeatsLeft: locked.repeatsLeft };
  });
  for (const s of older.replaced) {
    await providerFor(deps, s.provider)
      .expireSession?.(s.id)
      .catch((err: unknown) => deps.log.warn({ err, sessionId: s.id }, 'could not expire a replaced repeat checkout session at the provider'));
  }
  return {
    kind: 'repeat_supply',
    prescription_id: supply.prescriptionId,
    checkout_url: created.url,
    session_id: created.id,
    provider: provider.name,
    treatment_id: supply.treatmentId,
    dosage: supply.dosage,
    amount_cents: supply.amountCents,
    currency: supply.currency,
    supply_days: supply.supplyDays,
    repeats_left: older.repeatsLeft,
    expires_at: created.expiresAt.toISOString(),
  };
}
