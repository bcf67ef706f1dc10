// Notification rules (docs/notifications.md): the event API other modules call inside their own
// transaction, the patient's preferences, push subscriptions and phone, and the dispatcher that
// sends the outbox with retries and records what became of every event on every channel.
import { createHmac, randomInt, randomUUID, timingSafeEqual } from 'node:crypto';
import { parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js';
import webpush from 'web-push';
import type { Deps } from '../../deps.ts';
import type { Queryable } from '../../db/index.ts';
import type { Json } from '../../db/schema.ts';
import { fieldErrors, notFound, throttled } from '../../http/errors.ts';
import { errorSummary } from '../../lib/error-fields.ts';
import { isLocale, type Locale } from '../../lib/locales.ts';
import { openText, sealText } from '../../lib/sealed.ts';
import { getOrCreateSecret } from '../../lib/secrets.repository.ts';
import { enqueueMail, type MailTemplate } from '../../mail/outbox.ts';
import { hasActiveTreatment } from '../journal/index.ts';
import { CHANNELS, EVENTS, EVENT_KINDS, PHONE_CODE_TEXT, TEXTS, isEventKind, type Channel, type EventKind, type NotificationText } from './events.ts';
import { postPush } from './push.ts';
import * as repo from './repository.ts';
import { smsSenderFor, type SmsSender } from './sms.ts';
import { isoDate, isTimeZone, localTime, zonedInstant } from '../../lib/zoned-time.ts';

// ---------------------------------------------------------------------------------------------
// The event API

export interface NotificationEvent {
  kind: EventKind;
  userId: string;
  /** What makes the event one event (a message id, a consultation id and its decision): raised twice, sent once. */
  key: string;
  /** The web app's page to open, when not the kind's default. */
  link?: string;
  /** When it happened, by the service's clock (the scheduler's reminders; default: the database's now). */
  at?: Date;
}

/**
 * Raises an event: one outbox row per channel of its kind, written with `q` (the caller's
 * transaction, so the notification exists exactly when the change that causes it is committed).
 * Preferences, quiet hours and consent are applied when it is sent, so a later change still counts.
 */
export async function notify(q: Queryable, event: NotificationEvent): Promise<void> {
  const definition = EVENTS[event.kind];
  await repo.insertDeliveries(q, event.userId, event.kind, `${event.kind}:${event.key}`, definition.channels, event.link ?? definition.link, event.at);
}

// ---------------------------------------------------------------------------------------------
// Preferences

export interface QuietHours {
  start: string;
  end: string;
}

export type ChannelSwitches = Partial<Record<Channel, boolean>>;

export interface Preferences {
  events: Record<EventKind, ChannelSwitches>;
  quiet_hours: QuietHours | null;
  time_zone: string;
}

/** The stored switches over the defaults, only for the channels each kind has. */
function mergedChannels(stored: unknown): Record<EventKind, ChannelSwitches> {
  const source = stored && typeof stored === 'object' ? (stored as Record<string, unknown>) : {};
  const out = {} as Record<EventKind, ChannelSwitches>;
  for (const kind of EVENT_KINDS) {
    const saved = source[kind] && typeof source[kind] === 'object' ? (source[kind] as Record<string, unknown>) : {};
    const switches: ChannelSwitches = {};
    for (const channel of EVENTS[kind].channels) {
      const value = saved[channel];
      switches[channel] = typeof value === 'boolean' ? value : (EVENTS[kind].defaults[channel] ?? false);
    }
    out[kind] = switches;
  }
  return out;
}

const DEFAULT_TIME_ZONE = 'UTC';
/** The patient's time zone (an IANA name from the profile); UTC when unset or unknown. */
export const zoneOf = (timezone: string | null | undefined) => (timezone && isTimeZone(timezone) ? timezone : DEFAULT_TIME_ZONE);

function preferencesOut(row: repo.PreferencesRow | undefined, timezone: string): Preferences {
  return {
    events: mergedChannels(row?.channels),
    quiet_hours: row?.quiet_start && row.quiet_end ? { start: row.quiet_start, end: row.quiet_end } : null,
    time_zone: zoneOf(timezone),
  };
}

export async function getPreferences(deps: Deps, userId: string): Promise<Preferences> {
  const [row, recipient] = await Promise.all([repo.preferencesOf(deps.reader, userId), repo.recipientOf(deps.reader, userId)]);
  return preferencesOut(row, recipient?.timezone ?? '');
}

export interface PreferencesPatch {
  events?: Partial<Record<EventKind, ChannelSwitches>>;
  quiet_hours?: QuietHours | null;
}

export async function patchPreferences(deps: Deps, userId: string, patch: PreferencesPatch): Promise<Preferences> {
  const problems: Record<string, string[]> = {};
  for (const [kind, switches] of Object.entries(patch.events ?? {})) {
    for (const channel of Object.keys(switches ?? {})) {
      if (isEventKind(kind) && !EVENTS[kind].channels.includes(channel as Channel)) problems[`events.${kind}.${channel}`] = [`Not a channel of ${kind}: use ${EVENTS[kind].channels.join(', ')}.`];
    }
  }
  if (patch.quiet_hours && patch.quiet_hours.start === patch.quiet_hours.end) problems['quiet_hours.end'] = ['Must differ from the start.'];
  if (Object.keys(problems).length) throw fieldErrors(problems);
  return deps.db.tx(async (q) => {
    const current = await repo.lockPreferences(q, userId);
    const stored = current.channels && typeof current.channels === 'object' ? (current.channels as Record<string, Record<string, boolean>>) : {};
    const channels: Record<string, Record<string, boolean>> = { ...stored };
    for (const [kind, switches] of Object.entries(patch.events ?? {})) channels[kind] = { ...(stored[kind] ?? {}), ...(switches as Record<string, boolean>) };
    const quiet = patch.quiet_hours === undefined ? (current.quiet_start && current.quiet_end ? { start: current.quiet_start, end: current.quiet_end } : null) : patch.quiet_hours;
    await repo.savePreferences(q, userId, { channels: channels as Json, quiet_start: quiet?.start ?? null, quiet_end: quiet?.end ?? null });
    const recipient = await repo.recipientOf(q, userId);
    return preferencesOut({ channels, quiet_start: quiet?.start ?? null, quiet_end: quiet?.end ?? null }, recipient?.timezone ?? '');
  });
}

// ---------------------------------------------------------------------------------------------
// Quiet hours and reminder times, in the patient's time zone (IANA zones, DST-aware: zoned-time.ts)

const minutesOf = (hhmm: string) => {
  const [h, m] = hhmm.split(':').map(Number);
  return (h ?? 0) * 60 + (m ?? 0);
};

/** When the quiet hours that `now` falls in end, or null when `now` is outside them. */
export function quietHoursEnd(now: Date, timezone: string, quiet: QuietHours | null): Date | null {
  if (!quiet) return null;
  const zone = zoneOf(timezone);
  const local = localTime(now, zone);
  const m = local.hour * 60 + local.minute;
  const start = minutesOf(quiet.start);
  const end = minutesOf(quiet.end);
  const inside = start < end ? m >= start && m < end : m >= start || m < end;
  if (!inside) return null;
  // The end is today when it is still ahead on the clock, else tomorrow.
  const day = local.day + (end > m ? 0 : 1);
  return zonedInstant(local.year, local.month, day, Math.floor(end / 60), end % 60, zone);
}

/**
 * The latest weekly occurrence, at or before `now`, of `weekday` (0 = Monday) at `time` (HH:MM) in
 * the zone, and its local date: computed on the local calendar, so it stays at the same wall-clock
 * time across daylight-saving changes (zoned-time.ts for the times clocks skip or repeat).
 */
export function latestOccurrence(now: Date, timezone: string, weekday: number, time: string): { at: Date; localDate: string } {
  const zone = zoneOf(timezone);
  const local = localTime(now, zone);
  const [h = 0, m = 0] = time.split(':').map(Number);
  const back = (local.weekday - weekday + 7) % 7;
  const on = (daysBack: number) => {
    const date = new Date(Date.UTC(local.year, local.month - 1, local.day - daysBack));
    const ymd = { year: date.getUTCFullYear(), month: date.getUTCMonth() + 1, day: date.getUTCDate() };
    return { at: zonedInstant(ymd.year, ymd.month, ymd.day, h, m, zone), localDate: isoDate(ymd) };
  };
  const candidate = on(back);
  return candidate.at <= now ? candidate : on(back + 7);
}

// ---------------------------------------------------------------------------------------------
// Push subscriptions and the VAPID key pair

interface VapidKeys {
  publicKey: string;
  privateKey: string;
}
const vapidCache = new WeakMap<Deps, Promise<VapidKeys>>();

/**
 * The VAPID key pair: from the environment in production, else generated on first use and kept in
 * the database (sealed with the data key, like the other generated keys every process shares).
 */
export function vapidKeys(deps: Deps): Promise<VapidKeys> {
  let keys = vapidCache.get(deps);
  if (!keys) {
    const { VAPID_PUBLIC_KEY, VAPID_PRIVATE_KEY } = deps.config;
    keys =
      VAPID_PUBLIC_KEY && VAPID_PRIVATE_KEY
        ? Promise.resolve({ publicKey: VAPID_PUBLIC_KEY, privateKey: VAPID_PRIVATE_KEY })
        : getOrCreateSecret(deps.db, 'vapid_p256', sealText(deps.db, JSON.stringify(webpush.generateVAPIDKeys()))).then((sealed) => JSON.parse(openText(deps.db, sealed)) as VapidKeys);
    keys.catch(() => vapidCache.delete(deps));
    vapidCache.set(deps, keys);
  }
  return keys;
}

export async function vapidPublicKey(deps: Deps): Promise<{ public_key: string }> {
  return { public_key: (await vapidKeys(deps)).publicKey };
}

export async function addSubscription(deps: Deps, userId: string, input: { endpoint: string; keys: { p256dh: string; auth: string } }): Promise<{ id: string }> {
  const { endpointProblem } = await import('./push.ts');
  const problem = endpointProblem(input.endpoint, deps.config);
  if (problem) throw fieldErrors({ endpoint: [problem] });
  const p256dh = Buffer.from(input.keys.p256dh, 'base64url');
  if (p256dh.length !== 65 || p256dh[0] !== 4) throw fieldErrors({ 'keys.p256dh': ['Must be an uncompressed P-256 public key (65 bytes, base64url).'] });
  if (Buffer.from(input.keys.auth, 'base64url').length !== 16) throw fieldErrors({ 'keys.auth': ['Must be a 16-byte secret (base64url).'] });
  return { id: await deps.db.tx((q) => repo.upsertSubscription(q, userId, { endpoint: input.endpoint, p256dh: input.keys.p256dh, auth: input.keys.auth })) };
}

export async function removeSubscription(deps: Deps, userId: string, id: string): Promise<void> {
  if (!(await repo.deleteSubscription(deps.db, userId, id))) throw notFound();
}

// ---------------------------------------------------------------------------------------------
// The phone for SMS, verified by a code

const smsCache = new WeakMap<Deps, SmsSender>();
const smsSender = (deps: Deps) => {
  let sender = smsCache.get(deps);
  if (!sender) smsCache.set(deps, (sender = smsSenderFor(deps.config)));
  return sender;
};

const CODE_TTL_MS = 10 * 60 * 1000;
const CODE_RESEND_SECONDS = 60;
const CODE_MAX_ATTEMPTS = 5;
const localeOf = (locale: string | undefined): Locale => (isLocale(locale) ? locale : 'en');
const codeHash = (deps: Deps, userId: string, phone: string, code: string) => createHmac('sha256', deps.secrets.codeKey).update(`phone:${userId}:${phone}:${code}`).digest('base64url');

export async function getPhone(deps: Deps, userId: string): Promise<{ phone: string | null; verified: boolean }> {
  const row = await repo.phoneOf(deps.reader, userId);
  return { phone: row?.phone_e164 ?? null, verified: Boolean(row?.verified_at) };
}

/** Stores the number (E.164) unverified and texts it a code. */
export async function setPhone(deps: Deps, userId: string, input: { phone: string; country?: string }): Promise<{ phone: string; verified: boolean }> {
  const parsed = parsePhoneNumberFromString(input.phone, input.country ? { defaultCountry: input.country.toUpperCase() as CountryCode } : undefined);
  if (!parsed?.isValid()) throw fieldErrors({ phone: ['Not a valid phone number: use the international format, such as +49 151 23456789.'] });
  const phone = parsed.number;
  const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
  const now = deps.clock.now();
  const recipient = await deps.db.tx(async (q) => {
    const current = await repo.phoneOf(q, userId, true);
    if (current?.code_hash && current.updated_at.getTime() > now.getTime() - CODE_RESEND_SECONDS * 1000) {
      throw throttled(CODE_RESEND_SECONDS - (now.getTime() - current.updated_at.getTime()) / 1000);
    }
    await repo.savePhoneCode(q, userId, phone, codeHash(deps, userId, phone, code), new Date(now.getTime() + CODE_TTL_MS));
    return repo.recipientOf(q, userId);
  });
  await smsSender(deps).send({ id: randomUUID(), to: phone, text: PHONE_CODE_TEXT[localeOf(recipient?.locale)](code) });
  return { phone, verified: false };
}

export async function verifyPhone(deps: Deps, userId: string, code: string): Promise<{ phone: string; verified: boolean }> {
  const now = deps.clock.now();
  const outcome = await deps.db.tx(async (q) => {
    const row = await repo.phoneOf(q, userId, true);
    if (!row) throw notFound('No phone number is set.');
    if (row.verified_at) return { phone: row.phone_e164, verified: true, error: null };
    if (!row.code_hash || !row.code_expires_at || row.code_expires_at <= now) return { phone: row.phone_e164, verified: false, error: 'The code has expired: request a new one.' };
    if (row.code_attempts >= CODE_MAX_ATTEMPTS) return { phone: row.phone_e164, verified: false, error: 'Too many attempts: request a new code.' };
    const expected = Buffer.from(row.code_hash);
    const given = Buffer.from(codeHash(deps, userId, row.phone_e164, code));
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) {
      await repo.countPhoneAttempt(q, userId);
      return { phone: row.phone_e164, verified: false, error: 'The code is not valid.' };
    }
    await repo.markPhoneVerified(q, userId, now);
    return { phone: row.phone_e164, verified: true, error: null };
  });
  if (outcome.error) throw fieldErrors({ code: [outcome.error] });
  return { phone: outcome.phone, verified: outcome.verified };
}

