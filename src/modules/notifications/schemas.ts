// Notification request and response shapes (docs/notifications.md).
import { z } from 'zod';
import { EVENTS, EVENT_KINDS, type EventKind } from './events.ts';

const HHMM = z.string().max(5).regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'Use a 24-hour time such as 22:00.');
export const QuietHoursSchema = z
  .object({ start: HHMM, end: HHMM })
  .meta({ description: 'Local times in the patient’s time zone; non-urgent notifications wait until the end. Spans midnight when the end is before the start' });

const switchesOf = (kind: EventKind) => z.strictObject(Object.fromEntries(EVENTS[kind].channels.map((c) => [c, z.boolean()])));
const optionalSwitchesOf = (kind: EventKind) => z.strictObject(Object.fromEntries(EVENTS[kind].channels.map((c) => [c, z.boolean().optional()]))).optional();

export const PreferencesSchema = z.object({
  events: z
    .object(Object.fromEntries(EVENT_KINDS.map((k) => [k, switchesOf(k)])) as { [K in EventKind]: ReturnType<typeof switchesOf> })
    .meta({ description: 'Per event, whether each of its channels is on (e-mail is listed for the reminders; the other events are always mailed by the service)' }),
  quiet_hours: QuietHoursSchema.nullable(),
  time_zone: z.string().meta({ description: 'The time zone quiet hours and reminders use (the profile’s; UTC when unset)' }),
});

export const PreferencesPatch = z.strictObject({
  events: z.strictObject(Object.fromEntries(EVENT_KINDS.map((k) => [k, optionalSwitchesOf(k)])) as { [K in EventKind]: ReturnType<typeof optionalSwitchesOf> }).optional(),
  quiet_hours: QuietHoursSchema.nullable().optional(),
});

export const VapidKeySchema = z.object({ public_key: z.string().meta({ description: 'The application server key (base64url), for PushManager.subscribe' }) });

const b64url = z.string().regex(/^[A-Za-z0-9_-]+={0,2}$/, 'Must be base64url.');
export const PushSubscriptionCreate = z.object({
  endpoint: z.string().min(12).max(2048),
  expirationTime: z.number().nullable().optional(),
  keys: z.object({ p256dh: b64url.min(40).max(200), auth: b64url.min(16).max(64) }),
});
export const CreatedIdSchema = z.object({ id: z.uuid() });
export const IdParams = z.object({ id: z.uuid() });

export const PhoneSchema = z.object({ phone: z.string().nullable().meta({ description: 'E.164, or null when none is set' }), verified: z.boolean() });
export const PhonePut = z.strictObject({
  phone: z.string().min(3).max(40),
  country: z.string().max(2).regex(/^[A-Za-z]{2}$/, 'Use an ISO 3166 alpha-2 code such as DE.').optional().meta({ description: 'Region of a number written without +country code' }),
});
export const PhoneVerify = z.strictObject({ code: z.string().max(6).regex(/^\d{6}$/, 'Enter the 6-digit code.') });
