// "Active treatment plan" (docs/journal.md): the rule itself is a read in repository.ts
// (hasActiveTreatmentPlan); this is the refusal every journal route gives without one.
import { fail } from '../../http/errors.ts';

export const activePlanRequired = () => fail('active_treatment_plan_required');
