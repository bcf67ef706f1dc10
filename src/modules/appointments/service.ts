// Appointments and 1:1 calls (docs/appointments.md): the doctors' hours, the slot calendar,
// booking, rescheduling and cancelling, the reminders, the call passes (TURN credentials and the
// signalling channel) and the call's outcome. SQL in repository.ts; the consultation's status is
// the consultations module's (requestCall, through its index.ts).
import { createHash, createHmac, randomBytes } from 'node:crypto';
import type { Queryable } from '../../db/index.ts';
import type { Deps } from '../../deps.ts';
import { fail, fieldErrors, notFound } from '../../http/errors.ts';
import { enqueueMail } from '../../mail/outbox.ts';
import { isLocale, type Locale } from '../../lib/locales.ts';
import { recordAudit } from '../audit/index.ts';
import { findConsultationForClinician, findConsultationForUser, requestCall } from '../consultations/index.ts';
import { notify } from '../notifications/index.ts';
import { recordWeightSeenOnCall } from '../verification/index.ts';
import * as repo from './repository.ts';
import type { AppointmentsRow } from './repository.ts';
import { appointmentMail, calendarFile, SUMMARY, whenText, type AppointmentMailKind } from './mail.ts';
import { isoDate, isoInZone, isTimeZone, localTime, zonedInstant } from '../../lib/zoned-time.ts';

/** Every appointment is one slot of this length on the 15-minute grid (the database checks both). */
export const SLOT_MINUTES = 15;
const SLOT_MS = SLOT_MINUTES * 60_000;
/** The earliest a slot may be booked: this long from now. */
export const MIN_NOTICE_MINUTES = 60;
/** How far ahead slots are offered. */
export const HORIZON_DAYS = 14;
/** A booked call can be moved or cancelled by the patient until this long before it starts. */
export const CHANGE_CUTOFF_HOURS = 2;
/** The call can be joined from this long before its start until its end. */
export const JOIN_EARLY_MINUTES = 10;
/** A participant seen on the channel within this time counts as present. */
const PRESENCE_MS = 15_000;
const DEFAULT_ZONE = 'UTC';

const zoneOf = (tz: string | null | undefined) => (tz && isTimeZone(tz) ? tz : DEFAULT_ZONE);
const localeOf = (l: string | null | undefined): Locale => (isLocale(l) ? l : 'en');

// ---------------------------------------------------------------------------------------------
// Availability

export interface AvailabilityInput {
  timezone: string;
  weekly: repo.WeeklyHours[];
  exceptions: repo.ExceptionHours[];
}

export async function getAvailability(deps: Deps, doctorId: string) {
  const a = await repo.availabilityOfDoctorForClinician(deps.db, doctorId);
  const person = a ? null : await repo.personOf(deps.db, doctorId);
  return availabilityOut(a ?? { timezone: zoneOf(person?.timezone), weekly: [], exceptions: [], updated_at: null });
}

const availabilityOut = (a: repo.Availability) => ({
  timezone: a.timezone,
  weekly: a.weekly,
  exceptions: a.exceptions.map((e) => ({ date: e.date, start: e.start ?? null, end: e.end ?? null })),
  updated_at: a.updated_at ? new Date(a.updated_at).toISOString() : null,
});

export async function putAvailability(deps: Deps, doctorId: string, input: AvailabilityInput) {
  if (!isTimeZone(input.timezone)) throw fieldErrors({ timezone: ['Not a known IANA time zone (e.g. Europe/Berlin).'] });
  await repo.saveAvailabilityForClinician(deps.db, doctorId, input);
  return getAvailability(deps, doctorId);
}

const minutesOf = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));

