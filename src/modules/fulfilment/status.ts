// The order status set and its transitions: the ONE place that decides which moves an order may
// make (the pharmacy desk's dispatch, delivery and failed delivery go through the transition
// function of repository.ts, which updates `where status = <from>` on a locked row).
//
//   awaiting_fulfilment -> shipped | undeliverable | cancelled
//   shipped             -> delivered | undeliverable
//   undeliverable       -> awaiting_fulfilment (a reship: a new attempt; refused once refunded)
//   delivered, cancelled: final
// An undeliverable order ends in one of two explicit choices (docs/pharmacy.md): the pharmacy
// reships it (desk.ts reshipOrder) or the back office refunds it (refunded_at; no reship after).
//
// Dispensing (batch and expiry recorded) is not a status: it is allowed while the order still waits.
import { fail } from '../../http/errors.ts';

export const ORDER_STATUSES = ['awaiting_fulfilment', 'shipped', 'delivered', 'undeliverable', 'cancelled'] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

export const ORDER_TRANSITIONS: Readonly<Record<OrderStatus, readonly OrderStatus[]>> = {
  awaiting_fulfilment: ['shipped', 'undeliverable', 'cancelled'],
  shipped: ['delivered', 'undeliverable'],
  delivered: [],
  undeliverable: ['awaiting_fulfilment'],
  cancelled: [],
};

/** Statuses in which the pharmacy may still record dispensing. */
export const DISPENSABLE: readonly OrderStatus[] = ['awaiting_fulfilment'];

export const isOrderStatus = (s: string): s is OrderStatus => (ORDER_STATUSES as readonly string[]).includes(s);

export function canOrderTransition(from: string, to: OrderStatus): boolean {
  return isOrderStatus(from) && ORDER_TRANSITIONS[from].includes(to);
}

/** 409 {detail, code: "invalid_status_transition"} unless from -> to is allowed. */
export function assertOrderTransition(from: string, to: OrderStatus): void {
  if (!canOrderTransition(from, to)) {
    throw fail('invalid_status_transition', { message: `An order in status "${from}" cannot become "${to}".` });
  }
}

/** 409 unless the order may still be dispensed. */
export function assertDispensable(from: string): void {
  if (!(DISPENSABLE as readonly string[]).includes(from)) {
    throw fail('invalid_status_transition', { message: `An order in status "${from}" can no longer be dispensed.` });
  }
}
