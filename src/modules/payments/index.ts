// The payments ledger (owner of payments and payment_receipts): the one insert into payments,
// refunds, invoices and receipts, recurring charges, and the payment's API shape.
export { recordPayment, type PaymentInput } from './repository.ts';
export { recordRefund, type RefundInput, type RecordedRefund } from './refunds.ts';
