import { countForUser, pageForUser, serialiseConsultations } from '../../consultations/index.ts';
import * as s from '../schemas.ts';
import { tool, paging } from './tool.ts';

export const listConsultationsTool = tool({
  name: 'list_consultations',
  title: 'Consultations',
  description: 'The patient’s consultations with their status (pending_review, approved, rejected, ...), newest first.',
  scope: 'patient:read',
  input: s.PageInput,
  output: s.ConsultationsOut,
  readOnly: true,
  async run({ deps, auth }, args) {
    const { limit, offset } = paging(args);
    const [count, rows] = await Promise.all([countForUser(deps.db, auth.userId), pageForUser(deps.db, auth.userId, limit, offset)]);
    const full = await serialiseConsultations(deps.db, deps, rows);
    const results = full.map((c) => ({
      id: c.id,
      status: c.status,
      origin: c.origin,
      category: c.category,
      plan: c.plan,
      treatment_id: c.treatment_id,
      dosage: c.dosage,
      supply_days: c.supply_days,
      decision_reason: c.decision_reason,
      doctor: c.doctor ? { first_name: c.doctor.first_name, last_name: c.doctor.last_name } : null,
      prescription_ids: c.prescriptions.map((p) => p.id),
      created_at: c.created_at,
      decided_at: c.decided_at,
      refund: refundOf(c.payments),
    }));
    // The outcome as the patient should read it: "rejected, refunded in full (29.00 EUR)", never only a status.
    const said = (c: (typeof results)[number]) =>
      `${c.category}: ${c.status}${c.refund ? `, refunded ${c.refund.full ? 'in full' : 'in part'} (${(c.refund.refunded_cents / 100).toFixed(2)} ${c.refund.currency})` : ''}`;
    return { data: { count, results }, text: `${count} consultation(s); ${results.map(said).join('; ') || 'none'}.` };
  },
});

/** What was refunded of a consultation's payments (null: nothing). */
function refundOf(payments: readonly { amount_cents: number; refunded_amount_cents: number; currency: string }[]) {
  const refunded = payments.filter((p) => p.refunded_amount_cents > 0);
  const first = refunded[0];
  if (!first) return null;
  return { refunded_cents: refunded.reduce((n, p) => n + p.refunded_amount_cents, 0), currency: first.currency, full: refunded.every((p) => p.refunded_amount_cents >= p.amount_cents) };
}
