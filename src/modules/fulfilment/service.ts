// Fulfilment's services: what its routes and other modules call. The repository files
// (repository.ts, pharmacy.repository.ts, reissue.repository.ts) are private to this folder; the
// functions a caller runs inside its own transaction take that transaction as `trx`.
import type { Queryable } from '../../db/index.ts';
import type { Deps } from '../../deps.ts';
import type { SigningSession } from '../signing/index.ts';
import { issueSignedPrescription } from './signing.ts';
import type { Order } from '../../http/pagination.ts';
import * as desk from './pharmacy.repository.ts';
import * as reissues from './reissue.repository.ts';
import * as repo from './repository.ts';
import { toOrder, type Order as ApiOrder } from './schemas.ts';
import { recordAudit } from '../audit/index.ts';

export { PRESCRIPTION_ORDERING } from './repository.ts';
export { FULFILMENT_ORDERING } from './pharmacy.repository.ts';
export { PENDING_REISSUE_ORDERING, REISSUE_ORDERING } from './reissue.repository.ts';
export type { PrescriptionInput, PrescriptionWithDoctor, OrderInput, OrderJson } from './repository.ts';

// ---- what a doctor's approval issues, inside the approval's transaction

/**
 * Records the prescription of an approved consultation and signs it for its prescriber (PAdES, in
 * `session`; docs/prescriptions.md). 403 `second_factor_required_to_sign`, 503 `signing_unavailable`.
 */
export function issuePrescription(deps: Deps, trx: Queryable, input: repo.PrescriptionInput, session: SigningSession): Promise<{ id: string }> {
  return issueSignedPrescription(deps, trx, input, session);
}

/** Opens the order the pharmacy ships (status awaiting_fulfilment). */
export function createOrder(trx: Queryable, input: repo.OrderInput): Promise<{ id: string }> {
  return repo.createOrder(trx, input);
}

// ---- the patient's own prescriptions, orders and reissue requests

export function countPrescriptions(q: Queryable, userId: string): Promise<number> {
  return repo.countPrescriptions(q, userId);
}

export function pagePrescriptions(
  q: Queryable,
  userId: string,
  limit: number,
  offset: number,
  order?: Order<(typeof repo.PRESCRIPTION_ORDERING.fields)[number]>,
): Promise<repo.PrescriptionWithDoctor[]> {
  return repo.pagePrescriptions(q, userId, limit, offset, order);
}

/** The account's orders as a JSON array column of the caller's own statement (the profile's; turn each with toOrder). */
export function ordersColumn(q: Queryable, userId: string) {
  return repo.ordersJsonOf(q, userId);
}

/** The account's orders in their API shape, newest first (the profile's `orders`, the connector). */
export async function listOrders(q: Queryable, userId: string): Promise<ApiOrder[]> {
  return (await repo.ordersOf(q, userId)).map(toOrder);
}

export function countReissueRequests(q: Queryable, userId: string): Promise<number> {
  return reissues.countReissueRequests(q, userId);
}

export function pageReissueRequests(
  q: Queryable,
  userId: string,
  limit: number,
  offset: number,
  order?: Order<(typeof reissues.REISSUE_ORDERING.fields)[number]>,
): Promise<reissues.ReissueRow[]> {
  return reissues.pageReissueRequests(q, userId, limit, offset, order);
}

/** The account's erasure: orders keep their dispensing record without the address; pending reissue requests go. */
export function eraseAccountFulfilment(trx: Queryable, userId: string): Promise<void> {
  return repo.eraseAccountFulfilment(trx, userId);
}

// ---- the staff desks (across accounts)

export function countPendingReissues(q: Queryable): Promise<number> {
  return reissues.countPendingReissuesForClinician(q);
}

export function pagePendingReissues(q: Queryable, limit: number, offset: number, order?: Order<'created_at'>) {
  return reissues.pagePendingReissuesForClinician(q, limit, offset, order);
}

/** The queue of the pharmacist's pharmacy (docs/pharmacy.md, "Pharmacies and their pharmacists"). */
export function countFulfilmentQueue(q: Queryable, pharmacistId: string): Promise<number> {
  return desk.countFulfilmentQueueForPharmacy(q, pharmacistId);
}

export function pageFulfilmentQueue(q: Queryable, pharmacistId: string, limit: number, offset: number, order?: Order<(typeof desk.FULFILMENT_ORDERING.fields)[number]>): Promise<desk.DeskOrderRow[]> {
  return desk.pageFulfilmentQueue(q, pharmacistId, limit, offset, order);
}

/** One order of the pharmacist's pharmacy (null: none, or another pharmacy's). */
export function deskOrder(q: Queryable, id: string, pharmacistId: string): Promise<desk.DeskOrderRow | null> {
  return desk.deskOrder(q, id, pharmacistId);
}

/** Whether an order belongs to the pharmacist's pharmacy: the desk's moves answer 404 otherwise. */
export function orderOfPharmacist(q: Queryable, orderId: string, pharmacistId: string): Promise<boolean> {
  return desk.orderOfPharmacistForPharmacy(q, orderId, pharmacistId);
}

/** The back office routes an order to a pharmacy (null: the central dispatch pharmacy); false: no such order. */
export async function routeOrderToPharmacy(deps: Deps, actorId: string, orderId: string, pharmacyId: string | null): Promise<boolean> {
  return deps.db.tx(async (q) => {
    const done = await desk.routeOrderForBackoffice(q, orderId, pharmacyId, deps.clock.now());
    if (done) await recordAudit(q, { actorId, action: 'order.routed', subjectType: 'order', subjectId: orderId, details: { pharmacy_id: pharmacyId } });
    return done;
  });
}
