// Checkout and finalisation (owner of checkout_sessions and webhook_events). Other modules use the
// back office's refund (it ends a review whose payment is refunded in full).
export { refundPayment } from './refunds.ts';
