// The pharmacy desk's moves on an order (docs/pharmacy.md). Each one locks the order row, checks the
// move against the status machine (status.ts) and updates `where status = <from>`: two pharmacists
// dispatching one order at once are serialised by the lock, and the second finds it shipped (409).
import type { Queryable } from '../../db/index.ts';
import type { Deps } from '../../deps.ts';
import { fail, notFound } from '../../http/errors.ts';
import { appLinks } from '../../mail/links.ts';
import { enqueueMail } from '../../mail/outbox.ts';
import { recordAudit } from '../audit/index.ts';
import { orderRefundedMail, orderReshippedMail, orderShippedMail, orderTooLateMail, orderUndeliverableMail } from './mail.ts';
import { deskOrder, lockOrderForPharmacy, markOrderRefundedForBackoffice, recordDispensingForPharmacy, transitionOrderForPharmacy, type DeskOrderRow } from './pharmacy.repository.ts';
import { assertDispensable, assertOrderTransition, type OrderStatus } from './status.ts';
import { notify } from '../notifications/index.ts';
import { sellerFrom } from '../../lib/pdf.ts';
import { collectionPharmacyForPharmacy, dispensingsForPharmacy, insertDispensingForPharmacy, lastDispensedInChainForPharmacy, lockPrescriptionForPharmacy, prescriptionIdOfOrderForPharmacy } from './signed.repository.ts';
import { nextDispensingFrom } from './repeats.ts';

export type LockedOrder = NonNullable<Awaited<ReturnType<typeof lockOrderForPharmacy>>>;

/**
 * The time-window re-check at dispatch, given by the caller (the questionnaires module owns the
 * rule and the arrival estimate: carrier cut-off, working days, transit to the country, a margin;
 * fulfilment does not depend on it): null when the treatment still works on arrival, else what passed
 * (recorded with the refusal).
 */
export type ArrivalCheck = (q: Queryable, order: LockedOrder, dispatchedAt: Date) => Promise<{ hours_since_submission: number; reason_codes: string[]; expected_transit_hours: number } | null>;

export const UNDELIVERABLE_TOO_LATE = 'delivery_too_late: the treatment would arrive after its time window; the patient was told to get it locally at once.';

async function locked(q: Queryable, id: string): Promise<LockedOrder> {
  const order = await lockOrderForPharmacy(q, id);
  if (!order) throw notFound();
  return order;
}

async function reread(deps: Deps, id: string): Promise<DeskOrderRow> {
  const row = await deskOrder(deps.db, id);
  if (!row) throw notFound();
  return row;
}

async function move(q: Queryable, order: LockedOrder, to: OrderStatus, set: Parameters<typeof transitionOrderForPharmacy>[4], at: Date) {
  assertOrderTransition(order.status, to);
  // The row is locked: the guard cannot miss unless the status machine and the lock disagree.
  if (!(await transitionOrderForPharmacy(q, order.id, order.status as OrderStatus, to, set, at))) throw fail('invalid_status_transition', { message: `The order is no longer "${order.status}".` });
}

/**
 * Dispense (docs/pharmacy.md, docs/prescriptions.md): records batch, expiry, who and when on the
 * order, and the dispensing of its prescription: once per order and delivery attempt (a second is 409
 * `already_dispensed`), and at most 1 + repeats orders per prescription (`already_dispensed`), each
 * new supply at least the stated interval after the last (409 `repeat_too_early` {earliest_at}); a
 * cancelled (reissued) prescription is 409 `prescription_cancelled`, one past `valid_until` 409
 * `prescription_expired`. The prescription is locked
 * before the order (the reissue's order too), so two pharmacists dispensing at once are serialised
 * and exactly one succeeds; the unique (order, attempt) backs it.
 */