export async function removePhone(deps: Deps, userId: string): Promise<void> {
  await repo.deletePhone(deps.db, userId);
}

// ---------------------------------------------------------------------------------------------
// The dispatcher

const LEASE_SECONDS = 120;
const MAX_ATTEMPTS = 8;
/** Retry delay after a failed attempt: 30 s, 1, 2, 4, ... minutes, at most an hour. */
export const retryDelaySeconds = (attempts: number) => Math.min(3600, 30 * 2 ** Math.max(0, Math.min(attempts - 1, 10)));
/** A reminder that could not go out within this time is dropped: a late one is worse than none. */
const REMINDER_STALE_MS = 6 * 3600 * 1000;

export const textOf = (kind: EventKind, locale: string | undefined): NotificationText => TEXTS[localeOf(locale)][kind];

/** The push payload the service worker shows (web/public/sw.js): no health details, a path to open. */
export const pushPayloadOf = (kind: EventKind, locale: string | undefined, link: string, id: string) => {
  const text = textOf(kind, locale);
  return JSON.stringify({ title: text.title, body: text.body, url: link, tag: kind, id });
};

/** The SMS text: the event's text and the web app's address (the content is behind sign-in). */
export const smsTextOf = (kind: EventKind, locale: string | undefined, webAppUrl: string) => `${textOf(kind, locale).body} ${webAppUrl}`;

