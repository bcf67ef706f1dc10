// SQL of the appointments module: the doctors' hours (clinician_availability), the appointments,
// the call passes and the signalling relay (call_signals). Patient-scoped functions take the account
// id and put it in the SQL (forAccount); the desk's and the scheduler's reads of any account say so
// in their names (...ForClinician, ...ForScheduler).
import type { Queryable } from '../../db/index.ts';
import { sql, sqlOf } from '../../db/kysely.ts';
import { forAccount } from '../../db/scope.ts';
import type { AppointmentsRow as StoredAppointment } from '../../db/schema.ts';
import { readText, sealText } from '../../lib/sealed.ts';

/**
 * An appointment as the module reads it: the doctor's outcome note and reason for a change opened
 * (sealed at rest, migration 1261), the sealed columns left out.
 */
export type AppointmentsRow = Omit<StoredAppointment, 'outcome_note_enc' | 'doctor_reason_enc'> & { doctor_reason: string | null };
function opened<R extends StoredAppointment>(q: Queryable, r: R): Omit<R, 'outcome_note_enc' | 'doctor_reason_enc'> & { doctor_reason: string | null } {
  const { outcome_note_enc, doctor_reason_enc, ...rest } = r;
  return { ...rest, outcome_note: r.outcome_note ?? (outcome_note_enc ? readText(q, null, outcome_note_enc) : null), doctor_reason: doctor_reason_enc ? readText(q, null, doctor_reason_enc) : null };
}
const openedOrUndefined = (q: Queryable, r: StoredAppointment | undefined) => (r ? opened(q, r) : undefined);

export interface WeeklyHours {
  weekday: number;
  start: string;
  end: string;
}
export interface ExceptionHours {
  date: string;
  start?: string | null;
  end?: string | null;
}
export interface Availability {
  timezone: string;
  weekly: WeeklyHours[];
  exceptions: ExceptionHours[];
  updated_at: Date | null;
}

// ---- availability (the doctor's own row)

export async function availabilityOfDoctorForClinician(q: Queryable, doctorId: string): Promise<Availability | null> {
  const row = await sqlOf(q).selectFrom('clinician_availability').selectAll().where('doctor_id', '=', doctorId).executeTakeFirst();
  if (!row) return null;
  return { timezone: row.timezone, weekly: row.weekly as WeeklyHours[], exceptions: row.exceptions as ExceptionHours[], updated_at: row.updated_at };
}

export async function saveAvailabilityForClinician(q: Queryable, doctorId: string, a: Omit<Availability, 'updated_at'>): Promise<void> {
  const values = { timezone: a.timezone, weekly: JSON.stringify(a.weekly), exceptions: JSON.stringify(a.exceptions) };
  await sqlOf(q)
    .insertInto('clinician_availability')
    .values({ doctor_id: doctorId, ...values })
    .onConflict((oc) => oc.column('doctor_id').doUpdateSet({ ...values, updated_at: sql<Date>`now()` }))
    .execute();
}

// ---- people

/** A patient's or doctor's contact and time zone (users has no owner column: its id is the account). */
export async function personOf(q: Queryable, userId: string) {
  return sqlOf(q).selectFrom('users').select(['id', 'email', 'locale', 'first_name', 'last_name', 'timezone']).where('id', '=', userId).executeTakeFirst();
}

// ---- appointments: the patient's own

export async function insertAppointment(q: Queryable, userId: string, a: { consultationId: string; doctorId: string; startsAt: Date; endsAt: Date; now: Date }): Promise<AppointmentsRow> {
  return opened(q, await sqlOf(q)
    .insertInto('appointments')
    .values({ user_id: userId, consultation_id: a.consultationId, doctor_id: a.doctorId, starts_at: a.startsAt, ends_at: a.endsAt, booked_at: a.now })
    .returningAll()
    .executeTakeFirstOrThrow());
}

export async function appointmentsOfUser(q: Queryable, userId: string): Promise<AppointmentsRow[]> {
  return (await forAccount(q, userId).selectFrom('appointments').selectAll().orderBy('starts_at', 'desc').orderBy('id').execute()).map((r) => opened(q, r));
}

export async function appointmentOfUser(q: Queryable, userId: string, id: string): Promise<AppointmentsRow | undefined> {
  return openedOrUndefined(q, await forAccount(q, userId).selectFrom('appointments').selectAll().where('id', '=', id).executeTakeFirst());
}

export async function lockAppointmentOfUser(q: Queryable, userId: string, id: string): Promise<AppointmentsRow | undefined> {
  return openedOrUndefined(q, await forAccount(q, userId).selectFrom('appointments').selectAll().where('id', '=', id).forUpdate().executeTakeFirst());
}

