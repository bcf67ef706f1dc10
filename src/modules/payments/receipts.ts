// Payment receipts: a mail after every successful charge and every refund, queued through the
// transactional outbox in the transaction that records the payment or the refund (so a rollback
// sends nothing). payment_receipts claims each event once: a finalisation, webhook or job that runs
// twice still sends one receipt. The mail carries no health details (payments/mail.ts).
import { appLinks } from '../../mail/links.ts';
import type { Queryable } from '../../db/index.ts';
import type { Deps } from '../../deps.ts';
import { enqueueMail } from '../../mail/outbox.ts';
import { paymentReceiptMail, refundReceiptMail } from './mail.ts';
import { claimReceipt, paymentForReceiptForProvider } from './repository.ts';

// The payments page of the web app, where the invoice is downloaded (the API route needs a token).
const invoiceLink = (deps: Deps) => appLinks.payments(deps.config);

/** Queues the receipt of a successful charge, recorded as (provider, provider payment id). */
export async function queueChargeReceipt(deps: Deps, q: Queryable, provider: string, providerPaymentId: string): Promise<void> {
  const p = await paymentForReceiptForProvider(q, { provider, providerPaymentId });
  if (!p || p.status === 'failed' || !p.invoice_number) return;
  if (!(await claimReceipt(q, p.id, 'charge'))) return;
  await enqueueMail(q, p.email, paymentReceiptMail, p.locale, {
    first_name: p.first_name ?? '',
    amount_cents: p.amount_cents,
    currency: p.currency,
    at: new Date(p.captured_at ?? deps.clock.now()).toISOString(),
    timezone: p.timezone ?? '',
    reference: `INV-${p.invoice_number}`,
    link: invoiceLink(deps),
  });
}

/** Queues the receipt of one refund of a payment. */
export async function queueRefundReceipt(deps: Deps, q: Queryable, paymentId: string, refund: { id: string; amountCents: number; at: Date }): Promise<void> {
  const p = await paymentForReceiptForProvider(q, { id: paymentId });
  if (!p || refund.amountCents <= 0) return;
  if (!(await claimReceipt(q, p.id, `refund:${refund.id}`))) return;
  await enqueueMail(q, p.email, refundReceiptMail, p.locale, {
    first_name: p.first_name ?? '',
    amount_cents: refund.amountCents,
    currency: p.currency,
    at: refund.at.toISOString(),
    timezone: p.timezone ?? '',
    reference: p.invoice_number ? `INV-${p.invoice_number}` : p.id.slice(0, 8),
    refund_id: refund.id,
    link: invoiceLink(deps),
  });
}
