// Switching treatment within a plan's category (another medicine after a price rise, a shortage or
// side effects): the patient's request opens the plan's next renewal early, on the new treatment at
// the engine's start dose for it. The patient then answers the renewal screen and confirms (the
// renewal confirm runs the engine and the dose rules for the new treatment: a first supply of it
// starts at its starting dose), and a doctor decides on the desk, which shows the treatment change.
// On approval the plan carries the new treatment (the review desk's rule for every renewal).
import type { Deps } from '../../deps.ts';
import { isUniqueViolation } from '../../db/index.ts';
import { fail } from '../../http/error-catalogue.ts';
import { fieldErrors, notFound } from '../../http/errors.ts';
import { createConsultation, defaultDosage } from '../consultations/index.ts';
import { findTreatment } from '../questionnaires/index.ts';
import { plansOfAccount } from '../subscriptions/index.ts';

export type SwitchReason = 'price' | 'shortage' | 'side_effects' | 'other';

export async function requestTreatmentSwitch(deps: Deps, userId: string, planId: string, input: { treatment_id: string; reason: SwitchReason }) {
  const now = deps.clock.now();
  const plan = (await plansOfAccount(deps.db, userId)).find((p) => p.id === planId);
  if (!plan) throw notFound();
  if (!['active', 'paused'].includes(plan.status) || plan.cancel_at_period_end) throw fail('subscription_not_active', { message: 'This plan has ended or ends at the period end.' });
  const target = findTreatment(plan.category, input.treatment_id);
  if (!target || input.treatment_id === plan.treatment_id) throw fieldErrors({ treatment_id: ['Choose another treatment of the same category.'] });
  // The engine's dose rule for a first supply of the new treatment (its starting dose).
  const dosage = (await defaultDosage(deps.db, userId, plan.category, target.treatment_id, now)) ?? (target.dosage_ladder ?? target.strengths)[0]!;
  try {
    const c = await deps.db.tx((q) =>
      createConsultation(q, {
        userId,
        category: plan.category,
        plan: 'subscription',
        origin: 'renewal',
        supplyDays: plan.cycle_days,
        treatmentId: target.treatment_id,
        dosage,
        subscriptionId: plan.id,
        formSnapshot: [],
        patientChoiceStatus: 'pending',
        renewalDetails: {
          period_end: new Date(plan.current_period_end).toISOString(),
          switch_request: { from: plan.treatment_id, to: target.treatment_id, reason: input.reason, requested_at: now.toISOString() },
        },
        renewalPeriodEnd: plan.current_period_end,
      }),
    );
    return { consultation_id: c.id, treatment_id: target.treatment_id, dosage, next_step: 'confirm_renewal' as const };
  } catch (err) {
    // The renewal of this period exists already: the change is made there.
    if (isUniqueViolation(err)) throw fail('treatment_switch_renewal_open');
    throw err;
  }
}
