// The ledger's services: what its routes and other modules call; the SQL stays in
// repository.ts, private to this folder. recordPayment runs inside the caller's transaction (`trx`):
// checkout finalisation, recurring charges and provider webhooks record the payment with the rest.
import type { Queryable } from '../../db/index.ts';
import type { PaymentsRow } from '../../db/schema.ts';
import * as repo from './repository.ts';

export { PAYMENT_ORDERING, paymentOrder, type PaymentInput, type PaymentOrder } from './repository.ts';

/** THE insert into payments (null: a duplicate the caller asked to ignore). */
export function recordPayment(trx: Queryable, input: repo.PaymentInput): Promise<{ id: string } | null> {
  return repo.recordPayment(trx, input);
}

export function countPayments(q: Queryable, userId: string): Promise<number> {
  return repo.countPayments(q, userId);
}

export function pagePayments(q: Queryable, userId: string, order: repo.PaymentOrder, limit: number, offset: number): Promise<PaymentsRow[]> {
  return repo.pagePayments(q, userId, order, limit, offset);
}

/** The account's payment of a checkout session, if it was recorded. */
export function paymentOfSession(q: Queryable, userId: string, checkoutSessionId: string) {
  return repo.paymentOfSession(q, userId, checkoutSessionId);
}