const reminderMail: MailTemplate<{ kind: EventKind; link: string }> = {
  name: 'notification_reminder',
  ...(Object.fromEntries(
    (Object.keys(TEXTS) as Locale[]).map((locale) => [locale, ({ kind, link }: { kind: EventKind; link: string }) => ({ subject: TEXTS[locale][kind].title, text: `${TEXTS[locale][kind].body}\n\n${link}\n` })]),
  ) as Record<Locale, (v: { kind: EventKind; link: string }) => { subject: string; text: string }>),
};

type Outcome = { status: 'sent' | 'skipped' | 'failed'; reason?: string; error?: string } | { retryAt: Date; reason?: string; error?: string; countAttempt: boolean };

async function deliverPush(deps: Deps, row: repo.ClaimedDelivery, kind: EventKind, locale: string): Promise<Outcome> {
  const subscriptions = await repo.subscriptionsOf(deps.db, row.user_id);
  if (subscriptions.length === 0) return { status: 'skipped', reason: 'no_subscription' };
  const keys = await vapidKeys(deps);
  const subject = deps.config.VAPID_SUBJECT ?? (deps.config.WEB_APP_URL.startsWith('https://') ? deps.config.WEB_APP_URL : 'mailto:privacy@example.org');
  let delivered = 0;
  let gone = 0;
  const errors: string[] = [];
  for (const s of subscriptions) {
    const details = webpush.generateRequestDetails({ endpoint: s.endpoint, keys: { p256dh: s.p256dh, auth: s.auth } }, pushPayloadOf(kind, locale, row.link, row.id), {
      vapidDetails: { subject, publicKey: keys.publicKey, privateKey: keys.privateKey },
      TTL: EVENTS[kind].reminder ? 6 * 3600 : 7 * 24 * 3600,
      contentEncoding: 'aes128gcm',
      urgency: EVENTS[kind].urgent ? 'high' : 'normal',
      topic: kind.replace(/_/g, '-').slice(0, 32),
    });
    try {
      const status = await postPush({ endpoint: details.endpoint, headers: details.headers, body: details.body }, deps.config);
      if (status >= 200 && status < 300) delivered++;
      else if (status === 404 || status === 410) {
        // The browser unsubscribed or the subscription expired: it will never work again.
        gone++;
        await repo.deleteSubscription(deps.db, row.user_id, s.id);
      } else errors.push(`push service answered ${status}`);
    } catch (err) {
      const summary = errorSummary(err);
      errors.push(String(summary.code ?? summary.message ?? 'push failed'));
    }
  }
  if (delivered > 0) return { status: 'sent' };
  if (gone === subscriptions.length) return { status: 'skipped', reason: 'no_subscription' };
  return { retryAt: new Date(), error: errors.join('; '), countAttempt: true };
}