/** The doctor's slot starts in [from, to), by their hours and exceptions in their time zone. */
export function slotStarts(a: Pick<repo.Availability, 'timezone' | 'weekly' | 'exceptions'>, from: Date, to: Date): Date[] {
  const zone = zoneOf(a.timezone);
  const out: Date[] = [];
  const first = localTime(from, zone);
  // Local calendar days from the day of `from` to the day of `to` (one more for safety at the edges).
  const days = Math.ceil((to.getTime() - from.getTime()) / 86_400_000) + 1;
  for (let i = 0; i <= days; i++) {
    const dayUtc = new Date(Date.UTC(first.year, first.month - 1, first.day + i));
    const date = isoDate({ year: dayUtc.getUTCFullYear(), month: dayUtc.getUTCMonth() + 1, day: dayUtc.getUTCDate() });
    const isoWeekday = ((dayUtc.getUTCDay() + 6) % 7) + 1;
    const exceptions = a.exceptions.filter((e) => e.date === date);
    const hours = exceptions.length
      ? exceptions.filter((e) => e.start && e.end).map((e) => ({ start: e.start as string, end: e.end as string }))
      : a.weekly.filter((w) => w.weekday === isoWeekday);
    for (const h of hours) {
      for (let m = minutesOf(h.start); m + SLOT_MINUTES <= minutesOf(h.end); m += SLOT_MINUTES) {
        const at = zonedInstant(dayUtc.getUTCFullYear(), dayUtc.getUTCMonth() + 1, dayUtc.getUTCDate(), Math.floor(m / 60), m % 60, zone);
        // A local time skipped by a clock change (it does not exist that day) is not a slot.
        const back = localTime(at, zone);
        if (back.hour * 60 + back.minute !== m % (24 * 60) || at.getTime() % SLOT_MS !== 0) continue;
        if (at >= from && at < to) out.push(at);
      }
    }
  }
  return [...new Set(out.map((d) => d.getTime()))].sort((x, y) => x - y).map((t) => new Date(t));
}

// ---------------------------------------------------------------------------------------------
// The desk asks for a call

export async function requestCallForClinician(deps: Deps, doctorId: string, consultationId: string, reason: string) {
  await requestCall(deps, { doctorId, consultationId, reason });
  const c = await findConsultationForClinician(deps.db, consultationId);
  if (!c) throw notFound();
  return { id: c.id, status: c.status, decision_reason: c.decision_reason, doctor_id: c.doctor_id };
}

// ---------------------------------------------------------------------------------------------
// The patient's slots and appointments

async function bookableConsultation(q: Queryable, userId: string, consultationId: string) {
  const c = await findConsultationForUser(q, userId, consultationId);
  if (!c) throw notFound();
  if (c.status !== 'awaiting_call' || !c.doctor_id) throw fail('call_not_requested');
  return { ...c, doctor_id: c.doctor_id };
}

/** The free slots of the consultation's doctor from now + notice to the horizon. */
async function freeSlots(q: Queryable, doctorId: string, now: Date): Promise<Date[]> {
  const a = await repo.availabilityOfDoctorForClinician(q, doctorId);
  if (!a) return [];
  const from = new Date(Math.ceil((now.getTime() + MIN_NOTICE_MINUTES * 60_000) / SLOT_MS) * SLOT_MS);
  const to = new Date(now.getTime() + HORIZON_DAYS * 86_400_000);
  const taken = new Set((await repo.takenStartsForClinician(q, doctorId, from, to)).map((d) => d.getTime()));
  return slotStarts(a, from, to).filter((d) => !taken.has(d.getTime()));
}

export async function slotsForUser(deps: Deps, userId: string, consultationId: string) {
  const c = await bookableConsultation(deps.db, userId, consultationId);
  const zone = zoneOf((await repo.personOf(deps.db, userId))?.timezone);
  const slots = await freeSlots(deps.db, c.doctor_id, deps.clock.now());
  return {
    consultation_id: c.id,
    timezone: zone,
    slot_minutes: SLOT_MINUTES,
    slots: slots.map((s) => ({ starts_at: isoInZone(s, zone), ends_at: isoInZone(new Date(s.getTime() + SLOT_MS), zone) })),
  };
}

export type AppointmentOut = ReturnType<typeof appointmentOut>;

