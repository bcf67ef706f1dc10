// The recurring-charge scan (any account, the scheduler's): plans whose period has ended and that
// this service bills itself.
import type { Queryable } from '../../db/index.ts';
import { sqlOf } from '../../db/kysely.ts';

/**
 * Plans due for a charge now (not the ones the provider bills itself), oldest period end first. A
 * renewal opened for the period must be approved by a doctor before the next supply is charged.
 */
export async function plansDueForChargeForScheduler(q: Queryable, now: Date, billedByProvider: string, limit: number): Promise<string[]> {
  const rows = await sqlOf(q)
    .selectFrom('subscriptions as s')
    .select('s.id')
    .where('s.status', 'in', ['active', 'past_due'])
    .where('s.provider', '<>', billedByProvider)
    .where('s.cancel_at_period_end', '=', false)
    .where('s.current_period_end', '<=', now)
    .where((eb) => eb.or([eb('s.next_charge_attempt_at', 'is', null), eb('s.next_charge_attempt_at', '<=', now)]))
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('consultations as c')
            .select('c.id')
            .whereRef('c.subscription_id', '=', 's.id')
            .where('c.origin', '=', 'renewal')
            .whereRef('c.renewal_period_end', '=', 's.current_period_end')
            .where('c.status', '<>', 'approved'),
        ),
      ),
    )
    .orderBy('s.current_period_end')
    .limit(limit)
    .execute();
  return rows.map((r) => r.id);
}