async function deliverSms(deps: Deps, row: repo.ClaimedDelivery, kind: EventKind, locale: string): Promise<Outcome> {
  const phone = await repo.phoneOf(deps.db, row.user_id);
  if (!phone?.verified_at) return { status: 'skipped', reason: 'no_verified_phone' };
  try {
    await smsSender(deps).send({ id: row.id, to: phone.phone_e164, text: smsTextOf(kind, locale, deps.config.WEB_APP_URL) });
    return { status: 'sent' };
  } catch (err) {
    const summary = errorSummary(err);
    return { retryAt: new Date(), error: String(summary.code ?? summary.message ?? 'sms failed'), countAttempt: true };
  }
}

async function decide(deps: Deps, row: repo.ClaimedDelivery, now: Date): Promise<Outcome> {
  if (!isEventKind(row.kind)) return { status: 'skipped', reason: 'unknown_event' };
  const kind = row.kind;
  const definition = EVENTS[kind];
  const channel = row.channel as Channel;
  const recipient = await repo.recipientOf(deps.db, row.user_id);
  if (!recipient || recipient.erased || recipient.disabled) return { status: 'skipped', reason: 'account_closed' };
  if (await repo.healthConsentWithdrawn(deps.db, row.user_id)) return { status: 'skipped', reason: 'consent_withdrawn' };
  if (definition.reminder) {
    if (now.getTime() - row.created_at.getTime() > REMINDER_STALE_MS) return { status: 'skipped', reason: 'expired' };
    const planOn = (await hasActiveTreatment(deps.db, row.user_id, now)) && (kind !== 'injection_day' || (await repo.activeInjectionPlan(deps.db, row.user_id)) !== undefined);
    if (!planOn) return { status: 'skipped', reason: 'plan_stopped' };
  }
  const prefs = preferencesOut(await repo.preferencesOf(deps.db, row.user_id), recipient.timezone);
  if (!prefs.events[kind][channel]) return { status: 'skipped', reason: 'preference_off' };
  if (!definition.urgent) {
    const until = quietHoursEnd(now, recipient.timezone, prefs.quiet_hours);
    if (until) return { retryAt: until, reason: 'quiet_hours', countAttempt: false };
  }
  switch (channel) {
    case 'push':
      return deliverPush(deps, row, kind, recipient.locale);
    case 'sms':
      return deliverSms(deps, row, kind, recipient.locale);
    case 'email':
      await enqueueMail(deps.db, recipient.email, reminderMail, recipient.locale, { kind, link: `${deps.config.WEB_APP_URL}${row.link}` });
      return { status: 'sent' };
  }
}