export async function dispenseOrder(deps: Deps, input: { orderId: string; pharmacistId: string; batch: string; expiry: string }): Promise<DeskOrderRow> {
  await deps.db.tx(async (q) => {
    const prescriptionId = await prescriptionIdOfOrderForPharmacy(q, input.orderId);
    const rx = prescriptionId ? await lockPrescriptionForPharmacy(q, prescriptionId) : null;
    const order = await locked(q, input.orderId);
    assertDispensable(order.status);
    if (order.prescription_id !== prescriptionId) throw fail('invalid_status_transition', { message: 'The order changed prescription (a reissue) meanwhile: open it again.' });
    if (order.dispensed_at) throw fail('already_dispensed', { message: 'This order has already been dispensed.' });
    const now = deps.clock.now();
    if (rx) {
      if (rx.status === 'cancelled') throw fail('prescription_cancelled');
      // A prescription past its validity is not dispensed, neither a first supply nor a repeat.
      if (rx.valid_until && now.getTime() >= new Date(rx.valid_until).getTime()) {
        throw fail('prescription_expired', { message: `This prescription was valid until ${new Date(rx.valid_until).toISOString()}: it cannot be dispensed.`, extra: { valid_until: new Date(rx.valid_until).toISOString() } });
      }
      const done = await dispensingsForPharmacy(q, rx.id);
      // A reshipped order sends the supply already counted again: it does not use another one.
      const counted = done.some((d) => d.order_id === order.id);
      if (!counted && new Set(done.map((d) => d.order_id)).size >= 1 + rx.repeats) throw fail('already_dispensed');
      // A new supply waits for the interval the doctor stated after the last one (of this
      // prescription or of the one a reissue replaced).
      const earliest = counted ? null : nextDispensingFrom(await lastDispensedInChainForPharmacy(q, rx.id), rx.repeat_interval_days);
      if (earliest && now.getTime() < earliest.getTime()) {
        throw fail('repeat_too_early', { message: `The next dispensing of this prescription is allowed from ${earliest.toISOString()} (${rx.repeat_interval_days} days after the last one).`, extra: { earliest_at: earliest.toISOString() } });
      }
      // Where: the partner pharmacy the order is collected at, else the service's own (the seller's) pharmacy.
      const pharmacy = (await collectionPharmacyForPharmacy(q, order.id)) ?? { id: null, name: sellerFrom(deps.config).name };
      const recorded = await insertDispensingForPharmacy(q, { prescriptionId: rx.id, orderId: order.id, attempt: order.attempt, pharmacyId: pharmacy.id, pharmacyName: pharmacy.name, by: input.pharmacistId, at: now });
      if (!recorded) throw fail('already_dispensed', { message: 'This order has already been dispensed.' });
    }
    await recordDispensingForPharmacy(q, order.id, { batch: input.batch, expiry: input.expiry, by: input.pharmacistId, at: now });
  });
  return reread(deps, input.orderId);
}

export async function dispatchOrder(
  deps: Deps,
  input: { orderId: string; pharmacistId: string; carrier: string; trackingNumber: string; trackingUrl: string | null },
  arrivalCheck: ArrivalCheck,
): Promise<DeskOrderRow> {
  const outcome = await deps.db.tx(async (q) => {
    const order = await locked(q, input.orderId);
    assertOrderTransition(order.status, 'shipped');
    const now = deps.clock.now();
    const late = await arrivalCheck(q, order, now);
    if (late) {
      // Not sent: the order leaves the queue as undeliverable (the back office refunds it) and the
      // patient is told at once, in the same transaction, to get the medicine locally.
      await move(q, order, 'undeliverable', { undeliverable_reason: UNDELIVERABLE_TOO_LATE, undeliverable_at: now }, now);
      await enqueueMail(q, order.email, orderTooLateMail, order.locale, { first_name: order.first_name, link: appLinks.orders(deps.config) });
      await notify(q, { kind: 'order_undeliverable', userId: order.user_id, key: `${order.id}:${order.attempt}` });
      return { late };
    }
    await move(q, order, 'shipped', { carrier: input.carrier, tracking_number: input.trackingNumber, tracking_url: input.trackingUrl, shipped_at: now, shipped_by: input.pharmacistId }, now);
    await notify(q, { kind: 'order_dispatched', userId: order.user_id, key: `${order.id}:${order.attempt}` });
    await enqueueMail(q, order.email, orderShippedMail, order.locale, {
      first_name: order.first_name,
      link: appLinks.orders(deps.config),
      carrier: input.carrier,
      tracking_number: input.trackingNumber,
      tracking_url: input.trackingUrl,
    });
    return { late: null };
  });
  if (outcome.late) {
    throw fail('delivery_too_late', { extra: { order_status: 'undeliverable', ...outcome.late } });
  }
  return reread(deps, input.orderId);
}

export async function deliverOrder(deps: Deps, orderId: string): Promise<DeskOrderRow> {
  await deps.db.tx(async (q) => {
    const order = await locked(q, orderId);
    const now = deps.clock.now();
    await move(q, order, 'delivered', { delivered_at: now }, now);
  });
  return reread(deps, orderId);
}