export async function moveAppointmentOfUser(q: Queryable, userId: string, id: string, startsAt: Date, endsAt: Date, now: Date, doctorReason?: string): Promise<AppointmentsRow> {
  return opened(q, await forAccount(q, userId)
    .updateTable('appointments')
    // A move by the patient clears the doctor's earlier reason (it explained another change).
    .set({ starts_at: startsAt, ends_at: endsAt, booked_at: now, doctor_reason_enc: doctorReason === undefined ? null : sealText(q, doctorReason), updated_at: sql<Date>`now()` })
    .where('id', '=', id)
    .where('status', '=', 'booked')
    .returningAll()
    .executeTakeFirstOrThrow());
}

export async function cancelAppointmentOfUser(q: Queryable, userId: string, id: string, by: 'patient' | 'doctor', now: Date, doctorReason?: string): Promise<AppointmentsRow> {
  return opened(q, await forAccount(q, userId)
    .updateTable('appointments')
    .set({ status: 'cancelled', cancelled_at: now, cancelled_by: by, ...(doctorReason === undefined ? {} : { doctor_reason_enc: sealText(q, doctorReason) }), updated_at: sql<Date>`now()` })
    .where('id', '=', id)
    .where('status', '=', 'booked')
    .returningAll()
    .executeTakeFirstOrThrow());
}

export async function recordOutcomeOfUser(
  q: Queryable,
  userId: string,
  id: string,
  o: { mode: 'video' | 'phone'; outcome: 'completed' | 'no_answer' | 'no_show'; note: string | null; weightKg: number | null; now: Date },
): Promise<AppointmentsRow> {
  return opened(q, await forAccount(q, userId)
    .updateTable('appointments')
    // The note is sealed at rest (its plaintext column only holds notes written before migration 1261).
    .set({ status: 'completed', mode: o.mode, outcome: o.outcome, outcome_note: null, outcome_note_enc: o.note === null ? null : sealText(q, o.note), verified_weight_kg: o.weightKg, outcome_at: o.now, updated_at: sql<Date>`now()` })
    .where('id', '=', id)
    .where('status', '=', 'booked')
    .returningAll()
    .executeTakeFirstOrThrow());
}

/** Account erasure: the booked calls are cancelled (the slot is free again). */
export async function cancelBookedOfUser(q: Queryable, userId: string, now: Date): Promise<void> {
  await forAccount(q, userId).updateTable('appointments').set({ status: 'cancelled', cancelled_at: now, cancelled_by: 'patient', updated_at: sql<Date>`now()` }).where('status', '=', 'booked').execute();
}

/**
 * Erasure: the account's call passes and the signalling messages it sent or was sent (connection
 * details, no media), which the daily sweep would otherwise keep until a day after the call.
 */
export async function deleteCallTrafficOfUser(q: Queryable, userId: string): Promise<void> {
  await sqlOf(q).deleteFrom('call_signals').where((eb) => eb.or([eb('sender_id', '=', userId), eb('recipient_id', '=', userId)])).execute();
  await sqlOf(q).deleteFrom('call_passes').where('participant_id', '=', userId).execute();
}

// ---- the desk and the slot calendar (any patient)

/** The starts of a doctor's appointments that hold a slot in [from, to) (only the times: the slot calendar). */
export async function takenStartsForClinician(q: Queryable, doctorId: string, from: Date, to: Date): Promise<Date[]> {
  const rows = await sqlOf(q)
    .selectFrom('appointments')
    .select('starts_at')
    .where('doctor_id', '=', doctorId)
    .where('status', '<>', 'cancelled')
    .where('starts_at', '>=', from)
    .where('starts_at', '<', to)
    .execute();
  return rows.map((r) => new Date(r.starts_at));
}

/** Any appointment (the desk: join, outcome). */
export async function appointmentForClinician(q: Queryable, id: string): Promise<AppointmentsRow | undefined> {
  return openedOrUndefined(q, await sqlOf(q).selectFrom('appointments').selectAll().where('id', '=', id).executeTakeFirst());
}

/** A doctor's appointments in [from, to), with the patient's name (the desk's day of calls). */
export async function doctorDayForClinician(q: Queryable, doctorId: string, from: Date, to: Date) {
  return (await sqlOf(q)
    .selectFrom('appointments as a')
    .innerJoin('users as u', 'u.id', 'a.user_id')
    .innerJoin('consultations as c', 'c.id', 'a.consultation_id')
    .selectAll('a')
    .select(['u.first_name', 'u.last_name', 'c.category', 'c.status as consultation_status'])
    .where('a.doctor_id', '=', doctorId)
    .where('a.starts_at', '>=', from)
    .where('a.starts_at', '<', to)
    .orderBy('a.starts_at')
    .orderBy('a.id')
    .execute()).map((r) => opened(q, r));
}

