// The ledger's SQL: payments and payment_receipts (owner: payments). Patient-scoped reads take the
// account id and put it in the SQL.
import type { Queryable } from '../../db/index.ts';
import { sql, sqlOf } from '../../db/kysely.ts';
import { forAccount } from '../../db/scope.ts';
import type { PaymentsRow } from '../../db/schema.ts';
import { listOrdering, orderBy, type Order } from '../../http/pagination.ts';
import { storedRefunds, type RefundEntry } from './refund-entries.ts';

export type PaymentStatus = 'succeeded' | 'failed' | 'partially_refunded' | 'refunded';

/** One payment to record: a checkout's first charge, a plan's recurring charge (succeeded or failed). */
export interface PaymentInput {
  userId: string;
  consultationId?: string | null;
  subscriptionId?: string | null;
  provider: string;
  providerPaymentId: string;
  /** The provider's checkout id (our checkout_sessions.id) for a checkout's charge; '' otherwise. */
  providerCheckoutId?: string;
  checkoutSessionId?: string | null;
  isRecurring: boolean;
  billingReason: string;
  amountCents: number;
  currency: string;
  status: 'succeeded' | 'failed';
  /** For a failed charge: the provider's decline code. */
  failureCode?: string;
  description: string;
  /** When it happened: captured_at of a success, failed_at of a failure, and created_at. */
  at: Date;
  /** The card's fingerprint where the provider gives one (referrals compare it, never show it). */
  paymentMethodFingerprint?: string | null;
  /** First day of the plan period the charge pays for (plan charges only). */
  periodStart?: Date | null;
  /**
   * Redeliveries and retries record nothing twice: with `ignoreDuplicate` a payment that the unique
   * indexes already hold ((provider, provider_payment_id), one success per plan period) is skipped
   * and null returned; without it the insert throws (a finalisation holds its session's lock).
   */
  ignoreDuplicate?: boolean;
}

/**
 * THE insert into payments. A successful charge takes the next invoice number (gapless enough for
 * invoices: a skipped duplicate consumes a number, as before).
 */
export async function recordPayment(q: Queryable, input: PaymentInput): Promise<{ id: string } | null> {
  const succeeded = input.status === 'succeeded';
  let insert = sqlOf(q)
    .insertInto('payments')
    .values({
      user_id: input.userId,
      consultation_id: input.consultationId ?? null,
      subscription_id: input.subscriptionId ?? null,
      provider: input.provider,
      provider_payment_id: input.providerPaymentId,
      provider_checkout_id: input.providerCheckoutId ?? '',
      checkout_session_id: input.checkoutSessionId ?? null,
      is_recurring: input.isRecurring,
      billing_reason: input.billingReason,
      amount_cents: input.amountCents,
      currency: input.currency,
      status: input.status,
      failure_code: succeeded ? '' : (input.failureCode ?? ''),
      failed_at: succeeded ? null : input.at,
      description: input.description,
      captured_at: succeeded ? input.at : null,
      invoice_number: succeeded ? sql<number>`nextval('invoice_number_seq')` : null,
      period_start: input.periodStart ?? null,
      payment_method_fingerprint: input.paymentMethodFingerprint ?? null,
      created_at: input.at,
      updated_at: input.at,
    })
    .returning('id');
  if (input.ignoreDuplicate) insert = insert.onConflict((oc) => oc.doNothing());
  return (await insert.executeTakeFirst()) ?? null;
}

/** A payment's refund column: the latest refund, the total and every refund. */
export interface RefundRecord extends RefundEntry {
  total_refunded_cents: number;
  currency: string;
  refunds: RefundEntry[];
}

/** Writes the refund state of a payment of the account (the caller computed it under the payment's row lock). */
export async function updateRefund(q: Queryable, userId: string, paymentId: string, total: number, status: PaymentStatus, refund: RefundRecord): Promise<PaymentsRow> {
  return forAccount(q, userId)
    .updateTable('payments')
    .set({ refunded_amount_cents: total, status, refund: JSON.stringify(refund), updated_at: sql<Date>`now()` })
    .where('id', '=', paymentId)
    .returningAll()
    .executeTakeFirstOrThrow();
}

// ------------------------------------------------------------------ reads

/** The payments list's `ordering` whitelist (default: newest first). */
export const PAYMENT_ORDERING = listOrdering(['amount_cents'], '-created_at');
export type PaymentOrder = Order<(typeof PAYMENT_ORDERING.fields)[number]>;
/** A payments order for in-process callers (an export, a tool): one of the list's values, or its default. */
export const paymentOrder = (ordering?: (typeof PAYMENT_ORDERING.values)[number]): PaymentOrder => orderBy(ordering === undefined ? {} : { ordering }, PAYMENT_ORDERING);

