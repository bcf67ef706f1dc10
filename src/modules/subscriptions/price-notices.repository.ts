// SQL of a plan's price changes (plan_price_notices, owned by subscriptions): the notice sent before
// a catalogue price reaches a running plan, and its application at the first charge it allows.
import type { Queryable } from '../../db/index.ts';
import { sql } from 'kysely';
import { sqlOf } from '../../db/kysely.ts';
import { forAccount } from '../../db/scope.ts';

/** Live plans (billed here or by the provider), with the owner's contact, for the notice sweep. */
export async function plansForPriceSweepForScheduler(q: Queryable, afterId: string | null, limit: number) {
  let query = sqlOf(q)
    .selectFrom('subscriptions as s')
    .innerJoin('users as u', 'u.id', 's.user_id')
    .leftJoin('plan_price_notices as n', (j) => j.onRef('n.subscription_id', '=', 's.id').on('n.applied_at', 'is', null).on('n.superseded_at', 'is', null))
    .select(['n.new_price_cents as open_new_price_cents', 's.id', 's.user_id', 's.category', 's.treatment_id', 's.price_cents', 's.currency', 's.current_period_end', 's.next_delivery_at', 's.cycle_days', 's.provider', 's.provider_subscription_id', 'u.email', 'u.locale'])
    .where('s.status', 'in', ['active', 'past_due', 'paused'])
    .where('s.cancel_at_period_end', '=', false)
    .where('u.erased_at', 'is', null)
    .orderBy('s.id')
    .limit(limit);
  if (afterId) query = query.where('s.id', '>', afterId);
  return query.execute();
}

export async function openNoticeForScheduler(q: Queryable, subscriptionId: string) {
  return sqlOf(q)
    .selectFrom('plan_price_notices')
    .selectAll()
    .where('subscription_id', '=', subscriptionId)
    .where('applied_at', 'is', null)
    .where('superseded_at', 'is', null)
    .forUpdate()
    .executeTakeFirst();
}

export async function supersedeNotice(q: Queryable, userId: string, id: string, now: Date): Promise<void> {
  await forAccount(q, userId).updateTable('plan_price_notices').set({ superseded_at: now }).where('id', '=', id).execute();
}

export async function insertNotice(
  q: Queryable,
  row: { user_id: string; subscription_id: string; treatment_id: string; old_price_cents: number; new_price_cents: number; currency: string; notified_at: Date; effective_from: Date },
): Promise<void> {
  await sqlOf(q).insertInto('plan_price_notices').values(row).execute();
}

/**
 * The open notice of one of the account's plans whose new price may be charged for a period starting
 * at `periodStart` (within half a cycle of its date: a provider's period times are whole seconds).
 */
export async function dueNotice(q: Queryable, userId: string, subscriptionId: string, periodStart: Date, cycleDays: number) {
  return forAccount(q, userId)
    .selectFrom('plan_price_notices')
    .selectAll()
    .where('subscription_id', '=', subscriptionId)
    .where('applied_at', 'is', null)
    .where('superseded_at', 'is', null)
    .where('effective_from', '<=', new Date(periodStart.getTime() + cycleDays * 12 * 3600 * 1000))
    .executeTakeFirst();
}

/** The new price becomes the plan's (inside the charge's transaction, the plan row already locked). */
export async function applyNotice(q: Queryable, userId: string, noticeId: string, subscriptionId: string, priceCents: number, now: Date): Promise<void> {
  await forAccount(q, userId).updateTable('plan_price_notices').set({ applied_at: now }).where('id', '=', noticeId).execute();
  await forAccount(q, userId).updateTable('subscriptions').set({ price_cents: priceCents, updated_at: now }).where('id', '=', subscriptionId).execute();
}

/**
 * Open notices of plans the provider bills itself whose last period at the old price is running
 * (its end is the notice's date or later), not yet set on the provider.
 */
export async function noticesDueAtProviderForScheduler(q: Queryable, limit: number) {
  return sqlOf(q)
    .selectFrom('plan_price_notices as n')
    .innerJoin('subscriptions as s', 's.id', 'n.subscription_id')
    .select(['n.id', 'n.user_id', 'n.new_price_cents', 'n.currency', 's.id as subscription_id', 's.provider', 's.provider_subscription_id', 's.cycle_days'])
    .where('n.applied_at', 'is', null)
    .where('n.superseded_at', 'is', null)
    .where('n.provider_applied_at', 'is', null)
    .where('s.provider', '=', 'stripe')
    .where('s.provider_subscription_id', 'is not', null)
    .where('s.status', 'in', ['active', 'past_due', 'paused'])
    // The period ending at the notice's date (a provider's times may differ by seconds from ours:
    // half a cycle apart is unambiguous).
    .where(sql<boolean>`n.effective_from <= s.current_period_end + make_interval(hours => s.cycle_days * 12)`)
    .orderBy('n.effective_from')
    .limit(limit)
    .execute();
}

export async function markNoticeAtProvider(q: Queryable, userId: string, id: string, now: Date): Promise<void> {
  await forAccount(q, userId).updateTable('plan_price_notices').set({ provider_applied_at: now }).where('id', '=', id).execute();
}

/** The account's notices, newest first (the plan page). */
export async function noticesOfPlan(q: Queryable, userId: string, subscriptionId: string) {
  return forAccount(q, userId).selectFrom('plan_price_notices').selectAll().where('subscription_id', '=', subscriptionId).orderBy('notified_at', 'desc').execute();
}
