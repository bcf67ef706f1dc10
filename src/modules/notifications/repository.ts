// SQL of notifications (owner of notification_preferences, push_subscriptions, notification_phones
// and notification_deliveries): every statement on an account's rows is scoped by the account id;
// the dispatcher's and the reminders' sweeps over every account are the `...ForScheduler` functions.
import type { Queryable } from '../../db/index.ts';
import { sql, sqlOf } from '../../db/kysely.ts';
import { forAccount } from '../../db/scope.ts';
import type { Json } from '../../db/schema.ts';
import type { Channel } from './events.ts';

export interface PreferencesRow {
  channels: unknown;
  quiet_start: string | null;
  quiet_end: string | null;
}

export async function preferencesOf(q: Queryable, userId: string): Promise<PreferencesRow | undefined> {
  return forAccount(q, userId).selectFrom('notification_preferences').select(['channels', 'quiet_start', 'quiet_end']).executeTakeFirst();
}

export async function savePreferences(q: Queryable, userId: string, p: { channels: Json; quiet_start: string | null; quiet_end: string | null }): Promise<void> {
  await sqlOf(q)
    .insertInto('notification_preferences')
    .values({ user_id: userId, channels: JSON.stringify(p.channels), quiet_start: p.quiet_start, quiet_end: p.quiet_end })
    .onConflict((oc) =>
      oc.column('user_id').doUpdateSet({ channels: JSON.stringify(p.channels), quiet_start: p.quiet_start, quiet_end: p.quiet_end, updated_at: sql<Date>`now()` }),
    )
    .execute();
}

/** Locks the account's preferences row (made first when absent) so that two PATCHes merge in turn. */
export async function lockPreferences(q: Queryable, userId: string): Promise<PreferencesRow> {
  await sqlOf(q).insertInto('notification_preferences').values({ user_id: userId }).onConflict((oc) => oc.column('user_id').doNothing()).execute();
  return forAccount(q, userId).selectFrom('notification_preferences').select(['channels', 'quiet_start', 'quiet_end']).forUpdate().executeTakeFirstOrThrow();
}

export interface PushSubscription {
  id: string;
  endpoint: string;
  p256dh: string;
  auth: string;
}

/**
 * The browser's subscription, by its endpoint (a capability URL: whoever presents it holds it). A
 * browser that subscribes again keeps its row; one signed in to another account moves to it.
 */
