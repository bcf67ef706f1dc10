import { countPayments, pagePayments, paymentOrder } from '../../payments/index.ts';
import { iso } from '../../../lib/iso.ts';
import * as s from '../schemas.ts';
import { tool, paging } from './tool.ts';

export const listPaymentsTool = tool({
  name: 'list_payments',
  title: 'Payments',
  description: 'The patient’s payments and refunds (amounts in euro cents), newest first. Invoices are not included.',
  scope: 'patient:read',
  input: s.PageInput,
  output: s.PaymentsOut,
  readOnly: true,
  async run({ deps, auth }, args) {
    const { limit, offset } = paging(args);
    const [count, rows] = await Promise.all([countPayments(deps.db, auth.userId), pagePayments(deps.db, auth.userId, paymentOrder(undefined), limit, offset)]);
    const results = rows.map((p) => ({
      id: p.id,
      consultation_id: p.consultation_id,
      subscription_id: p.subscription_id,
      description: p.description,
      billing_reason: p.billing_reason,
      amount_cents: p.amount_cents,
      refunded_amount_cents: p.refunded_amount_cents,
      net_amount_cents: p.amount_cents - p.refunded_amount_cents,
      currency: p.currency,
      status: p.status,
      captured_at: iso(p.captured_at),
      created_at: iso(p.created_at)!,
    }));
    return { data: { count, results }, text: `${count} payment(s).` };
  },
});
