// The patient orders a repeat of a prescription (docs/prescriptions.md, "Repeats"): whether one may
// be ordered now and at what price, and the order a paid repeat checkout opens. The checkout module
// takes the payment and calls these inside its transactions; fulfilment moves no money.
import type { Queryable } from '../../db/index.ts';
import { ApiError, fail, notFound } from '../../http/errors.ts';
import { supplyPriceCents } from './products.ts';
import { nextDispensingFrom } from './repeats.ts';
import { dispensedOrdersOf, insertRepeatOrder, latestOrderOfPrescriptionOf, openOrderOfPrescriptionOf, prescriptionForRepeatOf } from './repeat-orders.repository.ts';
import { lastDispensedInChainOf } from './signed.repository.ts';

export interface RepeatSupply {
  prescriptionId: string;
  consultationId: string;
  category: string;
  treatmentId: string;
  treatmentName: string;
  dosage: string;
  supplyDays: number | null;
  amountCents: number;
  currency: 'EUR';
  repeatsLeft: number;
}

/**
 * What one repeat supply of the account's prescription costs, if one may be ordered now; else the
 * refusal, in this order: 404 (no such prescription of this account: another account's is the same
 * 404); 409 `prescription_cancelled`; 409 `prescription_expired` (past `valid_until`); 409
 * `repeat_not_available` (no repeats stated, a plan's prescription, or no supply price);
 * 409 `repeat_order_open` {order_id} (a supply of it still waits for the pharmacy); 409
 * `already_dispensed` (1 + repeats supplies used); 409 `repeat_too_early` {earliest_at}. With
 * `lock` the prescription row is locked (inside the caller's transaction): checkouts and
 * finalisations of one prescription queue on it.
 */
export async function repeatSupplyOf(q: Queryable, userId: string, prescriptionId: string, now: Date, lock: boolean): Promise<RepeatSupply> {
  const rx = await prescriptionForRepeatOf(q, userId, prescriptionId, lock);
  if (!rx) throw notFound();
  if (rx.status === 'cancelled') throw fail('prescription_cancelled');
  if (rx.valid_until && new Date(rx.valid_until).getTime() <= now.getTime()) {
    throw fail('prescription_expired', { message: `This prescription was valid until ${new Date(rx.valid_until).toISOString()}: a new consultation is needed.`, extra: { valid_until: new Date(rx.valid_until).toISOString() } });
  }
  const price = supplyPriceCents(rx.treatment_id);
  // A plan's prescription states no repeats (its renewals supply it); checked here as well, since
  // the plan is what the consultation was paid with, not what the prescription says.
  if (rx.repeats === 0 || rx.plan !== 'one_off' || rx.subscription_id !== null || price === null) throw fail('repeat_not_available');
  const open = await openOrderOfPrescriptionOf(q, userId, rx.id);
  if (open) throw fail('repeat_order_open', { extra: { order_id: open } });
  const used = await dispensedOrdersOf(q, userId, rx.id);
  if (used >= 1 + rx.repeats) throw fail('already_dispensed');
  const earliest = nextDispensingFrom(await lastDispensedInChainOf(q, userId, rx.id), rx.repeat_interval_days);
  if (earliest && now.getTime() < earliest.getTime()) {
    throw fail('repeat_too_early', { message: `The next supply of this prescription can be ordered from ${earliest.toISOString()}.`, extra: { earliest_at: earliest.toISOString() } });
  }
  return {
    prescriptionId: rx.id,
    consultationId: rx.consultation_id,
    category: rx.category,
    treatmentId: rx.treatment_id,
    treatmentName: rx.treatment_name,
    dosage: rx.dosage,
    supplyDays: rx.supply_days,
    amountCents: price,
    currency: 'EUR',
    repeatsLeft: 1 + rx.repeats - used,
  };
}

/** The refusal of `repeatSupplyOf` as a value (null: a repeat may be ordered): for the finalisation, which refunds instead of failing. */
export async function repeatRefusalOf(q: Queryable, userId: string, prescriptionId: string, now: Date): Promise<{ supply: RepeatSupply; refusal: null } | { supply: null; refusal: ApiError }> {
  try {
    return { supply: await repeatSupplyOf(q, userId, prescriptionId, now, true), refusal: null };
  } catch (err) {
    if (err instanceof ApiError) return { supply: null, refusal: err };
    throw err;
  }
}

/**
 * Opens the order of a paid repeat (inside the finalisation's transaction, after `repeatSupplyOf`
 * with the lock): the prescription's item, shipped where its latest supply went (or collected at the
 * same partner pharmacy). Unique per checkout session and one open repeat order per prescription
 * (migration 1290).
 */
export async function createRepeatOrder(q: Queryable, input: { userId: string; supply: RepeatSupply; checkoutSessionId: string; at: Date }): Promise<{ id: string }> {
  const last = await latestOrderOfPrescriptionOf(q, input.userId, input.supply.prescriptionId);
  return insertRepeatOrder(q, {
    userId: input.userId,
    consultationId: input.supply.consultationId,
    prescriptionId: input.supply.prescriptionId,
    checkoutSessionId: input.checkoutSessionId,
    items: last?.items ?? [{ treatment_id: input.supply.treatmentId, name: input.supply.treatmentName, dosage: input.supply.dosage, quantity: 1, supply_days: input.supply.supplyDays, instructions: '' }],
    shippingAddress: last?.shipping_address ?? null,
    collectionPharmacyId: last?.collection_pharmacy_id ?? null,
    at: input.at,
  });
}