export async function countPayments(q: Queryable, userId: string): Promise<number> {
  const r = await forAccount(q, userId)
    .selectFrom('payments')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

export async function pagePayments(q: Queryable, userId: string, order: PaymentOrder, limit: number, offset: number): Promise<PaymentsRow[]> {
  return forAccount(q, userId)
    .selectFrom('payments')
    .selectAll()
    .orderBy(order.field, order.direction)
    .orderBy('id', order.direction)
    .limit(limit)
    .offset(offset)
    .execute();
}

/** The account's payment with what its invoice prints: the patient, the plan cycle, the supply. */
export async function paymentForInvoice(q: Queryable, userId: string, paymentId: string) {
  const row = await forAccount(q, userId)
    .selectFrom('payments as p')
    .innerJoin('users as u', 'u.id', 'p.user_id')
    .leftJoin('subscriptions as s', 's.id', 'p.subscription_id')
    .leftJoin('consultations as c', 'c.id', 'p.consultation_id')
    .selectAll('p')
    .select(['u.first_name', 'u.last_name', 'u.email', 'u.addresses', 'u.country_of_residence', 's.cycle_days as plan_cycle_days', 'c.supply_days as consultation_supply_days'])
    .where('p.id', '=', paymentId)
    .executeTakeFirst();
  // The invoice prints the refunds that parse (storedRefunds); a malformed one is left off, not a 500.
  return row ? { ...row, refunds: storedRefunds(row.refund).items } : null;
}

/** The payment of a checkout session (one at most), for the session view. */
export async function paymentOfSession(q: Queryable, userId: string, checkoutSessionId: string) {
  const row = await forAccount(q, userId)
    .selectFrom('payments')
    .select(['id', 'subscription_id'])
    .where('checkout_session_id', '=', checkoutSessionId)
    .executeTakeFirst();
  return row ?? null;
}

/** Locks a payment (any account: the back office refunds any patient's payment). */
export async function lockPaymentForBackoffice(q: Queryable, paymentId: string): Promise<PaymentsRow | null> {
  const row = await sqlOf(q).selectFrom('payments').selectAll().where('id', '=', paymentId).forUpdate().executeTakeFirst();
  return row ?? null;
}

/**
 * Locks the account's charges of one consultation that still hold money (the checkout's first
 * payment, an early order's charge): what a doctor's rejection or an expired review gives back.
 */
export async function lockRefundablePaymentsOfConsultation(q: Queryable, userId: string, consultationId: string): Promise<PaymentsRow[]> {
  return forAccount(q, userId)
    .selectFrom('payments')
    .selectAll()
    .where('consultation_id', '=', consultationId)
    .where('status', 'in', ['succeeded', 'partially_refunded'])
    .orderBy('created_at')
    .forUpdate()
    .execute();
}

/** Locks the payment a provider knows by one of its ids (a refund webhook names the charge, intent or invoice). */
export async function lockPaymentForProvider(q: Queryable, provider: string, providerPaymentIds: string[]): Promise<PaymentsRow | null> {
  if (providerPaymentIds.length === 0) return null;
  const row = await sqlOf(q)
    .selectFrom('payments')
    .selectAll()
    .where('provider', '=', provider)
    .where('provider_payment_id', 'in', providerPaymentIds)
    .forUpdate()
    .executeTakeFirst();
  return row ?? null;
}

/** A payment and its account's mail details, for a receipt (by id, or by provider and provider payment id). */
export async function paymentForReceiptForProvider(q: Queryable, by: { id: string } | { provider: string; providerPaymentId: string }) {
  let query = sqlOf(q)
    .selectFrom('payments as p')
    .innerJoin('users as u', 'u.id', 'p.user_id')
    .select(['p.id', 'p.status', 'p.amount_cents', 'p.currency', 'p.captured_at', 'p.invoice_number', 'u.email', 'u.first_name', 'u.locale', 'u.timezone']);
  query = 'id' in by ? query.where('p.id', '=', by.id) : query.where('p.provider', '=', by.provider).where('p.provider_payment_id', '=', by.providerPaymentId);
  return (await query.executeTakeFirst()) ?? null;
}

/** Claims the receipt of one payment event ('charge' or a refund id); false when it was already sent. */
export async function claimReceipt(q: Queryable, paymentId: string, event: string): Promise<boolean> {
  const row = await sqlOf(q)
    .insertInto('payment_receipts')
    .values({ payment_id: paymentId, event })
    .onConflict((oc) => oc.doNothing())
    .returning('payment_id')
    .executeTakeFirst();
  return row !== undefined;
}