export async function markOrderUndeliverable(deps: Deps, orderId: string, reason: string): Promise<DeskOrderRow> {
  await deps.db.tx(async (q) => {
    const order = await locked(q, orderId);
    const now = deps.clock.now();
    await move(q, order, 'undeliverable', { undeliverable_reason: reason, undeliverable_at: now }, now);
    await enqueueMail(q, order.email, orderUndeliverableMail, order.locale, { first_name: order.first_name, link: appLinks.orders(deps.config) });
    await notify(q, { kind: 'order_undeliverable', userId: order.user_id, key: `${order.id}:${order.attempt}` });
  });
  return reread(deps, orderId);
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** 409 unless an undeliverable order may still be reshipped (not refunded, not stopped as too late). */
function assertReshippable(order: LockedOrder): void {
  assertOrderTransition(order.status, 'awaiting_fulfilment');
  if (order.refunded_at) throw fail('order_refunded');
  if (order.undeliverable_reason?.startsWith('delivery_too_late')) throw fail('order_not_reshippable');
}

/**
 * Reship (docs/pharmacy.md): an undeliverable or returned order becomes a new attempt awaiting
 * fulfilment. The attempt that failed (carrier, tracking, dispensing, when and why) moves to
 * `previous_attempts`; dispatch then records new tracking. The patient is mailed; audited.
 */
export async function reshipOrder(deps: Deps, orderId: string, actorId: string): Promise<DeskOrderRow> {
  await deps.db.tx(async (q) => {
    const order = await locked(q, orderId);
    assertReshippable(order);
    const now = deps.clock.now();
    const earlier = Array.isArray(order.previous_attempts) ? order.previous_attempts.filter(isRecord) : [];
    const failed = {
      attempt: order.attempt,
      carrier: order.carrier,
      tracking_number: order.tracking_number,
      tracking_url: order.tracking_url,
      shipped_at: order.shipped_at?.toISOString() ?? null,
      batch: order.batch_number,
      undeliverable_reason: order.undeliverable_reason,
      undeliverable_at: order.undeliverable_at?.toISOString() ?? null,
    };
    await move(
      q,
      order,
      'awaiting_fulfilment',
      {
        attempt: order.attempt + 1,
        previous_attempts: JSON.stringify([...earlier, failed]),
        carrier: null,
        tracking_number: null,
        tracking_url: null,
        shipped_at: null,
        shipped_by: null,
        delivered_at: null,
        undeliverable_reason: null,
        undeliverable_at: null,
        batch_number: null,
        batch_expiry: null,
        dispensed_at: null,
        dispensed_by: null,
      },
      now,
    );
    await recordAudit(q, { actorId, action: 'order.reshipped', subjectType: 'order', subjectId: order.id, details: { attempt: order.attempt + 1 } });
    await enqueueMail(q, order.email, orderReshippedMail, order.locale, { first_name: order.first_name, link: appLinks.orders(deps.config) });
  });
  return reread(deps, orderId);
}

/** What a refund of an order's payments gave back (the caller refunds: fulfilment moves no money). */
export interface OrderRefund {
  paymentId: string;
  amountCents: number;
  currency: string;
}

/**
 * Refund instead of reship (docs/pharmacy.md): inside one transaction the undeliverable order is
 * locked and checked (409 `invalid_status_transition` unless undeliverable, `order_refunded` when
 * already refunded), `refund` gives the money back (none to give: 409 `order_not_refundable`), the
 * order is marked refunded (no reship after) and the patient mailed; audited.
 */
export async function refundUndeliverableOrder(deps: Deps, orderId: string, actorId: string, refund: (q: Queryable, order: LockedOrder) => Promise<OrderRefund[]>) {
  return deps.db.tx(async (q) => {
    const order = await locked(q, orderId);
    if (order.status !== 'undeliverable') throw fail('invalid_status_transition', { message: `An order in status "${order.status}" cannot be refunded here: only an undeliverable one.` });
    if (order.refunded_at) throw fail('order_refunded');
    const refunds = await refund(q, order);
    if (refunds.length === 0) throw fail('order_not_refundable');
    const now = deps.clock.now();
    if (!(await markOrderRefundedForBackoffice(q, order.id, now))) throw fail('order_refunded');
    await recordAudit(q, { actorId, action: 'order.refunded', subjectType: 'order', subjectId: order.id, details: { payments: refunds.map((r) => r.paymentId) } });
    await enqueueMail(q, order.email, orderRefundedMail, order.locale, { first_name: order.first_name, link: appLinks.orders(deps.config) });
    return { order_id: order.id, status: 'undeliverable' as const, refunded_at: now.toISOString(), refunds: refunds.map((r) => ({ payment_id: r.paymentId, amount_cents: r.amountCents, currency: r.currency })) };
  });
}
