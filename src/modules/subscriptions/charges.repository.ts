// The recurring-charge scan (any account, the scheduler's): plans whose period has ended and that
// this service bills itself.
import type { Queryable } from '../../db/index.ts';
import { sql, sqlOf } from '../../db/kysely.ts';
import { forAccount } from '../../db/scope.ts';

/**
 * Plans due for a charge now (not the ones the provider bills itself), oldest period end first.
 * Only a period whose renewal a doctor approved is charged (docs/renewals.md, "Charge"): a plan
 * whose renewal is missing (the scheduler was down when its window opened), pending, held or
 * rejected is never charged, so missed periods are never charged silently.
 */
export async function plansDueForChargeForScheduler(q: Queryable, now: Date, billedByProvider: string, limit: number): Promise<string[]> {
  const rows = await sqlOf(q)
    .selectFrom('subscriptions as s')
    .select('s.id')
    .where('s.status', 'in', ['active', 'past_due'])
    .where('s.provider', '<>', billedByProvider)
    .where('s.cancel_at_period_end', '=', false)
    // The next cycle starts at next_delivery_at when the patient moved it (docs/plan-management.md).
    .where(sql<boolean>`coalesce(s.next_delivery_at, s.current_period_end) <= ${now}`)
    .where((eb) => eb.or([eb('s.next_charge_attempt_at', 'is', null), eb('s.next_charge_attempt_at', '<=', now)]))
    .where((eb) =>
      eb.exists(
        eb
          .selectFrom('consultations as c')
          .select('c.id')
          .whereRef('c.subscription_id', '=', 's.id')
          .whereRef('c.renewal_period_end', '=', 's.current_period_end')
          .where('c.origin', '=', 'renewal')
          .where('c.status', '=', 'approved'),
      ),
    )
    .orderBy('s.current_period_end')
    .limit(limit)
    .execute();
  return rows.map((r) => r.id);
}

/**
 * When the doctor approved the renewal of the current period of the account's plan (null: not approved). The
 * charged period starts at the later of the period's end and this, so a renewal approved after an
 * outage starts a fresh period when the supply ships rather than paying for days already gone. The
 * period end is compared in SQL (a JS Date would drop PostgreSQL's microseconds).
 */
export async function renewalApprovalOf(q: Queryable, userId: string, planId: string): Promise<Date | null> {
  const row = await forAccount(q, userId)
    .selectFrom('subscriptions as s')
    .innerJoin('consultations as c', (j) => j.onRef('c.subscription_id', '=', 's.id').onRef('c.renewal_period_end', '=', 's.current_period_end'))
    .select(['c.decided_at', 's.current_period_end'])
    .where('s.id', '=', planId)
    .where('c.origin', '=', 'renewal')
    .where('c.status', '=', 'approved')
    .executeTakeFirst();
  return row ? (row.decided_at ?? row.current_period_end) : null;
}
