// The payments ledger (owner of payments and payment_receipts): the one insert into payments,
// refunds, invoices and receipts, the money half of recurring charges, and the payment's API shape.
// It knows no consultation or plan rules: callers (checkout, subscriptions, the back office) apply
// those with what these functions return.
export {
  recordPayment,
  countPayments,
  pagePayments,
  paymentOrder,
  paymentOfSession,
  type PaymentInput,
  type PaymentOrder,
} from './repository.ts';
export { recordRefund, recordProviderRefund, refundPaymentForBackoffice, type RefundInput, type RecordedRefund } from './refunds.ts';
export { chargePlanPeriod, planPaymentDescription, type PeriodCharge, type PlanToCharge } from './recurring.ts';
export { queueChargeReceipt } from './receipts.ts';
export { paymentDescription } from './product.ts';
export { PaymentSchema, RefundSchema, toPayment, type Payment } from './schemas.ts';
export { duplicateRefundMail, formatAmount, paymentReceiptMail, refundReceiptMail } from './mail.ts';
