// Checkout and finalisation (owner of checkout_sessions and webhook_events). Other modules use the
// back office's refund (it ends a review whose payment is refunded in full).
export { refundPayment } from './refunds.ts';
// Retention sweep of checkout sessions that ended unpaid (src/modules/privacy/retention.ts, docs/privacy.md).
export { deleteEndedUnpaidSessionsForScheduler } from './service.ts';
// The account's checkout sessions for its data export and erasure (the privacy module).
export { checkoutSessionsOfAccount, deleteUnfinishedSessionsOfAccount } from './service.ts';
