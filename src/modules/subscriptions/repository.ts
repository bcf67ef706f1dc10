// Subscriptions (plans) SQL: the only writer of the `subscriptions` table. Patient-scoped functions
// take the account id and put it in the SQL; the scheduler's and the provider webhooks' functions
// act on any plan by design and say so in their names (`...ForScheduler`, `...ForProvider`).
// Every status change goes through the machine in status.ts (`where status = <from>`).
import { listOrdering, orderBy, type Order } from '../../http/pagination.ts';
import type { Queryable } from '../../db/index.ts';
import { sql, sqlOf } from '../../db/kysely.ts';
import { readJson } from '../../lib/sealed.ts';
import type { SubscriptionsRow, SubscriptionsUpdate, UsersRow } from '../../db/schema.ts';
import { assertPlanTransition, canSetCancelAtPeriodEnd, LIVE_PLAN_STATUSES, type PlanStatus } from './status.ts';
import { forAccount } from '../../db/scope.ts';

export type PlanRow = SubscriptionsRow;

export interface NewPlan {
  userId: string;
  category: string;
  treatmentId: string;
  dosage: string;
  provider: string;
  providerSubscriptionId: string | null;
  providerCustomerId?: string | null;
  priceCents: number;
  currency: string;
  cycleDays: number;
  /** Start of the first period (also started_at, created_at). */
  startedAt: Date;
  currentPeriodEnd: Date;
  paymentMethodBrand: string | null;
  paymentMethodLast4: string | null;
}

