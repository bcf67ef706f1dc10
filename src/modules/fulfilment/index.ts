// Fulfilment (owner of prescriptions and orders): what a doctor's approval issues and the pharmacy
// ships. Consultation approval
// calls issuePrescription and createOrder inside its transaction.
import type { Queryable } from '../../db/index.ts';
import { ordersOf } from './repository.ts';
import { toOrder, type Order } from './schemas.ts';

export {
  issuePrescription,
  createOrder,
  countPrescriptions,
  pagePrescriptions,
  eraseAccountFulfilment,
  type PrescriptionInput,
  type PrescriptionWithDoctor,
  type OrderInput,
} from './repository.ts';
export { OrderSchema, PrescriptionSchema, toOrder, toPrescription, type Order, type OrderItem, type Prescription } from './schemas.ts';

/** The account's orders in their API shape, newest first (the profile's `orders`, the connector). */
export async function listOrders(q: Queryable, userId: string): Promise<Order[]> {
  return (await ordersOf(q, userId)).map(toOrder);
}

// The pharmacy desk (docs/pharmacy.md): the status machine, the queue and the moves.
export { ORDER_STATUSES, ORDER_TRANSITIONS, canOrderTransition, type OrderStatus } from './status.ts';
export {
  dispenseOrder,
  dispatchOrder,
  deliverOrder,
  markOrderUndeliverable,
  reshipOrder,
  refundUndeliverableOrder,
  EXPECTED_TRANSIT_HOURS,
  type ArrivalCheck,
  type LockedOrder,
  type OrderRefund,
} from './desk.ts';
export { countFulfilmentQueue, pageFulfilmentQueue, deskOrder, FULFILMENT_ORDERING } from './pharmacy.repository.ts';
export { PharmacyOrderSchema, toPharmacyOrder, type PharmacyOrder } from './desk.schemas.ts';
export { listReissueRequests, ReissueRequestSchema, type ReissueRequest } from './reissue.schemas.ts';
export { prescriptionFile } from './documents.ts';
