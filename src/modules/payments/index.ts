// The payments ledger (owner of payments and payment_receipts): recordPayment (the only writer of a payment row),
// refunds, invoices and receipts, the money half of recurring charges, the payment's API shape, and
// the price list of what is sold (read from the questionnaires catalogue).
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
} from './service.ts';
export {
  recordRefund,
  recordProviderRefund,
  refundPaymentForBackoffice,
  refundConsultationCharges,
  type ConsultationRefund,
  type RefundInput,
  type RecordedRefund,
} from './refunds.ts';
export { chargePlanPeriod, planPaymentDescription, type PeriodCharge, type PlanToCharge } from './recurring.ts';
export { queueChargeReceipt } from './receipts.ts';
export { paymentDescription } from './product.ts';
export {
  billingCategory,
  billingTreatment,
  oneOffSupplyDays,
  planCycleDays,
  priceFor,
  type BillingCategory,
  type BillingTreatment,
} from './catalogue.ts';
export { PaymentSchema, toPayment, type Payment, type PaymentRecord } from './schemas.ts';
export { duplicateRefundMail, formatAmount, paymentReceiptMail, refundReceiptMail } from './mail.ts';
export { invoiceFile } from './documents.ts';