function appointmentOut(a: AppointmentsRow, zone: string, doctor: { first_name: string | null; last_name: string | null } | undefined) {
  const starts = new Date(a.starts_at);
  return {
    id: a.id,
    consultation_id: a.consultation_id,
    status: a.status as 'booked' | 'cancelled' | 'completed',
    starts_at: isoInZone(starts, zone),
    ends_at: isoInZone(new Date(a.ends_at), zone),
    timezone: zone,
    doctor: { id: a.doctor_id, name: [doctor?.first_name, doctor?.last_name].filter(Boolean).join(' ') },
    changeable_until: isoInZone(new Date(starts.getTime() - CHANGE_CUTOFF_HOURS * 3600_000), zone),
    join_opens_at: isoInZone(new Date(starts.getTime() - JOIN_EARLY_MINUTES * 60_000), zone),
    cancelled_by: (a.cancelled_by ?? null) as 'patient' | 'doctor' | null,
    mode: (a.mode ?? null) as 'video' | 'phone' | null,
    outcome: (a.outcome ?? null) as 'completed' | 'no_answer' | 'no_show' | null,
    doctor_reason: a.doctor_reason,
    created_at: new Date(a.created_at).toISOString(),
  };
}

async function outForUser(q: Queryable, userId: string, rows: AppointmentsRow[]) {
  const zone = zoneOf((await repo.personOf(q, userId))?.timezone);
  const doctors = new Map<string, Awaited<ReturnType<typeof repo.personOf>>>();
  for (const r of rows) if (!doctors.has(r.doctor_id)) doctors.set(r.doctor_id, await repo.personOf(q, r.doctor_id));
  return rows.map((r) => appointmentOut(r, zone, doctors.get(r.doctor_id)));
}

const isUniqueViolation = (err: unknown): err is { code: string; constraint?: string } =>
  typeof err === 'object' && err !== null && (err as { code?: unknown }).code === '23505';

/** A unique index refused the row: the slot (or the consultation's one open appointment) is taken. */
function conflictOf(err: unknown): never {
  if (isUniqueViolation(err)) throw fail(err.constraint === 'appointments_consultation_open_key' ? 'appointment_exists' : 'slot_unavailable');
  throw err;
}

function parseStart(startsAt: string): Date {
  const at = new Date(startsAt);
  if (Number.isNaN(at.getTime())) throw fieldErrors({ starts_at: ['Enter a date and time with its offset (ISO 8601).'] });
  return at;
}

async function mailPatient(deps: Deps, q: Queryable, a: AppointmentsRow, kind: AppointmentMailKind, byDoctor = false) {
  const p = await repo.personOf(q, a.user_id);
  if (!p) return;
  const locale = localeOf(p.locale);
  const zone = zoneOf(p.timezone);
  const link = `${deps.config.WEB_APP_URL}/appointments/${a.id}`;
  const starts = new Date(a.starts_at);
  const ics = calendarFile({
    id: a.id,
    starts_at: starts,
    ends_at: new Date(a.ends_at),
    link,
    cancelled: kind === 'cancelled',
    // Increases with every change, so a calendar takes the newest file.
    sequence: Math.max(0, Math.floor((deps.clock.now().getTime() - Date.UTC(2025, 0, 1)) / 1000)),
    summary: SUMMARY[locale],
  });
  await enqueueMail(q, p.email, appointmentMail, locale, { kind, by_doctor: byDoctor, first_name: p.first_name ?? '', when: whenText(starts, locale, zone), link }, [ics]);
}

export async function book(deps: Deps, userId: string, input: { consultation_id: string; starts_at: string }) {
  const at = parseStart(input.starts_at);
  const now = deps.clock.now();
  try {
    const row = await deps.db.tx(async (q) => {
      const c = await bookableConsultation(q, userId, input.consultation_id);
      const free = await freeSlots(q, c.doctor_id, now);
      if (!free.some((d) => d.getTime() === at.getTime())) throw fail('slot_unavailable');
      const a = await repo.insertAppointment(q, userId, { consultationId: c.id, doctorId: c.doctor_id, startsAt: at, endsAt: new Date(at.getTime() + SLOT_MS), now });
      await mailPatient(deps, q, a, 'booked');
      return a;
    });
    const [out] = await outForUser(deps.db, userId, [row]);
    return out!;
  } catch (err) {
    return conflictOf(err);
  }
}

export async function listForUser(deps: Deps, userId: string) {
  const rows = await repo.appointmentsOfUser(deps.db, userId);
  return { count: rows.length, results: await outForUser(deps.db, userId, rows) };
}

export async function getForUser(deps: Deps, userId: string, id: string) {
  const row = await repo.appointmentOfUser(deps.db, userId, id);
  if (!row) throw notFound();
  const [out] = await outForUser(deps.db, userId, [row]);
  return out!;
}

