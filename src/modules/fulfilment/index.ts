// Fulfilment (owner of prescriptions and orders): what a doctor's approval issues and the pharmacy
// ships. Consultation approval
// calls issuePrescription and createOrder inside its transaction. Services only (service.ts): the
// repository files are private to this folder.
export {
  issuePrescription,
  createOrder,
  countPrescriptions,
  pagePrescriptions,
  listOrders,
  ordersColumn,
  eraseAccountFulfilment,
  countFulfilmentQueue,
  pageFulfilmentQueue,
  deskOrder,
  orderOfPharmacist,
  routeOrderToPharmacy,
  FULFILMENT_ORDERING,
  type PrescriptionInput,
  type PrescriptionWithDoctor,
  type OrderInput,
  type OrderJson,
} from './service.ts';
export { OrderSchema, PrescriptionSchema, toOrder, toPrescription, type Order, type OrderItem, type Prescription } from './schemas.ts';

// The pharmacy desk (docs/pharmacy.md): the status machine, the queue and the moves.
export { ORDER_STATUSES, ORDER_TRANSITIONS, canOrderTransition, type OrderStatus } from './status.ts';
export {
  dispenseOrder,
  dispatchOrder,
  deliverOrder,
  markOrderUndeliverable,
  reshipOrder,
  refundUndeliverableOrder,
  type ArrivalCheck,
  type LockedOrder,
  type OrderRefund,
} from './desk.ts';
export { PharmacyOrderSchema, toPharmacyOrder, type PharmacyOrder } from './desk.schemas.ts';
export { listReissueRequests, ReissueRequestSchema, type ReissueRequest } from './reissue.schemas.ts';
export { prescriptionFile } from './documents.ts';
export { maxRepeatsFor, statedRepeats } from './repeats.ts';
// The patient's repeat order: whether one may be ordered and its price, and the order a paid one opens (the checkout module).
export { createRepeatOrder, repeatRefusalOf, repeatSupplyOf, type RepeatSupply } from './repeat-orders.ts';
