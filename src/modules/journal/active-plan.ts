// "Active treatment plan" (docs/journal.md): the rule itself is a read in repository.ts
// (hasActiveTreatmentPlan); this is the refusal every journal route gives without one.
import { detailCode } from '../../http/errors.ts';

export const activePlanRequired = () =>
  detailCode(403, 'active_treatment_plan_required', 'The progress journal is available while you have an active treatment plan.');