/** The patient's own booked appointment, locked, still before its change cut-off. */
async function changeable(q: Queryable, userId: string, id: string, now: Date) {
  const a = await repo.lockAppointmentOfUser(q, userId, id);
  if (!a) throw notFound();
  if (a.status === 'cancelled') throw fail('appointment_cancelled');
  if (a.status !== 'booked') throw fail('appointment_closed');
  if (now.getTime() > new Date(a.starts_at).getTime() - CHANGE_CUTOFF_HOURS * 3600_000) throw fail('change_window_closed');
  return a;
}

export async function reschedule(deps: Deps, userId: string, id: string, startsAt: string) {
  const at = parseStart(startsAt);
  const now = deps.clock.now();
  try {
    const row = await deps.db.tx(async (q) => {
      const a = await changeable(q, userId, id, now);
      const free = await freeSlots(q, a.doctor_id, now);
      if (!free.some((d) => d.getTime() === at.getTime())) throw fail('slot_unavailable');
      const moved = await repo.moveAppointmentOfUser(q, userId, id, at, new Date(at.getTime() + SLOT_MS), now);
      await mailPatient(deps, q, moved, 'moved');
      return moved;
    });
    const [out] = await outForUser(deps.db, userId, [row]);
    return out!;
  } catch (err) {
    return conflictOf(err);
  }
}

export async function cancel(deps: Deps, userId: string, id: string) {
  const now = deps.clock.now();
  const row = await deps.db.tx(async (q) => {
    await changeable(q, userId, id, now);
    const cancelled = await repo.cancelAppointmentOfUser(q, userId, id, 'patient', now);
    await mailPatient(deps, q, cancelled, 'cancelled');
    return cancelled;
  });
  const [out] = await outForUser(deps.db, userId, [row]);
  return out!;
}

// ---------------------------------------------------------------------------------------------
// The desk's day and the call's outcome

export async function dayForClinician(deps: Deps, doctorId: string, date: string | undefined) {
  const a = await repo.availabilityOfDoctorForClinician(deps.db, doctorId);
  const zone = zoneOf(a?.timezone ?? (await repo.personOf(deps.db, doctorId))?.timezone);
  const day = date ?? isoDate(localTime(deps.clock.now(), zone));
  const [y, m, d] = day.split('-').map(Number) as [number, number, number];
  const from = zonedInstant(y, m, d, 0, 0, zone);
  const to = zonedInstant(y, m, d + 1, 0, 0, zone);
  const rows = await repo.doctorDayForClinician(deps.db, doctorId, from, to);
  return {
    date: day,
    timezone: zone,
    results: rows.map((r) => ({
      ...appointmentOut(r, zone, undefined),
      doctor: { id: r.doctor_id, name: '' },
      patient: { id: r.user_id, first_name: r.first_name ?? '', last_name: r.last_name ?? '' },
      category: r.category,
      consultation_status: r.consultation_status,
      outcome_note: r.outcome_note,
      verified_weight_kg: r.verified_weight_kg === null ? null : Number(r.verified_weight_kg),
    })),
  };
}

export async function recordOutcome(
  deps: Deps,
  doctorId: string,
  id: string,
  input: { mode: 'video' | 'phone'; outcome: 'completed' | 'no_answer' | 'no_show'; note?: string; verified_weight_kg?: number },
) {
  const now = deps.clock.now();
  const row = await deps.db.tx(async (q) => {
    // The doctor who holds the call records how it went (and a weight seen on camera).
    const a = await doctorsBooked(q, doctorId, id);
    if (now.getTime() < new Date(a.starts_at).getTime() - JOIN_EARLY_MINUTES * 60_000) {
      throw fail('call_window_closed', { message: 'The outcome can be recorded from 10 minutes before the call.' });
    }
    if (input.verified_weight_kg !== undefined) {
      const c = await findConsultationForClinician(q, a.consultation_id);
      if (c?.category !== 'weight_loss') throw fieldErrors({ verified_weight_kg: ['A verified weight is recorded for weight-loss consultations only.'] });
    }
    const done = await repo.recordOutcomeOfUser(q, a.user_id, id, { mode: input.mode, outcome: input.outcome, note: input.note || null, weightKg: input.verified_weight_kg ?? null, now });
    await recordAudit(q, { actorId: doctorId, action: 'appointment.outcome_recorded', subjectType: 'consultation', subjectId: a.consultation_id, details: { appointment_id: id, mode: input.mode, outcome: input.outcome } });
    // The weight seen on the scales is the verification module's verified weight (and a journal entry), by this doctor.
    if (input.verified_weight_kg !== undefined) await recordWeightSeenOnCall(q, { userId: a.user_id, weightKg: input.verified_weight_kg, doctorId, at: now, appointmentId: id });
    return done;
  });
  return deskViewOf(deps, row);
}

