// Appointments and calls (docs/appointments.md): the doctor's hours, the request for a call, slots in
// the patient's time zone, booking (parallel bookings, two processes), other accounts, the change
// cut-off, cancellation, the calendar file, joining within the window with TURN credentials, the
// signalling relay, the reminders and the call's outcome.
import { createHmac, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { anotherInstance, call, createTestContext, firstRow, newStaff, seedPatient, type Instance, type Patient, type TestContext } from './support/harness.ts';
import { slotStarts } from '../src/modules/appointments/service.ts';

const TURN_SECRET = 'test-turn-secret-0123456789';
let ctx: TestContext;
let other: Instance;
let doctor: Patient;
let otherDoctor: Patient;

const ALL_DAY = [1, 2, 3, 4, 5, 6, 7].map((weekday) => ({ weekday, start: '00:00', end: '24:00' }));

/** New tokens for an account (the clock moved past the old ones' lifetime). */
async function refresh(...people: Patient[]) {
  const { issueTokenPair } = await import('../src/modules/accounts/tokens.ts');
  for (const p of people) Object.assign(p, await issueTokenPair(ctx.deps, ctx.db, p.id));
}

async function consultationFor(p: Patient, category = 'weight_loss', status = 'pending_review'): Promise<string> {
  const row = firstRow(await ctx.db.query<{ id: string }>(`insert into consultations (user_id, category, status, plan) values ($1, $2, $3, 'one_off') returning id`, [p.id, category, status]));
  return row.id;
}

async function awaitingCall(p: Patient, by: Patient = doctor, category = 'weight_loss'): Promise<string> {
  const id = await consultationFor(p, category);
  const res = await call(ctx, 'POST', `/v1/clinician/consultations/${id}/request-call/`, { token: by.access, json: { reason: 'Please show the scales on camera.' } });
  expect(res.status, res.text).toBe(200);
  return id;
}

async function slots(p: Patient, consultationId: string) {
  const res = await call(ctx, 'GET', `/v1/users/appointments/slots/?consultation_id=${consultationId}`, { token: p.access });
  expect(res.status, res.text).toBe(200);
  return res.body as { timezone: string; slots: { starts_at: string; ends_at: string }[] };
}

async function bookAt(p: Patient, consultationId: string, startsAt: string) {
  return call(ctx, 'POST', '/v1/users/appointments/', { token: p.access, json: { consultation_id: consultationId, starts_at: startsAt } });
}

/** The first free slot at least `minMs` from the service's now. */
async function slotAfter(p: Patient, consultationId: string, minMs: number): Promise<string> {
  const now = ctx.deps.clock.now().getTime();
  const s = (await slots(p, consultationId)).slots.find((x) => new Date(x.starts_at).getTime() >= now + minMs);
  if (!s) throw new Error('no slot');
  return s.starts_at;
}

beforeAll(async () => {
  ctx = await createTestContext({ TURN_URLS: 'turn:turn.test.local:3478?transport=udp,turns:turn.test.local:5349', TURN_SECRET });
  other = await anotherInstance(ctx, { TURN_URLS: 'turn:turn.test.local:3478', TURN_SECRET });
  doctor = await newStaff(ctx, 'doctor');
  otherDoctor = await newStaff(ctx, 'doctor');
  for (const d of [doctor, otherDoctor]) {
    const res = await call(ctx, 'PUT', '/v1/clinician/availability/', { token: d.access, json: { timezone: 'Europe/Berlin', weekly: ALL_DAY, exceptions: [] } });
    expect(res.status, res.text).toBe(200);
  }
});
afterAll(async () => {
  await other?.close();
  await ctx?.close();
});

describe('the slot calendar', () => {
  it('makes 15-minute slots from weekly hours and exceptions in the doctor’s time zone, across a clock change', () => {
    const a = {
      timezone: 'Europe/Berlin',
      weekly: [{ weekday: 1, start: '09:00', end: '10:00' }, { weekday: 7, start: '02:00', end: '03:30' }],
      exceptions: [{ date: '2026-12-14', start: null, end: null }, { date: '2026-12-15', start: '14:00', end: '14:30' }],
    };
    // Monday 7 December 2026: 09:00-10:00 Berlin (UTC+1) = 08:00-09:00Z, four slots.
    expect(slotStarts(a, new Date('2026-12-07T00:00:00Z'), new Date('2026-12-08T00:00:00Z')).map((d) => d.toISOString())).toEqual([
      '2026-12-07T08:00:00.000Z',
      '2026-12-07T08:15:00.000Z',
      '2026-12-07T08:30:00.000Z',
      '2026-12-07T08:45:00.000Z',
    ]);
    // Monday 14th is a day off; Tuesday 15th has only its exception's hours.
    expect(slotStarts(a, new Date('2026-12-14T00:00:00Z'), new Date('2026-12-16T00:00:00Z')).map((d) => d.toISOString())).toEqual(['2026-12-15T13:00:00.000Z', '2026-12-15T13:15:00.000Z']);
    // Sunday 29 March 2026: 02:00-03:00 does not exist in Berlin; 03:00 and 03:15 (CEST, UTC+2) do.
    expect(slotStarts(a, new Date('2026-03-29T00:00:00Z'), new Date('2026-03-30T00:00:00Z')).map((d) => d.toISOString())).toEqual(['2026-03-29T01:00:00.000Z', '2026-03-29T01:15:00.000Z']);
  });

  it('validates the hours', async () => {
    const bad = await call(ctx, 'PUT', '/v1/clinician/availability/', { token: doctor.access, json: { timezone: 'Mars/Olympus', weekly: ALL_DAY, exceptions: [] } });
    expect(bad.status).toBe(400);
    expect(bad.body.timezone).toBeDefined();
    const offGrid = await call(ctx, 'PUT', '/v1/clinician/availability/', { token: doctor.access, json: { timezone: 'Europe/Berlin', weekly: [{ weekday: 1, start: '09:10', end: '10:00' }] } });
    expect(offGrid.status).toBe(400);
    const got = await call(ctx, 'GET', '/v1/clinician/availability/', { token: doctor.access });
    expect(got.status).toBe(200);
    expect(got.body.timezone).toBe('Europe/Berlin');
    expect(got.body.weekly).toHaveLength(7);
    const patient = await seedPatient(ctx);
    expect((await call(ctx, 'GET', '/v1/clinician/availability/', { token: patient.access })).status).toBe(403);
  });
});

describe('asking for a call', () => {
  it('moves the consultation to awaiting_call with the reason the patient reads', async () => {
    const p = await seedPatient(ctx, { timezone: 'Asia/Kolkata' });
    const id = await awaitingCall(p);
    const seen = await call(ctx, 'GET', `/v1/users/consultations/${id}/`, { token: p.access });
    expect(seen.status, seen.text).toBe(200);
    expect(seen.body.status).toBe('awaiting_call');
    expect(seen.body.decision_reason).toBe('Please show the scales on camera.');
    // Not twice, and not from a decided consultation.
    const again = await call(ctx, 'POST', `/v1/clinician/consultations/${id}/request-call/`, { token: doctor.access, json: { reason: 'Again' } });
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('invalid_status_transition');
    const approved = await consultationFor(p, 'weight_loss', 'approved');
    expect((await call(ctx, 'POST', `/v1/clinician/consultations/${approved}/request-call/`, { token: doctor.access, json: { reason: 'x' } })).status).toBe(409);
  });

  it('offers slots only when a call was asked for, in the patient’s time zone', async () => {
    const p = await seedPatient(ctx, { timezone: 'Asia/Kolkata' });
    const pending = await consultationFor(p);
    const notAsked = await call(ctx, 'GET', `/v1/users/appointments/slots/?consultation_id=${pending}`, { token: p.access });
    expect(notAsked.status).toBe(409);
    expect(notAsked.body.code).toBe('call_not_requested');
    const id = await awaitingCall(p);
    const s = await slots(p, id);
    expect(s.timezone).toBe('Asia/Kolkata');
    expect(s.slots.length).toBeGreaterThan(100);
    for (const slot of s.slots.slice(0, 5)) {
      expect(slot.starts_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:00\+05:30$/);
      expect(new Date(slot.ends_at).getTime() - new Date(slot.starts_at).getTime()).toBe(15 * 60_000);
      // At least an hour from now.
      expect(new Date(slot.starts_at).getTime()).toBeGreaterThanOrEqual(ctx.deps.clock.now().getTime() + 3600_000 - 1000);
    }
  });
});

describe('booking', () => {
  it('books a slot (201) with a confirmation mail carrying the calendar file, and takes the slot off the list', async () => {
    const p = await seedPatient(ctx, { timezone: 'Europe/Lisbon', locale: 'pt' });
    const id = await awaitingCall(p);
    const at = await slotAfter(p, id, 26 * 3600_000);
    const res = await bookAt(p, id, at);
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({ consultation_id: id, status: 'booked', timezone: 'Europe/Lisbon', doctor: { id: doctor.id } });
    expect(new Date(res.body.starts_at).getTime()).toBe(new Date(at).getTime());
    expect((await slots(p, id)).slots.map((s) => s.starts_at)).not.toContain(at);
    // One open appointment per consultation.
    const second = await bookAt(p, id, await slotAfter(p, id, 30 * 3600_000));
    expect(second.status).toBe(409);
    expect(second.body.code).toBe('appointment_exists');

    await ctx.flushMail();
    const mail = ctx.mails.filter((m) => m.to === p.email && m.attachments?.length).at(-1);
    expect(mail?.subject).toBe('A sua chamada com o seu médico está marcada');
    const ics = mail!.attachments![0]!;
    expect(ics.filename).toBe('appointment.ics');
    expect(ics.content_type).toMatch(/^text\/calendar/);
    const start = new Date(at).toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');
    const end = new Date(new Date(at).getTime() + 15 * 60_000).toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');
    expect(ics.content).toContain('BEGIN:VCALENDAR');
    expect(ics.content).toContain('VERSION:2.0');
    expect(ics.content).toContain(`UID:${res.body.id}@patient-treatment-service`);
    expect(ics.content).toContain(`DTSTART:${start}`);
    expect(ics.content).toContain(`DTEND:${end}`);
    expect(ics.content).toContain('STATUS:CONFIRMED');
    expect(ics.content).toContain('SUMMARY:Videochamada com o seu médico');
    // No health details in the mail or the event.
    expect(`${mail!.text}${ics.content}`).not.toMatch(/weight|scales|wegovy/i);
    // Lines end in CRLF (RFC 5545 3.1).
    expect(ics.content.split('\r\n').length).toBeGreaterThan(8);
  });

  it('refuses a time that is not a free slot', async () => {
    const p = await seedPatient(ctx);
    const id = await awaitingCall(p);
    const at = new Date(await slotAfter(p, id, 5 * 3600_000));
    for (const t of [new Date(at.getTime() + 5 * 60_000), new Date(ctx.deps.clock.now().getTime() + 60_000), new Date(at.getTime() + 30 * 86_400_000)]) {
      const res = await bookAt(p, id, t.toISOString());
      expect(res.status, t.toISOString()).toBe(409);
      expect(res.body.code).toBe('slot_unavailable');
    }
    expect((await bookAt(p, id, 'tomorrow')).status).toBe(400);
  });

  it('gives one slot to one of several patients booking it at once, on two processes', async () => {
    const patients = await Promise.all([0, 1, 2, 3].map(() => seedPatient(ctx)));
    const ids: string[] = [];
    for (const p of patients) ids.push(await awaitingCall(p));
    const at = await slotAfter(patients[0]!, ids[0]!, 3 * 86_400_000);
    const results = await Promise.all(
      patients.map((p, i) =>
        call(i % 2 ? { app: other.app } : ctx, 'POST', '/v1/users/appointments/', { token: p.access, json: { consultation_id: ids[i], starts_at: at } }),
      ),
    );
    expect(results.map((r) => r.status).sort()).toEqual([201, 409, 409, 409]);
    for (const r of results.filter((x) => x.status === 409)) expect(r.body.code).toBe('slot_unavailable');
    const held = await ctx.db.query(`select count(*)::int as n from appointments where doctor_id = $1 and starts_at = $2 and status <> 'cancelled'`, [doctor.id, at]);
    expect(held[0]!.n).toBe(1);
  });

  it('the database itself never double-books a doctor, nor takes an off-grid time', async () => {
    const p = await seedPatient(ctx);
    const [a, b] = [await awaitingCall(p), await awaitingCall(p)];
    const at = new Date(Math.ceil((Date.now() + 40 * 86_400_000) / 900_000) * 900_000);
    const insert = (consultation: string, t: Date) =>
      ctx.db.query(`insert into appointments (user_id, consultation_id, doctor_id, starts_at, ends_at) values ($1, $2, $3, $4, $5)`, [p.id, consultation, doctor.id, t, new Date(t.getTime() + 900_000)]);
    await insert(a, at);
    await expect(insert(b, at)).rejects.toMatchObject({ code: '23505' });
    await expect(insert(b, new Date(at.getTime() + 5 * 60_000))).rejects.toMatchObject({ code: '23514' });
    // Another doctor's same time is free.
    await ctx.db.query(`insert into appointments (user_id, consultation_id, doctor_id, starts_at, ends_at) values ($1, $2, $3, $4, $5)`, [p.id, b, otherDoctor.id, at, new Date(at.getTime() + 900_000)]);
  });
});

describe('other accounts', () => {
  it('sees another patient’s appointment as missing (404), and another doctor cannot join it', async () => {
    const owner = await seedPatient(ctx);
    const stranger = await seedPatient(ctx);
    const id = await awaitingCall(owner);
    const booked = await bookAt(owner, id, await slotAfter(owner, id, 2 * 86_400_000));
    expect(booked.status).toBe(201);
    const aid = booked.body.id as string;
    const missing = await call(ctx, 'GET', '/v1/users/appointments/00000000-0000-4000-8000-000000000000/', { token: stranger.access });
    expect(missing.status).toBe(404);
    for (const [method, path, json] of [
      ['GET', `/v1/users/appointments/${aid}/`, undefined],
      ['POST', `/v1/users/appointments/${aid}/cancel/`, undefined],
      ['POST', `/v1/users/appointments/${aid}/reschedule/`, { starts_at: booked.body.starts_at }],
      ['POST', `/v1/users/appointments/${aid}/join/`, undefined],
      ['GET', `/v1/users/appointments/slots/?consultation_id=${id}`, undefined],
    ] as const) {
      const res = await call(ctx, method, path, { token: stranger.access, ...(json ? { json } : {}) });
      expect(res.status, path).toBe(404);
      expect(res.body).toEqual(missing.body);
    }
    expect((await bookAt(stranger, id, booked.body.starts_at)).status).toBe(404);
    expect((await call(ctx, 'GET', '/v1/users/appointments/', { token: stranger.access })).body.count).toBe(0);
    expect((await call(ctx, 'POST', `/v1/clinician/appointments/${aid}/join/`, { token: otherDoctor.access })).status).toBe(404);
    // The patient's own list has it.
    const list = await call(ctx, 'GET', '/v1/users/appointments/', { token: owner.access });
    expect(list.body.results.map((a: { id: string }) => a.id)).toEqual([aid]);
  });
});

describe('the account as a whole', () => {
  it('exports the appointments, and erasure cancels the booked ones (the slot is free again)', async () => {
    const p = await seedPatient(ctx);
    const id = await awaitingCall(p);
    const at = await slotAfter(p, id, 6 * 86_400_000);
    const booked = await bookAt(p, id, at);
    expect(booked.status).toBe(201);
    const exported = await call(ctx, 'GET', '/v1/users/me/export/', { token: p.access });
    expect(exported.status, exported.text).toBe(200);
    expect(exported.body.appointments).toMatchObject([{ id: booked.body.id, consultation_id: id, status: 'booked', starts_at: new Date(at).toISOString() }]);
    const erased = await call(ctx, 'DELETE', '/v1/users/me/', { token: p.access, json: { confirm: 'DELETE' } });
    expect(erased.status, erased.text).toBeLessThan(300);
    const rows = await ctx.db.query(`select status, cancelled_by from appointments where id = $1`, [booked.body.id]);
    expect(rows[0]).toMatchObject({ status: 'cancelled', cancelled_by: 'patient' });
    const held = await ctx.db.query(`select count(*)::int as n from appointments where doctor_id = $1 and starts_at = $2 and status <> 'cancelled'`, [doctor.id, at]);
    expect(held[0]!.n).toBe(0);
  });
});

describe('rescheduling and cancelling', () => {
  it('moves and cancels until 2 hours before; a cancelled call frees its slot and answers 410', async () => {
    const p = await seedPatient(ctx);
    const id = await awaitingCall(p);
    const first = await slotAfter(p, id, 4 * 86_400_000);
    const booked = await bookAt(p, id, first);
    const aid = booked.body.id as string;
    const later = await slotAfter(p, id, 5 * 86_400_000);
    const moved = await call(ctx, 'POST', `/v1/users/appointments/${aid}/reschedule/`, { token: p.access, json: { starts_at: later } });
    expect(moved.status, moved.text).toBe(200);
    expect(new Date(moved.body.starts_at).getTime()).toBe(new Date(later).getTime());
    expect((await slots(p, id)).slots.map((s) => new Date(s.starts_at).getTime())).toContain(new Date(first).getTime());
    const cancelled = await call(ctx, 'POST', `/v1/users/appointments/${aid}/cancel/`, { token: p.access });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({ status: 'cancelled', cancelled_by: 'patient' });
    const again = await call(ctx, 'POST', `/v1/users/appointments/${aid}/cancel/`, { token: p.access });
    expect(again.status).toBe(410);
    expect(again.body.code).toBe('appointment_cancelled');
    const join = await call(ctx, 'POST', `/v1/users/appointments/${aid}/join/`, { token: p.access });
    expect(join.status).toBe(410);
    expect(join.body.code).toBe('appointment_cancelled');
    // Free again, and the consultation can book another.
    expect((await bookAt(p, id, later)).status).toBe(201);
    await ctx.flushMail();
    const cancelMail = ctx.mails.filter((m) => m.to === p.email && m.attachments?.some((a) => a.content.includes('STATUS:CANCELLED')));
    expect(cancelMail).toHaveLength(1);
  });

  it('refuses changes within 2 hours of the call', async () => {
    const p = await seedPatient(ctx);
    const id = await awaitingCall(p);
    const soon = (await slots(p, id)).slots[0]!.starts_at;
    const booked = await bookAt(p, id, soon);
    expect(booked.status).toBe(201);
    const res = await call(ctx, 'POST', `/v1/users/appointments/${booked.body.id}/cancel/`, { token: p.access });
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('change_window_closed');
    const move = await call(ctx, 'POST', `/v1/users/appointments/${booked.body.id}/reschedule/`, { token: p.access, json: { starts_at: await slotAfter(p, id, 86_400_000) } });
    expect(move.body.code).toBe('change_window_closed');
  });
});

describe('the doctor cancels or moves a call from the desk', () => {
  it('moves to another free slot and cancels with a reason the patient reads; never double-booked; only the appointment’s doctor', async () => {
    const p = await seedPatient(ctx, { timezone: 'Europe/Berlin' });
    const q = await seedPatient(ctx);
    const id = await awaitingCall(p);
    const other = await awaitingCall(q);
    const first = await slotAfter(p, id, 8 * 86_400_000);
    const aid = (await bookAt(p, id, first)).body.id as string;
    const taken = await slotAfter(q, other, 9 * 86_400_000);
    expect((await bookAt(q, other, taken)).status).toBe(201);
    const reason = 'I am away that morning; sorry for the change.';

    // Another doctor, a patient, a missing reason.
    const path = `/v1/clinician/appointments/${aid}`;
    expect((await call(ctx, 'POST', `${path}/cancel/`, { token: otherDoctor.access, json: { reason } })).status).toBe(404);
    expect((await call(ctx, 'POST', `${path}/reschedule/`, { token: otherDoctor.access, json: { starts_at: first, reason } })).status).toBe(404);
    expect((await call(ctx, 'POST', `${path}/cancel/`, { token: p.access, json: { reason } })).status).toBe(403);
    const noReason = await call(ctx, 'POST', `${path}/cancel/`, { token: doctor.access, json: { reason: ' ' } });
    expect(noReason.status).toBe(400);
    expect(noReason.body.reason).toBeDefined();

    // The doctor is never double-booked: the other patient's time is refused, as is an off-grid time.
    const clash = await call(ctx, 'POST', `${path}/reschedule/`, { token: doctor.access, json: { starts_at: taken, reason } });
    expect(clash.status).toBe(409);
    expect(clash.body.code).toBe('slot_unavailable');
    const offGrid = await call(ctx, 'POST', `${path}/reschedule/`, { token: doctor.access, json: { starts_at: new Date(new Date(first).getTime() + 7 * 60_000).toISOString(), reason } });
    expect(offGrid.body.code).toBe('slot_unavailable');

    const later = await slotAfter(p, id, 10 * 86_400_000);
    await ctx.flushMail();
    const before = ctx.mails.length;
    const moved = await call(ctx, 'POST', `${path}/reschedule/`, { token: doctor.access, json: { starts_at: later, reason } });
    expect(moved.status, moved.text).toBe(200);
    expect(moved.body).toMatchObject({ id: aid, status: 'booked', doctor_reason: reason, patient: { id: p.id } });
    expect(new Date(moved.body.starts_at).getTime()).toBe(new Date(later).getTime());
    const seen = await call(ctx, 'GET', `/v1/users/appointments/${aid}/`, { token: p.access });
    expect(seen.body).toMatchObject({ status: 'booked', doctor_reason: reason });
    expect(new Date(seen.body.starts_at).getTime()).toBe(new Date(later).getTime());
    // The old slot is free again; the reason is sealed at rest.
    expect((await slots(p, id)).slots.map((x) => new Date(x.starts_at).getTime())).toContain(new Date(first).getTime());
    const row = firstRow(await ctx.db.query(`select * from appointments where id = $1`, [aid]));
    expect(row.doctor_reason_enc).toMatch(/^v2\./);
    expect(JSON.stringify(row)).not.toContain('away that morning');

    const cancelled = await call(ctx, 'POST', `${path}/cancel/`, { token: doctor.access, json: { reason } });
    expect(cancelled.status, cancelled.text).toBe(200);
    expect(cancelled.body).toMatchObject({ status: 'cancelled', cancelled_by: 'doctor', doctor_reason: reason });
    expect((await call(ctx, 'POST', `${path}/cancel/`, { token: doctor.access, json: { reason } })).status).toBe(410);
    expect((await call(ctx, 'POST', `${path}/reschedule/`, { token: doctor.access, json: { starts_at: later, reason } })).status).toBe(410);
    expect((await call(ctx, 'GET', `/v1/users/appointments/${aid}/`, { token: p.access })).body).toMatchObject({ status: 'cancelled', cancelled_by: 'doctor' });

    // The patient is told by mail, with the calendar file, that the doctor made the change (not why).
    await ctx.flushMail();
    const mails = ctx.mails.slice(before).filter((m) => m.to === p.email);
    expect(mails.map((m) => m.subject).sort()).toEqual(['Your call with your doctor has moved', 'Your call with your doctor is cancelled']);
    for (const m of mails) {
      expect(m.text).toContain('Your doctor made this change.');
      expect(m.text).not.toContain('away that morning');
      expect(m.attachments?.[0]?.filename).toBe('appointment.ics');
    }
    expect(mails.find((m) => m.subject.endsWith('cancelled'))!.attachments![0]!.content).toContain('STATUS:CANCELLED');
    // The consultation may book another call.
    expect((await bookAt(p, id, first)).status).toBe(201);
    const audit = await ctx.db.query(`select action from audit_log where subject_id = $1 and action like 'appointment.%by_doctor' order by action`, [id]);
    expect(audit.map((a) => a.action)).toEqual(['appointment.cancelled_by_doctor', 'appointment.moved_by_doctor']);
  });
});

/** A server-sent event stream read with fetch (the pass in a header), its events parsed as they come. */
async function openStream(base: string, token: string, headers: Record<string, string> = {}) {
  const abort = new AbortController();
  const res = await fetch(`${base}/v1/calls/signal/stream/`, { headers: { 'x-call-token': token, ...headers }, signal: abort.signal });
  const events: { event: string; data: any; id?: string }[] = [];
  const comments: string[] = [];
  let closed = false;
  if (res.ok && res.body) {
    const reader = res.body.getReader();
    const decoder = new TextDecoder();
    void (async () => {
      let buffer = '';
      for (;;) {
        const chunk = await reader.read().catch(() => ({ done: true as const, value: undefined }));
        if (chunk.done) break;
        buffer += decoder.decode(chunk.value, { stream: true });
        for (let i = buffer.indexOf('\n\n'); i >= 0; i = buffer.indexOf('\n\n')) {
          const block = buffer.slice(0, i);
          buffer = buffer.slice(i + 2);
          const e: { event: string; data: any; id?: string } = { event: 'message', data: undefined };
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) comments.push(line.slice(1).trim());
            else if (line.startsWith('event: ')) e.event = line.slice(7);
            else if (line.startsWith('data: ')) e.data = JSON.parse(line.slice(6));
            else if (line.startsWith('id: ')) e.id = line.slice(4);
          }
          if (e.data !== undefined) events.push(e);
        }
      }
      closed = true;
    })();
  }
  const waitFor = async <T>(what: string, fn: () => T | undefined, ms = 8000): Promise<T> => {
    const until = Date.now() + ms;
    for (;;) {
      const v = fn();
      if (v !== undefined && v !== false) return v;
      if (Date.now() > until) throw new Error(`stream: timed out waiting for ${what} (events ${JSON.stringify(events)})`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  return { res, events, comments, isClosed: () => closed, waitFor, close: () => abort.abort() };
}

// The clock only moves forward: these run last.
describe('reminders, joining, signalling and the outcome', () => {
  it('sends the 24-hour and 1-hour reminders once, joins only within the window, relays signals between the two participants, records the outcome', async () => {
    const p = await seedPatient(ctx, { timezone: 'Europe/Berlin' });
    const id = await awaitingCall(p);
    const at = new Date(await slotAfter(p, id, 26 * 3600_000));
    const booked = await bookAt(p, id, at.toISOString());
    const aid = booked.body.id as string;
    const reminders = async () => (await ctx.db.query(`select event_key from notification_deliveries where user_id = $1 and kind = 'appointment_reminder' order by event_key`, [p.id])).map((r) => r.event_key as string);

    await ctx.deps.scheduler.runDue();
    expect(await reminders()).toEqual([]);
    // Too early to join.
    const early = await call(ctx, 'POST', `/v1/users/appointments/${aid}/join/`, { token: p.access });
    expect(early.status).toBe(409);
    expect(early.body.code).toBe('call_window_closed');
    expect(new Date(early.body.opens_at).getTime()).toBe(at.getTime() - 10 * 60_000);

    await ctx.deps.clock.advance(at.getTime() - 24 * 3600_000 + 60_000 - ctx.deps.clock.now().getTime());
    await refresh(p, doctor, otherDoctor);
    await ctx.deps.scheduler.runDue();
    await ctx.deps.scheduler.runDue();
    const key24 = `appointment_reminder:${aid}:${at.toISOString()}:24h`;
    expect(new Set(await reminders())).toEqual(new Set([key24]));

    await ctx.deps.clock.advance(at.getTime() - 3600_000 + 60_000 - ctx.deps.clock.now().getTime());
    await refresh(p, doctor, otherDoctor);
    await ctx.deps.scheduler.runDue();
    expect(new Set(await reminders())).toEqual(new Set([key24, `appointment_reminder:${aid}:${at.toISOString()}:1h`]));

    // 11 minutes before: still closed; 9 minutes before: open for both participants only.
    await ctx.deps.clock.advance(at.getTime() - 11 * 60_000 - ctx.deps.clock.now().getTime());
    await refresh(p, doctor, otherDoctor);
    expect((await call(ctx, 'POST', `/v1/users/appointments/${aid}/join/`, { token: p.access })).status).toBe(409);
    await ctx.deps.clock.advance(2 * 60_000);
    const pj = await call(ctx, 'POST', `/v1/users/appointments/${aid}/join/`, { token: p.access });
    expect(pj.status, pj.text).toBe(200);
    expect(pj.body.expires_at).toBe(new Date(at.getTime() + 15 * 60_000).toISOString());
    expect(pj.body.signalling_url).toMatch(/\/v1\/calls\/signal\/$/);
    const ice = pj.body.ice_servers[0];
    expect(ice.urls).toEqual(['turn:turn.test.local:3478?transport=udp', 'turns:turn.test.local:5349']);
    expect(ice.username).toBe(`${(at.getTime() + 15 * 60_000) / 1000}:${p.id}`);
    expect(ice.credential).toBe(createHmac('sha1', TURN_SECRET).update(ice.username).digest('base64'));
    // A second process started now (a process reads the moved test clock when it starts).
    const second = await anotherInstance(ctx, { TURN_URLS: 'turn:turn.test.local:3478', TURN_SECRET });
    onTestFinished(() => second.close());
    const dj = await call({ app: second.app }, 'POST', `/v1/clinician/appointments/${aid}/join/`, { token: doctor.access });
    expect(dj.status, dj.text).toBe(200);
    expect(dj.body.ice_servers[0].username).toBe(`${(at.getTime() + 15 * 60_000) / 1000}:${doctor.id}`);
    expect(dj.body.token).not.toBe(pj.body.token);

    // Signalling: the patient on one process, the doctor on the other.
    const read = (app: { app: typeof ctx.app }, token: string, after = 0) => call(app, 'GET', `/v1/calls/signal/?after=${after}`, { headers: { 'x-call-token': token } });
    const firstRead = await read(ctx, pj.body.token);
    expect(firstRead.status).toBe(200);
    expect(firstRead.body).toMatchObject({ messages: [], peer_present: false });
    const offer = await call(ctx, 'POST', '/v1/calls/signal/', { json: { token: pj.body.token, type: 'offer', payload: { type: 'offer', sdp: 'v=0 o=- 1 2 IN IP4 127.0.0.1' } } });
    expect(offer.status, offer.text).toBe(202);
    const atDoctor = await read({ app: second.app }, dj.body.token);
    expect(atDoctor.body.peer_present).toBe(true);
    expect(atDoctor.body.messages).toHaveLength(1);
    expect(atDoctor.body.messages[0]).toMatchObject({ type: 'offer', payload: { type: 'offer', sdp: 'v=0 o=- 1 2 IN IP4 127.0.0.1' } });
    // The sender does not get its own signal back.
    expect((await read(ctx, pj.body.token)).body.messages).toEqual([]);
    await call({ app: second.app }, 'POST', '/v1/calls/signal/', { json: { token: dj.body.token, type: 'answer', payload: { type: 'answer', sdp: 'v=0' } } });
    const answer = await read(ctx, pj.body.token, 0);
    expect(answer.body.messages.map((m: { type: string }) => m.type)).toEqual(['answer']);
    expect((await read(ctx, pj.body.token, answer.body.messages[0].seq)).body.messages).toEqual([]);
    // Hanging up: the other side reads the bye and no longer sees the doctor present.
    expect((await read(ctx, pj.body.token)).body.peer_present).toBe(true);
    await call({ app: second.app }, 'POST', '/v1/calls/signal/', { json: { token: dj.body.token, type: 'bye', payload: null } });
    const bye = await read(ctx, pj.body.token, answer.body.messages[0].seq);
    expect(bye.body.messages.map((m: { type: string }) => m.type)).toEqual(['bye']);
    expect(bye.body.peer_present).toBe(false);
    // A made-up token is nobody's.
    expect((await read(ctx, 'x'.repeat(43))).status).toBe(404);
    expect((await call(ctx, 'POST', '/v1/calls/signal/', { json: { token: 'x'.repeat(43), type: 'bye', payload: null } })).status).toBe(404);

    // The desk's day lists the call; the outcome (video, with the weight seen on camera).
    const day = await call(ctx, 'GET', `/v1/clinician/appointments/?date=${booked.body.starts_at.slice(0, 10)}`, { token: doctor.access });
    expect(day.status).toBe(200);
    expect(day.body.results.map((a: { id: string }) => a.id)).toContain(aid);
    const logged = await ctx.db.query(`select count(*)::int as n from access_log where actor_id = $1 and resource_type = 'consultation' and resource_id = $2`, [doctor.id, id]);
    expect(logged[0]!.n).toBeGreaterThan(0);
    const outcome = await call(ctx, 'POST', `/v1/clinician/appointments/${aid}/outcome/`, { token: doctor.access, json: { mode: 'video', outcome: 'completed', note: 'Seen; continue.', verified_weight_kg: 92.4 } });
    expect(outcome.status, outcome.text).toBe(200);
    expect(outcome.body).toMatchObject({ status: 'completed', mode: 'video', outcome: 'completed', outcome_note: 'Seen; continue.', verified_weight_kg: 92.4 });
    // The note is sealed at rest.
    const stored = firstRow(await ctx.db.query(`select * from appointments where id = $1`, [aid]));
    expect(stored.outcome_note).toBeNull();
    expect(stored.outcome_note_enc).toMatch(/^v2\./);
    expect(JSON.stringify(stored)).not.toContain('Seen; continue.');
    // The weight seen on camera is the patient's verified weight, by this doctor, and a journal entry.
    const verification = await call(ctx, 'GET', '/v1/users/verification/', { token: p.access });
    expect(verification.status, verification.text).toBe(200);
    expect(verification.body.weight).toMatchObject({ status: 'verified', weight_kg: 92.4 });
    expect(verification.body.requirements.find((r: { category: string }) => r.category === 'weight_loss')?.missing ?? []).not.toContain('weight');
    const weights = await ctx.db.query(`select method, photo_key, decided_by, status from weight_verifications where user_id = $1`, [p.id]);
    expect(weights).toEqual([{ method: 'video_call', photo_key: null, decided_by: doctor.id, status: 'verified' }]);
    const entry = await ctx.db.query(`select verified_by from weight_entries where user_id = $1`, [p.id]);
    expect(entry.map((e) => e.verified_by)).toEqual([doctor.id]);
    // A note written before sealing (plaintext) is sealed by the start-up pass (and `reencrypt`); reads do not change.
    await ctx.db.query(`update appointments set outcome_note = 'An old plaintext note.', outcome_note_enc = null where id = $1`, [aid]);
    const { sealPlaintextRows } = await import('../src/lib/sealed-columns.repository.ts');
    expect((await sealPlaintextRows(ctx.db)).appointments).toBeGreaterThanOrEqual(1);
    const resealed = firstRow(await ctx.db.query(`select outcome_note, outcome_note_enc from appointments where id = $1`, [aid]));
    expect(resealed.outcome_note).toBeNull();
    expect(resealed.outcome_note_enc).toMatch(/^v2\./);
    const exported = await call(ctx, 'GET', '/v1/users/me/export/', { token: p.access });
    expect(exported.body.appointments.find((a: { id: string }) => a.id === aid)).toMatchObject({ outcome_note: 'An old plaintext note.', verified_weight_kg: 92.4 });
    expect((await call(ctx, 'POST', `/v1/clinician/appointments/${aid}/outcome/`, { token: doctor.access, json: { mode: 'phone', outcome: 'completed' } })).body.code).toBe('appointment_closed');

    // After the end: closed, and the old passes no longer relay.
    await ctx.deps.clock.advance(at.getTime() + 15 * 60_000 - ctx.deps.clock.now().getTime());
    await refresh(p, doctor, otherDoctor);
    expect((await call(ctx, 'POST', `/v1/users/appointments/${aid}/join/`, { token: p.access })).status).toBe(409);
    expect((await read(ctx, pj.body.token)).status).toBe(404);
  });

  it('records a phone call in place of the video call; a weight only for weight loss', async () => {
    await refresh(doctor, otherDoctor);
    const p = await seedPatient(ctx);
    const id = await awaitingCall(p, doctor, 'hair_loss');
    const booked = await bookAt(p, id, (await slots(p, id)).slots[0]!.starts_at);
    const aid = booked.body.id as string;
    const tooEarly = await call(ctx, 'POST', `/v1/clinician/appointments/${aid}/outcome/`, { token: doctor.access, json: { mode: 'phone', outcome: 'completed' } });
    expect(tooEarly.body.code).toBe('call_window_closed');
    await ctx.deps.clock.advance(new Date(booked.body.starts_at).getTime() - ctx.deps.clock.now().getTime());
    await refresh(p, doctor, otherDoctor);
    // Another doctor cannot record the outcome of this doctor's call: the same answer as a missing one.
    const foreign = await call(ctx, 'POST', `/v1/clinician/appointments/${aid}/outcome/`, { token: otherDoctor.access, json: { mode: 'phone', outcome: 'completed' } });
    const missing = await call(ctx, 'POST', `/v1/clinician/appointments/${randomUUID()}/outcome/`, { token: otherDoctor.access, json: { mode: 'phone', outcome: 'completed' } });
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual(missing.body);
    const weight = await call(ctx, 'POST', `/v1/clinician/appointments/${aid}/outcome/`, { token: doctor.access, json: { mode: 'phone', outcome: 'completed', verified_weight_kg: 80 } });
    expect(weight.status).toBe(400);
    expect(weight.body.verified_weight_kg).toBeDefined();
    const phone = await call(ctx, 'POST', `/v1/clinician/appointments/${aid}/outcome/`, { token: doctor.access, json: { mode: 'phone', outcome: 'completed', note: 'Called by phone: camera did not work.' } });
    expect(phone.status, phone.text).toBe(200);
    expect(phone.body).toMatchObject({ mode: 'phone', outcome: 'completed' });
    const mine = await call(ctx, 'GET', `/v1/users/appointments/${aid}/`, { token: p.access });
    expect(mine.body).toMatchObject({ status: 'completed', mode: 'phone' });
    expect(mine.body.outcome_note).toBeUndefined();
    // The doctor decides as usual from awaiting_call.
    const decided = await call(ctx, 'POST', `/v1/clinician/consultations/${id}/request-information/`, { token: doctor.access, json: { decision_reason: 'Please send a photo.' } });
    expect(decided.status, decided.text).toBe(200);
  });

  it('pushes the other participant’s signals over server-sent events, across two processes; only to the two participants; closes on hang-up and at the end', async () => {
    await refresh(doctor, otherDoctor);
    const p = await seedPatient(ctx);
    const stranger = await seedPatient(ctx);
    const id = await awaitingCall(p);
    const at = new Date(await slotAfter(p, id, 2 * 3600_000));
    const aid = (await bookAt(p, id, at.toISOString())).body.id as string;
    // Before the window nobody gets a pass, so no stream opens.
    expect((await call(ctx, 'POST', `/v1/users/appointments/${aid}/join/`, { token: p.access })).body.code).toBe('call_window_closed');
    await ctx.deps.clock.advance(at.getTime() - 5 * 60_000 - ctx.deps.clock.now().getTime());
    await refresh(p, stranger, doctor, otherDoctor);
    const second = await anotherInstance(ctx, { TURN_URLS: 'turn:turn.test.local:3478', TURN_SECRET });
    onTestFinished(() => second.close());
    const base1 = await ctx.app.listen({ port: 0, host: '127.0.0.1' });
    const base2 = await second.app.listen({ port: 0, host: '127.0.0.1' });

    const pj = await call(ctx, 'POST', `/v1/users/appointments/${aid}/join/`, { token: p.access });
    const dj = await call({ app: second.app }, 'POST', `/v1/clinician/appointments/${aid}/join/`, { token: doctor.access });
    expect([pj.status, dj.status]).toEqual([200, 200]);
    // A third account: no pass to this call (another patient, another doctor), and a made-up pass opens nothing.
    expect((await call(ctx, 'POST', `/v1/users/appointments/${aid}/join/`, { token: stranger.access })).status).toBe(404);
    expect((await call(ctx, 'POST', `/v1/clinician/appointments/${aid}/join/`, { token: otherDoctor.access })).status).toBe(404);
    const nobody = await openStream(base1, 'x'.repeat(43));
    expect(nobody.res.status).toBe(404);
    expect(await nobody.res.json()).toEqual({ detail: 'Not found.' });
    expect((await fetch(`${base1}/v1/calls/signal/stream/`)).status).toBe(400);

    // The patient listens on one process, the doctor on the other.
    const patientStream = await openStream(base1, pj.body.token);
    onTestFinished(() => patientStream.close());
    expect(patientStream.res.status).toBe(200);
    expect(patientStream.res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(patientStream.res.headers.get('cache-control')).toBe('no-store');
    await patientStream.waitFor('the first presence', () => patientStream.events.find((e) => e.event === 'presence'));
    expect(patientStream.events[0]).toMatchObject({ event: 'presence', data: { peer_present: false, expires_at: new Date(at.getTime() + 15 * 60_000).toISOString() } });
    expect(patientStream.comments).toContain('connected');
    let doctorStream = await openStream(base2, dj.body.token);
    onTestFinished(() => doctorStream.close());
    await doctorStream.waitFor('the patient present', () => doctorStream.events.find((e) => e.event === 'presence' && e.data.peer_present));
    await patientStream.waitFor('the doctor present', () => patientStream.events.find((e) => e.event === 'presence' && e.data.peer_present));

    // The doctor's offer, sent through the patient's process, reaches the patient's stream (and not the doctor's own).
    const sdp = { type: 'offer', sdp: 'v=0 o=- 7 2 IN IP4 127.0.0.1' };
    const sent = await call(ctx, 'POST', '/v1/calls/signal/', { json: { token: dj.body.token, type: 'offer', payload: sdp } });
    expect(sent.status).toBe(202);
    const offer = await patientStream.waitFor('the offer', () => patientStream.events.find((e) => e.event === 'signal'));
    expect(offer).toMatchObject({ id: String(sent.body.seq), data: { seq: sent.body.seq, type: 'offer', payload: sdp } });
    await call({ app: second.app }, 'POST', '/v1/calls/signal/', { json: { token: pj.body.token, type: 'answer', payload: { type: 'answer', sdp: 'v=0' } } });
    await doctorStream.waitFor('the answer', () => doctorStream.events.find((e) => e.event === 'signal' && e.data.type === 'answer'));
    expect(doctorStream.events.filter((e) => e.event === 'signal').map((e) => e.data.type)).toEqual(['answer']);
    // A reconnecting client (here through the other process) resumes after the last event it had (Last-Event-ID): nothing is replayed.
    const resumed = await openStream(base2, pj.body.token, { 'last-event-id': String(sent.body.seq) });
    await resumed.waitFor('presence', () => resumed.events.find((e) => e.event === 'presence'));
    await new Promise((r) => setTimeout(r, 700));
    expect(resumed.events.filter((e) => e.event === 'signal')).toEqual([]);
    resumed.close();

    // The patient hangs up: the doctor's stream gets the bye and the patient goes absent; the patient's stream ends, and its pass is spent.
    await call(ctx, 'POST', '/v1/calls/signal/', { json: { token: pj.body.token, type: 'bye', payload: null } });
    await patientStream.waitFor('the end of the patient’s stream', () => patientStream.isClosed());
    expect(patientStream.events.at(-1)).toEqual({ event: 'end', data: { reason: 'hung_up' } });
    await doctorStream.waitFor('the bye', () => doctorStream.events.find((e) => e.event === 'signal' && e.data.type === 'bye'));
    await doctorStream.waitFor('the patient absent', () => doctorStream.events.filter((e) => e.event === 'presence').at(-1)?.data.peer_present === false || undefined);
    expect((await openStream(base1, pj.body.token)).res.status).toBe(404);
    expect((await call(ctx, 'POST', '/v1/calls/signal/', { json: { token: pj.body.token, type: 'offer', payload: sdp } })).status).toBe(404);

    // One stream per pass and process: a newer one takes over and the older ends (`replaced`).
    const older = doctorStream;
    doctorStream = await openStream(base2, dj.body.token);
    onTestFinished(() => doctorStream.close());
    await older.waitFor('the older stream replaced', () => older.isClosed());
    expect(older.events.at(-1)).toEqual({ event: 'end', data: { reason: 'replaced' } });
    await doctorStream.waitFor('presence on the new stream', () => doctorStream.events.find((e) => e.event === 'presence'));

    // At the end of the slot the doctor's stream ends by itself, and the pass opens nothing any more.
    await ctx.deps.clock.advance(at.getTime() + 15 * 60_000 - ctx.deps.clock.now().getTime());
    // (each process keeps the test clock it read at start: the doctor's moves too)
    await second.deps.clock.advance(ctx.deps.clock.offsetMs() - second.deps.clock.offsetMs());
    await doctorStream.waitFor('the end at expiry', () => doctorStream.isClosed());
    expect(doctorStream.events.at(-1)).toEqual({ event: 'end', data: { reason: 'expired' } });
    expect((await openStream(base2, dj.body.token)).res.status).toBe(404);
  });

});