export async function upsertSubscription(q: Queryable, userId: string, s: { endpoint: string; p256dh: string; auth: string }): Promise<string> {
  const row = await sqlOf(q)
    .insertInto('push_subscriptions')
    .values({ user_id: userId, endpoint: s.endpoint, p256dh: s.p256dh, auth: s.auth })
    .onConflict((oc) => oc.column('endpoint').doUpdateSet({ user_id: userId, p256dh: s.p256dh, auth: s.auth }))
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

export async function deleteSubscription(q: Queryable, userId: string, id: string): Promise<boolean> {
  const res = await forAccount(q, userId).deleteFrom('push_subscriptions').where('id', '=', id).executeTakeFirst();
  return Number(res.numDeletedRows) > 0;
}

export async function subscriptionsOf(q: Queryable, userId: string): Promise<PushSubscription[]> {
  return forAccount(q, userId).selectFrom('push_subscriptions').select(['id', 'endpoint', 'p256dh', 'auth']).orderBy('created_at').execute();
}

export async function subscriptionCount(q: Queryable, userId: string): Promise<number> {
  const row = await forAccount(q, userId).selectFrom('push_subscriptions').select(sql<number>`count(*)::int`.as('n')).executeTakeFirst();
  return row?.n ?? 0;
}

export interface PhoneRow {
  phone_e164: string;
  verified_at: Date | null;
  code_hash: string | null;
  code_expires_at: Date | null;
  code_attempts: number;
  updated_at: Date;
}

export async function phoneOf(q: Queryable, userId: string, lock = false): Promise<PhoneRow | undefined> {
  const query = forAccount(q, userId).selectFrom('notification_phones').select(['phone_e164', 'verified_at', 'code_hash', 'code_expires_at', 'code_attempts', 'updated_at']);
  return (lock ? query.forUpdate() : query).executeTakeFirst();
}

/** A new number (or a new code for it): unverified until the code comes back. */
export async function savePhoneCode(q: Queryable, userId: string, phone: string, codeHash: string, expiresAt: Date): Promise<void> {
  const values = { phone_e164: phone, verified_at: null, code_hash: codeHash, code_expires_at: expiresAt, code_attempts: 0, updated_at: new Date() };
  await sqlOf(q)
    .insertInto('notification_phones')
    .values({ user_id: userId, ...values })
    .onConflict((oc) => oc.column('user_id').doUpdateSet(values))
    .execute();
}

export async function countPhoneAttempt(q: Queryable, userId: string): Promise<void> {
  await forAccount(q, userId).updateTable('notification_phones').set((eb) => ({ code_attempts: eb('code_attempts', '+', 1) })).execute();
}

export async function markPhoneVerified(q: Queryable, userId: string, at: Date): Promise<void> {
  await forAccount(q, userId).updateTable('notification_phones').set({ verified_at: at, code_hash: null, code_expires_at: null, code_attempts: 0 }).execute();
}

export async function deletePhone(q: Queryable, userId: string): Promise<boolean> {
  const res = await forAccount(q, userId).deleteFrom('notification_phones').executeTakeFirst();
  return Number(res.numDeletedRows) > 0;
}

/** One outbox row per channel; an event raised again (same key) adds nothing. */
export async function insertDeliveries(q: Queryable, userId: string, kind: string, eventKey: string, channels: readonly Channel[], link: string, at?: Date): Promise<void> {
  if (channels.length === 0) return;
  await sqlOf(q)
    .insertInto('notification_deliveries')
    .values(channels.map((channel) => ({ user_id: userId, kind, event_key: eventKey, channel, link, ...(at ? { created_at: at, next_attempt_at: at } : {}) })))
    .onConflict((oc) => oc.columns(['event_key', 'channel']).doNothing())
    .execute();
}

export interface ClaimedDelivery {
  id: string;
  user_id: string;
  kind: string;
  event_key: string;
  channel: string;
  link: string;
  attempts: number;
  created_at: Date;
}

/** Whether anything is due: a read, so that an idle pass writes nothing. */
export async function hasDueDeliveryForScheduler(q: Queryable, now: Date): Promise<boolean> {
  const row = await sqlOf(q).selectFrom('notification_deliveries').select('id').where('status', '=', 'pending').where('next_attempt_at', '<=', now).limit(1).executeTakeFirst();
  return row !== undefined;
}

/** Claims due rows with a lease, so that several processes never send one row twice (inside a transaction). */
export async function claimDueDeliveriesForScheduler(q: Queryable, now: Date, leaseSeconds: number, limit: number): Promise<ClaimedDelivery[]> {
  const k = sqlOf(q);
  const due = k
    .selectFrom('notification_deliveries')
    .select('id')
    .where('status', '=', 'pending')
    .where('next_attempt_at', '<=', now)
    .orderBy('next_attempt_at')
    .limit(limit)
    .forUpdate()
    .skipLocked();
  return k
    .updateTable('notification_deliveries')
    .set((eb) => ({ next_attempt_at: new Date(now.getTime() + leaseSeconds * 1000), attempts: eb('attempts', '+', 1) }))
    .where('id', 'in', due)
    .returning(['id', 'user_id', 'kind', 'event_key', 'channel', 'link', 'attempts', 'created_at'])
    .execute();
}

export async function finishDelivery(q: Queryable, userId: string, id: string, outcome: { status: 'sent' | 'skipped' | 'failed'; reason?: string; error?: string }, now: Date): Promise<void> {
  await forAccount(q, userId)
    .updateTable('notification_deliveries')
    .set({ status: outcome.status, reason: outcome.reason ?? null, last_error: outcome.error?.slice(0, 500) ?? null, finished_at: now })
    .where('id', '=', id)
    .execute();
}

/** Still pending: tried again at `at` (a retry after a failure, or the end of the quiet hours). */
export async function deferDelivery(q: Queryable, userId: string, id: string, at: Date, note: { reason?: string; error?: string; countAttempt: boolean }): Promise<void> {
  await forAccount(q, userId)
    .updateTable('notification_deliveries')
    .set((eb) => ({
      next_attempt_at: at,
      reason: note.reason ?? null,
      last_error: note.error?.slice(0, 500) ?? null,
      // Waiting for the quiet hours to end is not an attempt.
      attempts: note.countAttempt ? eb.ref('attempts') : eb('attempts', '-', 1),
    }))
    .where('id', '=', id)
    .execute();
}

export interface DeliveryRow {
  id: string;
  kind: string;
  event_key: string;
  channel: string;
  status: string;
  reason: string | null;
  attempts: number;
  created_at: Date;
  finished_at: Date | null;
}

export async function deliveriesOf(q: Queryable, userId: string, limit = 200): Promise<DeliveryRow[]> {
  return forAccount(q, userId)
    .selectFrom('notification_deliveries')
    .select(['id', 'kind', 'event_key', 'channel', 'status', 'reason', 'attempts', 'created_at', 'finished_at'])
    .orderBy('created_at', 'desc')
    .orderBy('id')
    .limit(limit)
    .execute();
}

export interface Recipient {
  email: string;
  locale: string;
  timezone: string;
  erased: boolean;
  disabled: boolean;
}

export async function recipientOf(q: Queryable, userId: string): Promise<Recipient | undefined> {
  const row = await sqlOf(q).selectFrom('users').select(['email', 'locale', 'timezone', 'erased_at', 'disabled_at']).where('id', '=', userId).executeTakeFirst();
  return row && { email: row.email, locale: row.locale, timezone: row.timezone, erased: row.erased_at !== null, disabled: row.disabled_at !== null };
}

/** Whether the account's newest decision on health-data processing is a withdrawal. */
export async function healthConsentWithdrawn(q: Queryable, userId: string): Promise<boolean> {
  const row = await forAccount(q, userId)
    .selectFrom('consents')
    .select('granted')
    .where('kind', '=', 'health_data_processing')
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row !== undefined && !row.granted;
}

/** The account's stored injection plan, when it is switched on. */
export async function activeInjectionPlan(q: Queryable, userId: string) {
  return forAccount(q, userId).selectFrom('injection_plans').select(['anchor_weekday', 'preferred_time', 'starts_on']).where('active', '=', true).executeTakeFirst();
}

export interface ReminderCandidate {
  user_id: string;
  timezone: string;
  anchor_weekday: number | null;
  preferred_time: string | null;
  starts_on: string | null;
  channels: unknown;
}

/**
 * Accounts that turned a reminder on (any channel of injection_day or weigh_in), with their stored
 * injection plan when it is switched on; erased and disabled accounts are left out.
 */
export async function reminderCandidatesForScheduler(q: Queryable): Promise<ReminderCandidate[]> {
  const k = sqlOf(q);
  return k
    .selectFrom('notification_preferences as n')
    .innerJoin('users as u', 'u.id', 'n.user_id')
    .leftJoin('injection_plans as p', (j) => j.onRef('p.user_id', '=', 'n.user_id').on('p.active', '=', true))
    .select(['n.user_id', 'u.timezone', 'p.anchor_weekday', 'p.preferred_time', 'p.starts_on', 'n.channels'])
    .where('u.erased_at', 'is', null)
    .where('u.disabled_at', 'is', null)
    .where(sql<boolean>`(n.channels -> 'injection_day') @> any(array['{"push":true}','{"sms":true}','{"email":true}']::jsonb[])
      or (n.channels -> 'weigh_in') @> any(array['{"push":true}','{"sms":true}','{"email":true}']::jsonb[])`)
    .execute();
}

/** Erasure: everything of the account in this module. */
export async function deleteAccountNotifications(q: Queryable, userId: string): Promise<void> {
  await forAccount(q, userId).deleteFrom('notification_deliveries').execute();
  await forAccount(q, userId).deleteFrom('push_subscriptions').execute();
  await forAccount(q, userId).deleteFrom('notification_phones').execute();
  await forAccount(q, userId).deleteFrom('notification_preferences').execute();
}