/** One appointment as the desk's day lists it (the doctor's time zone). */
async function deskViewOf(deps: Deps, row: AppointmentsRow) {
  const day = await dayForClinician(deps, row.doctor_id, isoDate(localTime(new Date(row.starts_at), zoneOf((await repo.availabilityOfDoctorForClinician(deps.db, row.doctor_id))?.timezone))));
  const out = day.results.find((r) => r.id === row.id);
  if (!out) throw notFound();
  return out;
}

/** The signed-in doctor's own appointment, locked, still booked (another doctor's: 404, as a missing one). */
async function doctorsBooked(q: Queryable, doctorId: string, id: string) {
  const found = await repo.appointmentForClinician(q, id);
  if (found?.doctor_id !== doctorId) throw notFound();
  const a = await repo.lockAppointmentOfUser(q, found.user_id, id);
  if (!a) throw notFound();
  if (a.status === 'cancelled') throw fail('appointment_cancelled');
  if (a.status !== 'booked') throw fail('appointment_closed');
  return a;
}

/** The signed-in doctor's own booked appointment, locked, before its start. */
async function doctorsChangeable(q: Queryable, doctorId: string, id: string, now: Date) {
  const a = await doctorsBooked(q, doctorId, id);
  if (now >= new Date(a.starts_at)) throw fail('change_window_closed', { message: 'The call has started: record its outcome instead.' });
  return a;
}

/**
 * The doctor cancels a booked call (until its start), with a reason the patient reads in the app
 * (sealed at rest; the mail says only that the doctor cancelled). The slot is free again and the
 * consultation, still awaiting_call, may book another.
 */
export async function cancelForClinician(deps: Deps, doctorId: string, id: string, reason: string) {
  const now = deps.clock.now();
  const row = await deps.db.tx(async (q) => {
    const a = await doctorsChangeable(q, doctorId, id, now);
    const cancelled = await repo.cancelAppointmentOfUser(q, a.user_id, id, 'doctor', now, reason);
    await mailPatient(deps, q, cancelled, 'cancelled', true);
    await recordAudit(q, { actorId: doctorId, action: 'appointment.cancelled_by_doctor', subjectType: 'consultation', subjectId: a.consultation_id, details: { appointment_id: id } });
    return cancelled;
  });
  return deskViewOf(deps, row);
}

/**
 * The doctor moves a booked call (until its start) to another of their free slots, with a reason the
 * patient reads in the app; the patient gets the updated calendar file. The slot index keeps the
 * doctor from being double-booked: a taken time is 409 slot_unavailable, whoever took it.
 */
export async function rescheduleForClinician(deps: Deps, doctorId: string, id: string, input: { starts_at: string; reason: string }) {
  const at = parseStart(input.starts_at);
  const now = deps.clock.now();
  try {
    const row = await deps.db.tx(async (q) => {
      const a = await doctorsChangeable(q, doctorId, id, now);
      const free = await freeSlots(q, doctorId, now);
      if (!free.some((d) => d.getTime() === at.getTime())) throw fail('slot_unavailable');
      const moved = await repo.moveAppointmentOfUser(q, a.user_id, id, at, new Date(at.getTime() + SLOT_MS), now, input.reason);
      await mailPatient(deps, q, moved, 'moved', true);
      await recordAudit(q, { actorId: doctorId, action: 'appointment.moved_by_doctor', subjectType: 'consultation', subjectId: a.consultation_id, details: { appointment_id: id, from: new Date(a.starts_at).toISOString(), to: at.toISOString() } });
      return moved;
    });
    return await deskViewOf(deps, row);
  } catch (err) {
    return conflictOf(err);
  }
}