/** Sends every due outbox row once (a pass); returns how many rows it settled or deferred. */
export async function dispatchDue(deps: Deps): Promise<number> {
  let handled = 0;
  for (;;) {
    const now = deps.clock.now();
    if (!(await repo.hasDueDeliveryForScheduler(deps.db, now))) return handled;
    const batch = await deps.db.tx((q) => repo.claimDueDeliveriesForScheduler(q, now, LEASE_SECONDS, 20));
    if (batch.length === 0) return handled;
    for (const row of batch) {
      handled++;
      let outcome: Outcome;
      try {
        outcome = await decide(deps, row, now);
      } catch (err) {
        outcome = { retryAt: new Date(), error: String(errorSummary(err).code ?? 'dispatch failed'), countAttempt: true };
      }
      if ('retryAt' in outcome) {
        if (outcome.countAttempt && row.attempts >= MAX_ATTEMPTS) {
          await repo.finishDelivery(deps.db, row.user_id, row.id, { status: 'failed', reason: 'retries_exhausted', error: outcome.error }, now);
        } else {
          const at = outcome.countAttempt ? new Date(now.getTime() + retryDelaySeconds(row.attempts) * 1000) : outcome.retryAt;
          await repo.deferDelivery(deps.db, row.user_id, row.id, at, outcome);
        }
        if (outcome.error) deps.log.warn({ notificationId: row.id, kind: row.kind, channel: row.channel, attempt: row.attempts, error: outcome.error }, 'notification delivery failed');
      } else {
        await repo.finishDelivery(deps.db, row.user_id, row.id, outcome, now);
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Scheduled reminders

/** How late a reminder may still be raised after its time (a pass missed while the process was down). */
const REMINDER_WINDOW_MS = 2 * 3600 * 1000;
const WEIGH_IN_TIME = '08:00';

/** Raises the injection-day and weigh-in reminders that are due (idempotent: keyed by account and local date). */
export async function raiseDueReminders(deps: Deps): Promise<number> {
  const now = deps.clock.now();
  let raised = 0;
  for (const c of await repo.reminderCandidatesForScheduler(deps.db)) {
    const channels = mergedChannels(c.channels);
    const on = (kind: EventKind) => CHANNELS.some((ch) => channels[kind][ch] === true);
    const due: { kind: EventKind; weekday: number; time: string }[] = [];
    if (on('injection_day') && c.anchor_weekday !== null && c.preferred_time) due.push({ kind: 'injection_day', weekday: c.anchor_weekday, time: c.preferred_time.slice(0, 5) });
    if (on('weigh_in')) due.push({ kind: 'weigh_in', weekday: c.anchor_weekday ?? 0, time: WEIGH_IN_TIME });
    for (const d of due) {
      const { at, localDate } = latestOccurrence(now, c.timezone, d.weekday, d.time);
      if (now.getTime() - at.getTime() > REMINDER_WINDOW_MS) continue;
      if (c.starts_on && localDate < c.starts_on) continue;
      if (!(await hasActiveTreatment(deps.db, c.user_id, now))) continue;
      await notify(deps.db, { kind: d.kind, userId: c.user_id, key: `${c.user_id}:${localDate}`, at: now });
      raised++;
    }
  }
  return raised;
}

// ---------------------------------------------------------------------------------------------
// The account's data (privacy: export and erasure)

export async function notificationsOfAccount(q: Queryable, userId: string) {
  const [prefs, recipient, subscriptions, phone] = await Promise.all([repo.preferencesOf(q, userId), repo.recipientOf(q, userId), repo.subscriptionCount(q, userId), repo.phoneOf(q, userId)]);
  return {
    preferences: preferencesOut(prefs, recipient?.timezone ?? ''),
    // Whether browsers are subscribed, not their endpoints: those are the push services' capabilities.
    push_subscriptions: subscriptions,
    phone: phone ? { number: phone.phone_e164, verified: phone.verified_at !== null } : null,
  };
}

export async function eraseAccountNotifications(q: Queryable, userId: string): Promise<void> {
  await repo.deleteAccountNotifications(q, userId);
}