/** Booked appointments starting in (now, now + 24 h] (the reminders pass). */
export async function upcomingForScheduler(q: Queryable, now: Date): Promise<AppointmentsRow[]> {
  return (await sqlOf(q)
    .selectFrom('appointments')
    .selectAll()
    .where('status', '=', 'booked')
    .where('starts_at', '>', now)
    .where('starts_at', '<=', new Date(now.getTime() + 24 * 3600_000))
    .orderBy('starts_at')
    .execute()).map((r) => opened(q, r));
}

/** Signals and passes of calls that ended more than a day ago: nothing reads them any more. */
export async function deleteOldSignalsForScheduler(q: Queryable, before: Date): Promise<void> {
  await sqlOf(q).deleteFrom('call_signals').where('created_at', '<', before).execute();
  await sqlOf(q).deleteFrom('call_passes').where('expires_at', '<', before).execute();
}

// ---- calls: passes and the signalling relay

export async function insertPass(q: Queryable, p: { tokenHash: string; appointmentId: string; participantId: string; role: 'patient' | 'doctor'; expiresAt: Date }): Promise<void> {
  await sqlOf(q)
    .insertInto('call_passes')
    .values({ token_hash: p.tokenHash, appointment_id: p.appointmentId, participant_id: p.participantId, role: p.role, expires_at: p.expiresAt })
    .execute();
}

/** The pass of a token (by its hash), with its appointment's participants and times. */
export async function passOf(q: Queryable, tokenHash: string) {
  return sqlOf(q)
    .selectFrom('call_passes as p')
    .innerJoin('appointments as a', 'a.id', 'p.appointment_id')
    .select(['p.token_hash', 'p.appointment_id', 'p.participant_id', 'p.role', 'p.expires_at', 'p.ended_at', 'a.user_id as patient_id', 'a.doctor_id', 'a.starts_at', 'a.ends_at', 'a.status'])
    .where('p.token_hash', '=', tokenHash)
    .executeTakeFirst();
}

export async function touchPass(q: Queryable, tokenHash: string, now: Date): Promise<void> {
  await sqlOf(q).updateTable('call_passes').set({ last_seen_at: now }).where('token_hash', '=', tokenHash).execute();
}

/** The pass's participant hung up: the pass ends (its stream closes; joining again issues a new one). */
export async function endPass(q: Queryable, tokenHash: string, now: Date): Promise<void> {
  await sqlOf(q).updateTable('call_passes').set({ ended_at: now, last_seen_at: null }).where('token_hash', '=', tokenHash).where('ended_at', 'is', null).execute();
}

/** The participant hung up: not present any more. */
export async function leaveCall(q: Queryable, appointmentId: string, participantId: string): Promise<void> {
  await sqlOf(q).updateTable('call_passes').set({ last_seen_at: null }).where('appointment_id', '=', appointmentId).where('participant_id', '=', participantId).execute();
}

/** When the participant last read the channel (any of their passes to the call). */
export async function lastSeenOf(q: Queryable, appointmentId: string, participantId: string): Promise<Date | null> {
  const row = await sqlOf(q)
    .selectFrom('call_passes')
    .select(sql<Date | null>`max(last_seen_at)`.as('seen'))
    .where('appointment_id', '=', appointmentId)
    .where('participant_id', '=', participantId)
    .executeTakeFirst();
  return row?.seen ? new Date(row.seen) : null;
}

export async function insertSignal(q: Queryable, s: { appointmentId: string; senderId: string; recipientId: string; kind: string; payload: unknown }): Promise<number> {
  const row = await sqlOf(q)
    .insertInto('call_signals')
    .values({ appointment_id: s.appointmentId, sender_id: s.senderId, recipient_id: s.recipientId, kind: s.kind, payload: JSON.stringify(s.payload) })
    .returning('seq')
    .executeTakeFirstOrThrow();
  return Number(row.seq);
}

export async function signalsFor(q: Queryable, appointmentId: string, recipientId: string, after: number, limit: number) {
  const rows = await sqlOf(q)
    .selectFrom('call_signals')
    .select(['seq', 'kind', 'payload', 'created_at'])
    .where('appointment_id', '=', appointmentId)
    .where('recipient_id', '=', recipientId)
    .where('seq', '>', after)
    .orderBy('seq')
    .limit(limit)
    .execute();
  return rows.map((r) => ({ seq: Number(r.seq), kind: r.kind, payload: r.payload, created_at: new Date(r.created_at) }));
}