// ---------------------------------------------------------------------------------------------
// Joining: a pass to the call, TURN credentials, the signalling channel

/**
 * TURN REST API credentials (the shared-secret scheme coturn implements with `use-auth-secret`):
 * username `<expiry unix seconds>:<user id>`, credential base64(HMAC-SHA1(secret, username)).
 */
export function turnCredentials(secret: string, userId: string, expiresAt: Date) {
  const username = `${Math.floor(expiresAt.getTime() / 1000)}:${userId}`;
  const credential = createHmac('sha1', secret).update(username).digest('base64');
  return { username, credential };
}

const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');

async function issuePass(deps: Deps, a: AppointmentsRow, participantId: string, role: 'patient' | 'doctor') {
  const now = deps.clock.now();
  const starts = new Date(a.starts_at).getTime();
  const ends = new Date(a.ends_at);
  if (a.status === 'cancelled') throw fail('appointment_cancelled');
  if (now.getTime() < starts - JOIN_EARLY_MINUTES * 60_000 || now >= ends) {
    throw fail('call_window_closed', {
      message: `The call can be joined from ${JOIN_EARLY_MINUTES} minutes before its start until its end.`,
      extra: { opens_at: new Date(starts - JOIN_EARLY_MINUTES * 60_000).toISOString(), ends_at: ends.toISOString() },
    });
  }
  const token = randomBytes(32).toString('base64url');
  await repo.insertPass(deps.db, { tokenHash: hashToken(token), appointmentId: a.id, participantId, role, expiresAt: ends });
  const urls = deps.config.TURN_URLS;
  const secret = deps.config.TURN_SECRET;
  const iceServers = urls.length === 0 ? [] : [{ urls, ...(secret ? turnCredentials(secret, participantId, ends) : {}) }];
  return {
    ice_servers: iceServers,
    signalling_url: `${deps.config.PUBLIC_BASE_URL}/v1/calls/signal/`,
    signalling_stream_url: `${deps.config.PUBLIC_BASE_URL}/v1/calls/signal/stream/`,
    token,
    expires_at: ends.toISOString(),
    role,
  };
}

export async function joinForUser(deps: Deps, userId: string, id: string) {
  const a = await repo.appointmentOfUser(deps.db, userId, id);
  if (!a) throw notFound();
  return issuePass(deps, a, userId, 'patient');
}

export async function joinForClinician(deps: Deps, doctorId: string, id: string) {
  const a = await repo.appointmentForClinician(deps.db, id);
  // Only the appointment's doctor: anyone else, as for a missing one.
  if (a?.doctor_id !== doctorId) throw notFound();
  return issuePass(deps, a, doctorId, 'doctor');
}

/** Why a pass no longer opens the channel (the signalling stream's last event says which). */
export type PassClosed = 'unknown' | 'hung_up' | 'cancelled' | 'expired' | 'not_yet';

/** The pass of a token while its call is open, or why not. */
export async function passState(deps: Deps, token: string) {
  const p = await repo.passOf(deps.db, hashToken(token));
  const now = deps.clock.now();
  const closed: PassClosed | null = !p
    ? 'unknown'
    : p.ended_at
      ? 'hung_up'
      : p.status === 'cancelled'
        ? 'cancelled'
        : now >= new Date(p.expires_at)
          ? 'expired'
          : now.getTime() < new Date(p.starts_at).getTime() - JOIN_EARLY_MINUTES * 60_000
            ? 'not_yet'
            : null;
  if (!p || closed) return { open: false as const, closed: closed ?? 'unknown' };
  const peerId = p.participant_id === p.patient_id ? p.doctor_id : p.patient_id;
  return { open: true as const, pass: { ...p, peerId, now } };
}

/** The pass of a token while its call is open, else 404 (an unknown, ended, expired or cancelled call look alike). */
async function openPass(deps: Deps, token: string) {
  const s = await passState(deps, token);
  if (!s.open) throw notFound();
  return s.pass;
}