/** Inserts an active plan (checkout finalisation) inside the caller's transaction. */
export async function insertPlan(q: Queryable, input: NewPlan): Promise<PlanRow> {
  return sqlOf(q)
    .insertInto('subscriptions')
    .values({
      user_id: input.userId,
      category: input.category,
      treatment_id: input.treatmentId,
      dosage: input.dosage,
      status: 'active',
      provider: input.provider,
      provider_subscription_id: input.providerSubscriptionId,
      price_cents: input.priceCents,
      currency: input.currency,
      interval: 'day',
      interval_count: input.cycleDays,
      cycle_days: input.cycleDays,
      started_at: input.startedAt,
      current_period_start: input.startedAt,
      current_period_end: input.currentPeriodEnd,
      payment_method_brand: input.paymentMethodBrand,
      payment_method_last4: input.paymentMethodLast4,
      provider_customer_id: input.providerCustomerId ?? null,
      created_at: input.startedAt,
      updated_at: input.startedAt,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** The account's live plan in a category (active, past due or paused), newest first. */
export async function findLivePlan(q: Queryable, userId: string, category: string): Promise<PlanRow | null> {
  const row = await forAccount(q, userId)
    .selectFrom('subscriptions')
    .selectAll()
    .where('category', '=', category)
    .where('status', 'in', LIVE_PLAN_STATUSES)
    .orderBy('created_at', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row ?? null;
}

/** The account's live plan on one treatment (prescribing rules: the plan's dose and paid period). */
export async function findLivePlanOnTreatment(q: Queryable, userId: string, category: string, treatmentId: string) {
  const row = await forAccount(q, userId)
    .selectFrom('subscriptions')
    .select(['dosage', 'started_at', 'current_period_end'])
    .where('category', '=', category)
    .where('treatment_id', '=', treatmentId)
    .where('status', 'in', LIVE_PLAN_STATUSES)
    .orderBy('created_at', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row ?? null;
}

/** Whether the account has a plan that supplies now (active or past due: the journal's rule). */
export async function hasSupplyingPlan(q: Queryable, userId: string): Promise<boolean> {
  const row = await forAccount(q, userId)
    .selectFrom('subscriptions')
    .select('id')
    .where('status', 'in', ['active', 'past_due'])
    .limit(1)
    .executeTakeFirst();
  return Boolean(row);
}

/** One of the account's plans, optionally locked (FOR UPDATE) inside the caller's transaction. */
export async function findOwnPlan(q: Queryable, userId: string, id: string, lock = false): Promise<PlanRow | null> {
  let query = forAccount(q, userId).selectFrom('subscriptions').selectAll().where('id', '=', id);
  if (lock) query = query.forUpdate();
  return (await query.executeTakeFirst()) ?? null;
}

export async function countPlans(q: Queryable, userId: string): Promise<number> {
  const row = await forAccount(q, userId)
    .selectFrom('subscriptions')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** The subscriptions list's `ordering` whitelist (default: newest first). */
export const PLAN_ORDERING = listOrdering(['current_period_end'], '-created_at');
export type PlanOrder = Order<(typeof PLAN_ORDERING.fields)[number]>;

export async function pagePlans(q: Queryable, userId: string, limit: number, offset: number, order: PlanOrder = orderBy({}, PLAN_ORDERING)): Promise<PlanRow[]> {
  return forAccount(q, userId)
    .selectFrom('subscriptions')
    .selectAll()
    .orderBy(order.field, order.direction)
    .orderBy('id', order.direction)
    .limit(limit)
    .offset(offset)
    .execute();
}

/** Columns a status move may set along with the status. */
export type PlanFields = Pick<
  SubscriptionsUpdate,
  'failed_attempts' | 'next_charge_attempt_at' | 'current_period_start' | 'current_period_end' | 'canceled_at' | 'paused_at' | 'cancel_at_period_end' | 'next_delivery_at' | 'paused_by_patient'
>;

/**
 * The status machine's write: moves the account's plan from `from` to `to` (with `fields`) only
 * while it is still in `from`. Throws 409 for a move the machine forbids; returns null when the
 * plan is not the account's or is no longer in `from` (a concurrent move won).
 */
export async function transitionPlan(
  q: Queryable,
  userId: string,
  planId: string,
  from: PlanStatus,
  to: PlanStatus,
  fields: PlanFields = {},
): Promise<PlanRow | null> {
  assertPlanTransition(from, to);
  const row = await forAccount(q, userId)
    .updateTable('subscriptions')
    .set({ ...fields, status: to, updated_at: sql<Date>`now()` })
    .where('id', '=', planId)
    .where('status', '=', from)
    .returningAll()
    .executeTakeFirst();
  return row ?? null;
}

/** Plan columns that are not its status: treatment and dose, the period, early-order marks. */
export type PlanDetails = Pick<
  SubscriptionsUpdate,
  'treatment_id' | 'dosage' | 'current_period_end' | 'postponed_period_end' | 'early_ordered_period_end' | 'next_delivery_at' | 'skipped_period_end' | 'next_cycle_dosage'
>;

export async function updatePlanDetails(q: Queryable, userId: string, planId: string, fields: PlanDetails): Promise<PlanRow | null> {
  const row = await forAccount(q, userId)
    .updateTable('subscriptions')
    .set({ ...fields, updated_at: sql<Date>`now()` })
    .where('id', '=', planId)
    .returningAll()
    .executeTakeFirst();
  return row ?? null;
}

/** Marks the period an early order produced: a second early order waits for the next period. */
export async function markEarlyOrdered(q: Queryable, userId: string, planId: string): Promise<void> {
  await forAccount(q, userId)
    .updateTable('subscriptions')
    .set({ early_ordered_period_end: sql<Date>`current_period_end`, updated_at: sql<Date>`now()` })
    .where('id', '=', planId)
    .execute();
}

/**
 * Sets or clears cancel-at-period-end on one of the account's plans: the ONE check
 * (`canSetCancelAtPeriodEnd`) for the patient's route and the billing portal. Returns the plan, or
 * null when it is not the account's; `ended` when the plan is no longer live.
 */
export async function setCancelAtPeriodEnd(q: Queryable, userId: string, planId: string, cancel: boolean): Promise<PlanRow | 'ended' | null> {
  const plan = await findOwnPlan(q, userId, planId, true);
  if (!plan) return null;
  if (!canSetCancelAtPeriodEnd(plan.status)) return 'ended';
  return forAccount(q, userId)
    .updateTable('subscriptions')
    .set({ cancel_at_period_end: cancel, updated_at: sql<Date>`now()` })
    .where('id', '=', planId)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** A new card on the plan; a past-due plan is retried at the next scheduler run (`retryAt`). */
export async function updatePaymentMethod(q: Queryable, userId: string, planId: string, brand: string, last4: string, retryAt: Date): Promise<void> {
  await forAccount(q, userId)
    .updateTable('subscriptions')
    .set({
      payment_method_brand: brand,
      payment_method_last4: last4,
      next_charge_attempt_at: sql<Date | null>`case when status = 'past_due' then ${retryAt}::timestamptz else next_charge_attempt_at end`,
      updated_at: sql<Date>`now()`,
    })
    .where('id', '=', planId)
    .execute();
}

// ---------------------------------------------------------------- scheduler and provider (any plan)

/** Locks a plan (any account) with its owner's e-mail: the renewal charge of the scheduler. */
export async function lockPlanForScheduler(q: Queryable, planId: string): Promise<(PlanRow & Pick<UsersRow, 'email'>) | null> {
  const row = await sqlOf(q)
    .selectFrom('subscriptions as s')
    .innerJoin('users as u', 'u.id', 's.user_id')
    .selectAll('s')
    .select('u.email')
    .where('s.id', '=', planId)
    .forUpdate('s')
    .executeTakeFirst();
  return row ?? null;
}

/** Locks the plan a payment provider knows by its own id (webhooks). */
export async function lockPlanForProvider(q: Queryable, provider: string, providerSubscriptionId: string): Promise<PlanRow | null> {
  const row = await sqlOf(q)
    .selectFrom('subscriptions')
    .selectAll()
    .where('provider', '=', provider)
    .where('provider_subscription_id', '=', providerSubscriptionId)
    .forUpdate()
    .executeTakeFirst();
  return row ?? null;
}

/** Ends the plans set to cancel whose period is over (providers that do not bill by themselves). */
export async function cancelEndedPlansForScheduler(q: Queryable, now: Date, billedByProvider: string): Promise<void> {
  const from: PlanStatus[] = ['active', 'past_due'];
  for (const f of from) assertPlanTransition(f, 'canceled');
  await sqlOf(q)
    .updateTable('subscriptions')
    .set({ status: 'canceled', canceled_at: sql<Date>`coalesce(canceled_at, ${now}::timestamptz)`, updated_at: sql<Date>`now()` })
    .where('cancel_at_period_end', '=', true)
    .where('status', 'in', from)
    .where('current_period_end', '<=', now)
    .where('provider', '<>', billedByProvider)
    .execute();
}

/** Plans whose renewal screen opens now (RENEWAL_WINDOW_DAYS before the period ends), one per period. */
export async function plansDueForRenewalForScheduler(q: Queryable, now: Date, windowDays: number): Promise<PlanRow[]> {
  return sqlOf(q)
    .selectFrom('subscriptions as s')
    .selectAll('s')
    .where('s.status', '=', 'active')
    .where('s.cancel_at_period_end', '=', false)
    // The next cycle starts at next_delivery_at when the patient moved it (skip, pause, date change).
    .where(sql<boolean>`coalesce(s.next_delivery_at, s.current_period_end) - make_interval(days => ${windowDays}) <= ${now}`)
    .where((eb) =>
      eb.not(
        eb.exists(
          eb
            .selectFrom('consultations as c')
            .select('c.id')
            .whereRef('c.subscription_id', '=', 's.id')
            .where('c.origin', '=', 'renewal')
            .whereRef('c.renewal_period_end', '=', 's.current_period_end'),
        ),
      ),
    )
    .execute();
}

/** A renewal the doctor rejected ends the plan when its period ends. */
export async function cancelRejectedRenewalsForScheduler(q: Queryable, now: Date): Promise<void> {
  const from: PlanStatus[] = ['active', 'paused'];
  for (const f of from) assertPlanTransition(f, 'canceled');
  await sqlOf(q)
    .updateTable('subscriptions as s')
    .set({ status: 'canceled', canceled_at: now, updated_at: sql<Date>`now()` })
    .where('s.status', 'in', from)
    .where('s.current_period_end', '<=', now)
    .where((eb) =>
      eb.exists(
        eb
          .selectFrom('consultations as c')
          .select('c.id')
          .whereRef('c.subscription_id', '=', 's.id')
          .where('c.origin', '=', 'renewal')
          .whereRef('c.renewal_period_end', '=', 's.current_period_end')
          .where('c.status', '=', 'rejected'),
      ),
    )
    .execute();
}

/** A period that ends with the renewal choice still pending pauses the plan; returns the owners. */
export async function pauseMissedRenewalsForScheduler(q: Queryable, now: Date): Promise<(Pick<UsersRow, 'email' | 'locale'> & { user_id: string; subscription_id: string })[]> {
  assertPlanTransition('active', 'paused');
  const paused = await sqlOf(q)
    .updateTable('subscriptions as s')
    .set({ status: 'paused', paused_at: now, updated_at: sql<Date>`now()` })
    .where('s.status', '=', 'active')
    .where(sql<boolean>`coalesce(s.next_delivery_at, s.current_period_end) <= ${now}`)
    .where((eb) =>
      eb.exists(
        eb
          .selectFrom('consultations as c')
          .select('c.id')
          .whereRef('c.subscription_id', '=', 's.id')
          .where('c.origin', '=', 'renewal')
          .where('c.patient_choice_status', '=', 'pending'),
      ),
    )
    .returning(['s.user_id', 's.id'])
    .execute();
  if (!paused.length) return [];
  const owners = await sqlOf(q)
    .selectFrom('users')
    .select(['id', 'email', 'locale'])
    .where(
      'id',
      'in',
      paused.map((p) => p.user_id),
    )
    .execute();
  const byId = new Map(owners.map((o) => [o.id, o]));
  // One mail per paused plan, as before (an account with two paused plans gets two).
  return paused.flatMap((p) => {
    const o = byId.get(p.user_id);
    return o ? [{ email: o.email, locale: o.locale, user_id: p.user_id, subscription_id: p.id }] : [];
  });
}

/** The owner's address and language for a mail about their plan. */
export async function ownerContact(q: Queryable, userId: string): Promise<Pick<UsersRow, 'email' | 'locale'> | null> {
  const row = await sqlOf(q).selectFrom('users').select(['email', 'locale']).where('id', '=', userId).executeTakeFirst();
  return row ?? null;
}

/**
 * The provider's own view of a plan it bills (Stripe's customer.subscription.* events): status,
 * period and cancel-at-period-end. The status moves through the machine; a plan that has ended here
 * stays ended (canceled is final), so a late or replayed event cannot revive it.
 */
export async function syncPlanForProvider(
  q: Queryable,
  provider: string,
  providerSubscriptionId: string,
  update: { status: PlanStatus; cancelAtPeriodEnd: boolean | null; periodStart: Date | null; periodEnd: Date | null; canceledAt: Date | null; now: Date },
): Promise<PlanRow | null> {
  const plan = await lockPlanForProvider(q, provider, providerSubscriptionId);
  if (!plan || plan.status === 'canceled') return plan;
  const from = plan.status as PlanStatus;
  const fields: PlanFields = {
    ...(update.cancelAtPeriodEnd !== null ? { cancel_at_period_end: update.cancelAtPeriodEnd } : {}),
    ...(update.periodStart ? { current_period_start: update.periodStart } : {}),
    ...(update.periodEnd ? { current_period_end: update.periodEnd } : {}),
    ...(update.status === 'canceled' ? { canceled_at: plan.canceled_at ?? update.canceledAt ?? update.now } : {}),
  };
  // paused -> paused is no move: the fields alone change under the same status guard.
  const to = from === 'paused' && update.status === 'paused' ? null : update.status;
  if (to === null) {
    const row = await sqlOf(q)
      .updateTable('subscriptions')
      .set({ ...fields, updated_at: sql<Date>`now()` })
      .where('id', '=', plan.id)
      .where('status', '=', from)
      .returningAll()
      .executeTakeFirst();
    return row ?? null;
  }
  return transitionPlan(q, plan.user_id, plan.id, from, to, fields);
}

/** The answers of the account's first or latest questionnaire submission in a category (renewal screen). */
export async function submissionAnswers(q: Queryable, userId: string, category: string, which: 'first' | 'latest'): Promise<unknown> {
  const row = await forAccount(q, userId)
    .selectFrom('questionnaire_submissions')
    .select(['answers', 'answers_enc'])
    .where('category', '=', category)
    .orderBy('created_at', which === 'first' ? 'asc' : 'desc')
    .limit(1)
    .executeTakeFirst();
  // Answers are sealed at rest (src/lib/sealed.ts).
  return row ? readJson(q, row.answers, row.answers_enc) : null;
}

/** Records (or clears, with null) the provider's draft invoice held for the current period of the account's plan. */
export async function setHeldInvoice(q: Queryable, userId: string, planId: string, invoiceId: string | null): Promise<void> {
  await forAccount(q, userId).updateTable('subscriptions').set({ held_provider_invoice_id: invoiceId, updated_at: sql<Date>`now()` }).where('id', '=', planId).execute();
}

/** Plans with a held provider invoice (any account: the scheduler settles them), oldest period first. */
export async function plansWithHeldInvoicesForScheduler(q: Queryable, limit: number): Promise<PlanRow[]> {
  return sqlOf(q).selectFrom('subscriptions').selectAll().where('held_provider_invoice_id', 'is not', null).orderBy('current_period_end').limit(limit).execute();
}

// ---------------------------------------------------------------- the account's privacy

/** Every plan of the account, oldest first (the data export). */
export async function plansOfAccount(q: Queryable, userId: string): Promise<SubscriptionsRow[]> {
  return forAccount(q, userId).selectFrom('subscriptions').selectAll().orderBy('created_at').orderBy('id').execute();
}

/** The account's live plans (to cancel, at the provider too, before the account is erased). */
export async function livePlansOfAccount(q: Queryable, userId: string) {
  return forAccount(q, userId)
    .selectFrom('subscriptions')
    .select(['id', 'status', 'provider', 'provider_subscription_id'])
    .where('status', 'in', ['active', 'past_due', 'paused'])
    .execute();
}

// ---------------------------------------------------------------- plan management

/** The renewal of one of the account's plans for a period end (skip, pause and date change check it). */
export async function renewalOfPeriod(q: Queryable, userId: string, planId: string, periodEnd: Date) {
  const row = await forAccount(q, userId)
    .selectFrom('consultations')
    .select(['id', 'status', 'patient_choice_status'])
    .where('subscription_id', '=', planId)
    .where('origin', '=', 'renewal')
    .where('renewal_period_end', '=', periodEnd)
    .executeTakeFirst();
  return row ?? null;
}

/** Whether one of the account's plans has a renewal not decided yet (the patient's choice or the doctor's). */
export async function openRenewalOf(q: Queryable, userId: string, planId: string) {
  const row = await forAccount(q, userId)
    .selectFrom('consultations')
    .select(['id', 'status', 'patient_choice_status'])
    .where('subscription_id', '=', planId)
    .where('origin', '=', 'renewal')
    .where('status', 'in', ['pending_review', 'needs_information', 'awaiting_call'])
    .orderBy('created_at', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row ?? null;
}

/**
 * Patients' pauses whose resume date is RENEWAL_WINDOW_DAYS away (any account: the scheduler):
 * `paused` -> `active`, keeping next_delivery_at, so the renewal job opens the renewal of that date.
 */
export async function resumePatientPausesForScheduler(q: Queryable, now: Date, windowDays: number): Promise<number> {
  assertPlanTransition('paused', 'active');
  const rows = await sqlOf(q)
    .updateTable('subscriptions')
    .set({ status: 'active', paused_by_patient: false, paused_at: null, updated_at: sql<Date>`now()` })
    .where('status', '=', 'paused')
    .where('paused_by_patient', '=', true)
    .where('next_delivery_at', 'is not', null)
    .where(sql<boolean>`next_delivery_at - make_interval(days => ${windowDays}) <= ${now}`)
    .returning('id')
    .execute();
  return rows.length;
}
