// "Active treatment plan" (docs/journal.md): an approved consultation whose supply has not run out
// (decided_at + supply_days, 30 days when the consultation predates supply tracking), or a
// subscription that is active or past due (a failed charge does not end the treatment at once).
import type { Queryable } from '../../db/index.ts';
import { detailCode } from '../../http/errors.ts';

export async function hasActiveTreatmentPlan(q: Queryable, userId: string, now: Date): Promise<boolean> {
  const rows = await q.query(
    `select 1 from consultations
      where user_id = $1 and status = 'approved' and decided_at is not null
        and decided_at + make_interval(days => coalesce(supply_days, 30)) > $2
     union all
     select 1 from subscriptions where user_id = $1 and status in ('active', 'past_due')
     limit 1`,
    [userId, now],
  );
  return rows.length > 0;
}

export const activePlanRequired = () =>
  detailCode(403, 'active_treatment_plan_required', 'The progress journal is available while you have an active treatment plan.');