export async function sendSignal(deps: Deps, input: { token: string; type: 'offer' | 'answer' | 'candidate' | 'bye'; payload: unknown }) {
  const p = await openPass(deps, input.token);
  const seq = await repo.insertSignal(deps.db, { appointmentId: p.appointment_id, senderId: p.participant_id, recipientId: p.peerId, kind: input.type, payload: input.payload ?? null });
  // Hung up: no longer present, and this pass is over (its stream closes; joining again issues a new one).
  if (input.type === 'bye') {
    await repo.endPass(deps.db, p.token_hash, p.now);
    await repo.leaveCall(deps.db, p.appointment_id, p.participant_id);
  }
  return { seq };
}

type OpenPass = Awaited<ReturnType<typeof openPass>>;

/** The participant's signals after `after` and whether the other side is present (marks this one present unless `touch` is false). */
export async function signalsOf(deps: Deps, p: OpenPass, after: number, touch = true) {
  if (touch) await repo.touchPass(deps.db, p.token_hash, p.now);
  const messages = await repo.signalsFor(deps.db, p.appointment_id, p.participant_id, after, 100);
  const seen = await repo.lastSeenOf(deps.db, p.appointment_id, p.peerId);
  return {
    messages: messages.map((m) => ({ seq: m.seq, type: m.kind as 'offer' | 'answer' | 'candidate' | 'bye', payload: m.payload, sent_at: m.created_at.toISOString() })),
    peer_present: seen !== null && p.now.getTime() - seen.getTime() <= PRESENCE_MS,
    expires_at: new Date(p.expires_at).toISOString(),
  };
}

export async function readSignals(deps: Deps, token: string, after: number) {
  return signalsOf(deps, await openPass(deps, token), after);
}

// ---------------------------------------------------------------------------------------------
// Reminders (the scheduler, every pass)

/**
 * Raises the 24-hour and 1-hour reminders that are due: each once per appointment and start time
 * (the notification's key), only if the appointment was booked (or moved) before the reminder's time.
 */
export async function raiseReminders(deps: Deps): Promise<number> {
  const now = deps.clock.now();
  let raised = 0;
  for (const a of await repo.upcomingForScheduler(deps.db, now)) {
    const starts = new Date(a.starts_at).getTime();
    const booked = new Date(a.booked_at).getTime();
    for (const [label, before] of [['24h', 24 * 3600_000], ['1h', 3600_000]] as const) {
      const at = starts - before;
      const nextAt = label === '24h' ? starts - 3600_000 : starts;
      if (now.getTime() < at || now.getTime() >= nextAt || booked > at) continue;
      await notify(deps.db, { kind: 'appointment_reminder', userId: a.user_id, key: `${a.id}:${new Date(a.starts_at).toISOString()}:${label}`, link: `/appointments/${a.id}`, at: now });
      raised++;
    }
  }
  await repo.deleteOldSignalsForScheduler(deps.db, new Date(now.getTime() - 86_400_000));
  return raised;
}

// ---------------------------------------------------------------------------------------------
// The account as a whole (the privacy module's export and erasure)

/** The account's appointments for its data export: times, status, how the call went and its outcome. */
export async function appointmentsOfAccount(q: Queryable, userId: string) {
  return (await repo.appointmentsOfUser(q, userId)).map((a) => ({
    id: a.id,
    consultation_id: a.consultation_id,
    doctor_id: a.doctor_id,
    starts_at: new Date(a.starts_at).toISOString(),
    ends_at: new Date(a.ends_at).toISOString(),
    status: a.status,
    cancelled_at: a.cancelled_at ? new Date(a.cancelled_at).toISOString() : null,
    cancelled_by: a.cancelled_by,
    mode: a.mode,
    outcome: a.outcome,
    outcome_note: a.outcome_note,
    doctor_reason: a.doctor_reason,
    verified_weight_kg: a.verified_weight_kg === null ? null : Number(a.verified_weight_kg),
    created_at: new Date(a.created_at).toISOString(),
  }));
}

/**
 * Account erasure, inside its transaction: booked calls are cancelled (nobody will join them). Calls
 * that took place stay with the consultation they belong to (its retention, docs/privacy.md).
 */
export async function eraseAccountAppointments(q: Queryable, userId: string, now: Date): Promise<void> {
  await repo.cancelBookedOfUser(q, userId, now);
  await repo.deleteCallTrafficOfUser(q, userId);
}
