// Appointments and calls (docs/appointments.md): the doctor's hours and day of calls and the
// request for a call (/v1/clinician/, doctors), the patient's slots and appointments
// (/v1/users/appointments/), joining a call, and the signalling channel (/v1/calls/signal/, by the
// call's token). The reminders are a scheduler job.
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { FastifyRequest } from 'fastify';
import type { ModuleOptions, ZodApp } from '../../http/plugin.ts';
import { bearerSecurity, currentUser } from '../../http/auth.ts';
import { DetailCodeSchema, DetailSchema, FieldErrorsSchema, TokenErrorSchema, UnauthorisedResponses } from '../../http/errors.ts';
import { fields, notFoundDetail, transitionConflict } from '../../http/operation.ts';
import { logStaffRead } from '../audit/index.ts';
import {
  AppointmentListSchema,
  AppointmentSchema,
  AvailabilityBody,
  AvailabilitySchema,
  BookBody,
  DeskAppointmentSchema,
  DeskDayQuery,
  DeskDaySchema,
  DoctorCancelBody,
  DoctorRescheduleBody,
  IdParams,
  JoinSchema,
  OutcomeBody,
  RequestCallBody,
  RequestCallSchema,
  RescheduleBody,
  SignalBody,
  SignalHeaders,
  SignalQuery,
  SignalSentSchema,
  SignalsSchema,
  SignalStreamHeaders,
  SignalStreamQuery,
  SignalStreamSchema,
  SIGNAL_STREAM_EXAMPLE,
  SlotsQuery,
  SlotsSchema,
} from './schemas.ts';
import * as appointments from './service.ts';
import { openSignalStream, SignalStreams } from './stream.ts';

const staffErrors = { 401: TokenErrorSchema, 403: DetailCodeSchema };
const uid = (request: FastifyRequest) => currentUser(request).id;

export default function appointmentsModule(app: ZodApp, { deps }: ModuleOptions): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const desk = { tags: ['clinician'], security: bearerSecurity };
  const patient = { tags: ['appointments'], security: bearerSecurity };

  // The 24-hour and 1-hour reminders (through the notifications module), and the old signals' removal.
  deps.scheduler.register('appointments.reminders', async () => {
    await appointments.raiseReminders(deps);
  });

  // ---- the desk

  r.get(
    '/v1/clinician/availability/',
    {
      config: { operation: { id: 'getClinicianAvailability', descriptions: { 200: 'The doctor’s weekly hours and exceptions' } } },
      schema: { ...desk, summary: 'The signed-in doctor’s hours (weekly and exceptions, in their time zone)', response: { 200: AvailabilitySchema, ...staffErrors } },
    },
    async (request) => appointments.getAvailability(deps, uid(request)),
  );

  r.put(
    '/v1/clinician/availability/',
    {
      config: {
        operation: {
          id: 'putClinicianAvailability',
          errors: { 400: [fields] },
          descriptions: { 200: 'Saved' },
          requestExample: { timezone: 'Europe/Berlin', weekly: [{ weekday: 1, start: '09:00', end: '12:00' }], exceptions: [{ date: '2026-12-24' }] },
        },
      },
      schema: {
        ...desk,
        summary: 'Replace the signed-in doctor’s hours',
        description: 'Weekly hours and exceptions in the doctor’s IANA time zone, on quarter hours; appointments are 15-minute slots within them. Booked appointments stay as they are.',
        body: AvailabilityBody,
        response: { 200: AvailabilitySchema, 400: FieldErrorsSchema, ...staffErrors },
      },
    },
    async (request) => appointments.putAvailability(deps, uid(request), request.body),
  );

  r.post(
    '/v1/clinician/consultations/:id/request-call/',
    {
      config: { operation: { id: 'requestConsultationCall', errors: { 400: [fields], 404: [notFoundDetail], ...transitionConflict }, descriptions: { 200: 'Waiting for the patient to book a call' } } },
      schema: {
        ...desk,
        summary: 'Ask the patient for a call',
        description:
          'From pending_review, needs_information: status awaiting_call, decision_reason holds the reason (the patient reads it), the doctor becomes the consultation’s doctor and the patient books one of their slots. Emails and notifies the patient; audit-logged. Otherwise 409 invalid_status_transition.',
        params: IdParams,
        body: RequestCallBody,
        response: { 200: RequestCallSchema, 400: FieldErrorsSchema, ...staffErrors, 404: DetailSchema, 409: DetailCodeSchema },
      },
    },
    async (request) => appointments.requestCallForClinician(deps, uid(request), request.params.id, request.body.reason),
  );

  r.get(
    '/v1/clinician/appointments/',
    {
      config: { operation: { id: 'listClinicianAppointments', errors: { 400: [fields] }, descriptions: { 200: 'The doctor’s calls of the day' } } },
      schema: { ...desk, summary: 'The signed-in doctor’s calls of a day (default today, in their time zone)', querystring: DeskDayQuery, response: { 200: DeskDaySchema, 400: FieldErrorsSchema, ...staffErrors } },
    },
    async (request) => {
      const day = await appointments.dayForClinician(deps, uid(request), request.query.date);
      await logStaffRead(deps, request, 'consultation', day.results.map((a) => a.consultation_id));
      return day;
    },
  );

  r.post(
    '/v1/clinician/appointments/:id/join/',
    {
      config: {
        operation: {
          id: 'joinClinicianCall',
          errors: { 404: [notFoundDetail], 409: [{ detail_code: ['call_window_closed'] }], 410: [{ detail_code: ['appointment_cancelled'] }] },
          descriptions: { 200: 'The pass to the call', 409: 'Outside the call’s window (10 minutes before the start until its end): `opens_at`, `ends_at`', 410: 'Cancelled' },
        },
      },
      schema: {
        ...desk,
        summary: 'Join a call (the appointment’s doctor)',
        description: 'Only the appointment’s doctor (anyone else 404), from 10 minutes before the start until the end.',
        params: IdParams,
        response: { 200: JoinSchema, ...staffErrors, 404: DetailSchema, 409: DetailCodeSchema, 410: DetailCodeSchema },
      },
    },
    async (request) => appointments.joinForClinician(deps, uid(request), request.params.id),
  );

  r.post(
    '/v1/clinician/appointments/:id/outcome/',
    {
      config: {
        operation: {
          id: 'recordCallOutcome',
          errors: { 400: [fields], 404: [notFoundDetail], 409: [{ detail_code: ['appointment_closed', 'call_window_closed'] }], 410: [{ detail_code: ['appointment_cancelled'] }] },
          descriptions: { 200: 'Recorded: the appointment is completed', 409: 'Already recorded, or before the call', 410: 'Cancelled' },
          requestExample: { mode: 'phone', outcome: 'completed', note: 'Discussed the side effects; continue.', verified_weight_kg: 92.4 },
        },
      },
      schema: {
        ...desk,
        summary: 'Record the call’s outcome (also the phone fallback)',
        description:
          'mode phone marks that the doctor called the patient by phone instead. The note and (weight loss only) the weight seen on camera are kept with the appointment; the doctor then decides on the consultation as usual. Audit-logged.',
        params: IdParams,
        body: OutcomeBody,
        response: { 200: DeskAppointmentSchema, 400: FieldErrorsSchema, ...staffErrors, 404: DetailSchema, 409: DetailCodeSchema, 410: DetailCodeSchema },
      },
    },
    async (request) => appointments.recordOutcome(deps, uid(request), request.params.id, request.body),
  );

  r.post(
    '/v1/clinician/appointments/:id/cancel/',
    {
      config: {
        operation: {
          id: 'cancelClinicianAppointment',
          errors: { 400: [fields], 404: [notFoundDetail], 409: [{ detail_code: ['change_window_closed', 'appointment_closed'] }], 410: [{ detail_code: ['appointment_cancelled'] }] },
          descriptions: { 200: 'Cancelled: the slot is free again; the patient gets a mail with the cancelled calendar entry and reads the reason in the app', 409: 'The call has started (record its outcome instead), or it is completed', 410: 'Already cancelled' },
          requestExample: { reason: 'I am unwell today; please book another time.' },
        },
      },
      schema: {
        ...desk,
        summary: 'Cancel a call (the appointment’s doctor, until its start)',
        description: 'Only the appointment’s doctor (anyone else 404). The reason is sealed at rest and shown to the patient as doctor_reason; the consultation stays awaiting_call, so the patient can book another slot. Audit-logged.',
        params: IdParams,
        body: DoctorCancelBody,
        response: { 200: DeskAppointmentSchema, 400: FieldErrorsSchema, ...staffErrors, 404: DetailSchema, 409: DetailCodeSchema, 410: DetailCodeSchema },
      },
    },
    async (request) => appointments.cancelForClinician(deps, uid(request), request.params.id, request.body.reason),
  );

  r.post(
    '/v1/clinician/appointments/:id/reschedule/',
    {
      config: {
        operation: {
          id: 'rescheduleClinicianAppointment',
          errors: { 400: [fields], 404: [notFoundDetail], 409: [{ detail_code: ['slot_unavailable', 'change_window_closed', 'appointment_closed'] }], 410: [{ detail_code: ['appointment_cancelled'] }] },
          descriptions: { 200: 'Moved: the patient gets a mail with the updated calendar file and reads the reason in the app', 409: 'The new time is not one of the doctor’s free slots, or the call has started', 410: 'Cancelled' },
          requestExample: { starts_at: '2026-12-04T10:00:00+01:00', reason: 'An emergency took my morning; I moved us to Friday.' },
        },
      },
      schema: {
        ...desk,
        summary: 'Move a call to another of the doctor’s free slots (the appointment’s doctor, until its start)',
        description: 'Only the appointment’s doctor (anyone else 404). The new time must be one of their free slots (an hour from now to 14 days ahead): a doctor is never double-booked. Audit-logged.',
        params: IdParams,
        body: DoctorRescheduleBody,
        response: { 200: DeskAppointmentSchema, 400: FieldErrorsSchema, ...staffErrors, 404: DetailSchema, 409: DetailCodeSchema, 410: DetailCodeSchema },
      },
    },
    async (request) => appointments.rescheduleForClinician(deps, uid(request), request.params.id, request.body),
  );

  // ---- the patient

  r.get(
    '/v1/users/appointments/slots/',
    {
      config: { operation: { id: 'listAppointmentSlots', errors: { 400: [fields], 404: [notFoundDetail], 409: [{ detail_code: ['call_not_requested'] }] }, descriptions: { 200: 'Free slots of the consultation’s doctor', 409: 'The doctor has not asked for a call' } } },
      schema: {
        ...patient,
        summary: 'Free call slots for a consultation (in the patient’s time zone)',
        description: 'The 15-minute slots of the doctor who asked for the call, from an hour from now to 14 days ahead, minus the taken ones.',
        querystring: SlotsQuery,
        response: { 200: SlotsSchema, 400: FieldErrorsSchema, 404: DetailSchema, 409: DetailCodeSchema, ...UnauthorisedResponses },
      },
    },
    async (request) => appointments.slotsForUser(deps, uid(request), request.query.consultation_id),
  );

  r.post(
    '/v1/users/appointments/',
    {
      config: { operation: { id: 'bookAppointment', errors: { 400: [fields], 404: [notFoundDetail], 409: [{ detail_code: ['call_not_requested', 'slot_unavailable', 'appointment_exists'] }] }, descriptions: { 201: 'Booked: a confirmation mail with the calendar file (.ics) follows', 409: 'No call asked for, the slot is taken or not offered, or the consultation already has a booked call' } } },
      schema: { ...patient, summary: 'Book a call', body: BookBody, response: { 201: AppointmentSchema, 400: FieldErrorsSchema, 404: DetailSchema, 409: DetailCodeSchema, ...UnauthorisedResponses } },
    },
    async (request, reply) => reply.code(201).send(await appointments.book(deps, uid(request), request.body)),
  );

  r.get(
    '/v1/users/appointments/',
    {
      config: { operation: { id: 'listAppointments', descriptions: { 200: 'The patient’s appointments, latest first' } } },
      schema: { ...patient, summary: 'The patient’s appointments', response: { 200: AppointmentListSchema, ...UnauthorisedResponses } },
    },
    async (request) => appointments.listForUser(deps, uid(request)),
  );

  r.get(
    '/v1/users/appointments/:id/',
    {
      config: { operation: { id: 'getAppointment', errors: { 404: [notFoundDetail] }, descriptions: { 200: 'The appointment' } } },
      schema: { ...patient, summary: 'One appointment', params: IdParams, response: { 200: AppointmentSchema, 404: DetailSchema, ...UnauthorisedResponses } },
    },
    async (request) => appointments.getForUser(deps, uid(request), request.params.id),
  );

  r.post(
    '/v1/users/appointments/:id/reschedule/',
    {
      config: {
        operation: {
          id: 'rescheduleAppointment',
          errors: { 400: [fields], 404: [notFoundDetail], 409: [{ detail_code: ['slot_unavailable', 'change_window_closed', 'appointment_closed'] }], 410: [{ detail_code: ['appointment_cancelled'] }] },
          descriptions: { 200: 'Moved: a mail with the updated calendar file follows', 409: 'The new slot is not free, or it is less than 2 hours before the call', 410: 'Cancelled' },
        },
      },
      schema: { ...patient, summary: 'Move a call to another free slot (until 2 hours before it)', params: IdParams, body: RescheduleBody, response: { 200: AppointmentSchema, 400: FieldErrorsSchema, 404: DetailSchema, 409: DetailCodeSchema, 410: DetailCodeSchema, ...UnauthorisedResponses } },
    },
    async (request) => appointments.reschedule(deps, uid(request), request.params.id, request.body.starts_at),
  );

  r.post(
    '/v1/users/appointments/:id/cancel/',
    {
      config: {
        operation: {
          id: 'cancelAppointment',
          errors: { 404: [notFoundDetail], 409: [{ detail_code: ['change_window_closed', 'appointment_closed'] }], 410: [{ detail_code: ['appointment_cancelled'] }] },
          descriptions: { 200: 'Cancelled: the slot is free again; a mail with the cancelled calendar entry follows', 409: 'Less than 2 hours before the call', 410: 'Already cancelled' },
        },
      },
      schema: { ...patient, summary: 'Cancel a call (until 2 hours before it)', params: IdParams, response: { 200: AppointmentSchema, 404: DetailSchema, 409: DetailCodeSchema, 410: DetailCodeSchema, ...UnauthorisedResponses } },
    },
    async (request) => appointments.cancel(deps, uid(request), request.params.id),
  );

  r.post(
    '/v1/users/appointments/:id/join/',
    {
      config: {
        operation: {
          id: 'joinAppointmentCall',
          errors: { 404: [notFoundDetail], 409: [{ detail_code: ['call_window_closed'] }], 410: [{ detail_code: ['appointment_cancelled'] }] },
          descriptions: { 200: 'The pass to the call', 409: 'Outside the call’s window (10 minutes before the start until its end): `opens_at`, `ends_at`', 410: 'Cancelled' },
        },
      },
      schema: { ...patient, summary: 'Join the call', description: 'From 10 minutes before the start until the end.', params: IdParams, response: { 200: JoinSchema, 404: DetailSchema, 409: DetailCodeSchema, 410: DetailCodeSchema, ...UnauthorisedResponses } },
    },
    async (request) => appointments.joinForUser(deps, uid(request), request.params.id),
  );

  // ---- the signalling channel (by the call's token; either participant)

  r.post(
    '/v1/calls/signal/',
    {
      config: { access: 'public', operation: { id: 'sendCallSignal', errors: { 400: [fields], 404: [notFoundDetail] }, descriptions: { 202: 'Queued for the other participant', 404: 'Unknown token, or the call is not open' } } },
      schema: { tags: ['appointments'], summary: 'Send an offer, answer, ICE candidate or bye to the other participant', body: SignalBody, response: { 202: SignalSentSchema, 400: FieldErrorsSchema, 404: DetailSchema } },
    },
    async (request, reply) => reply.code(202).send(await appointments.sendSignal(deps, request.body)),
  );

  r.get(
    '/v1/calls/signal/',
    {
      config: { access: 'public', operation: { id: 'readCallSignals', errors: { 400: [fields], 404: [notFoundDetail] }, descriptions: { 200: 'The other participant’s signals after `after`, and whether they are present', 404: 'Unknown token, or the call is not open' } } },
      schema: { tags: ['appointments'], summary: 'Read the other participant’s signals (poll about every second)', querystring: SignalQuery, headers: SignalHeaders, response: { 200: SignalsSchema, 400: FieldErrorsSchema, 404: DetailSchema } },
    },
    async (request) => appointments.readSignals(deps, request.headers['x-call-token'], request.query.after),
  );

  // The same channel pushed: server-sent events, read with fetch (the pass goes in a header, which an
  // EventSource cannot send). Open streams end when this process shuts down.
  const streams = new SignalStreams();
  app.addHook('preClose', (done) => {
    streams.closeAll();
    done();
  });
  r.get(
    '/v1/calls/signal/stream/',
    {
      config: {
        access: 'public',
        operation: {
          id: 'streamCallSignals',
          errors: { 400: [fields], 404: [notFoundDetail] },
          eventStream: SIGNAL_STREAM_EXAMPLE,
          descriptions: {
            200: 'text/event-stream: `presence` {peer_present, expires_at} first and on each change; `signal` {seq, type, payload, sent_at} with `id: <seq>`; `: heartbeat` comments; a last `end` {reason} before the server closes it (hung_up, expired, cancelled; replaced by a newer stream of the same pass; shutdown: reconnect)',
            404: 'Unknown token, the participant hung up, or the call is not open',
          },
        },
      },
      schema: {
        tags: ['appointments'],
        summary: 'Receive the other participant’s signals as server-sent events',
        description:
          'The pass goes in the X-Call-Token header (never in the URL): read it with fetch and a streaming body, not EventSource. Resume with Last-Event-ID (or `after`), the last `seq` received. The stream closes when this participant hangs up (its `bye`), when the call’s window ends or when the appointment is cancelled. Signals are sent with POST /v1/calls/signal/.',
        querystring: SignalStreamQuery,
        headers: SignalStreamHeaders,
        response: { 200: SignalStreamSchema, 400: FieldErrorsSchema, 404: DetailSchema },
      },
    },
    async (request, reply) => {
      const resume = Number(request.headers['last-event-id'] ?? 0);
      const after = Math.max(request.query.after ?? 0, Number.isSafeInteger(resume) && resume > 0 ? resume : 0);
      const stream = await openSignalStream(deps, streams, request.headers['x-call-token'], after);
      return reply
        .header('content-type', 'text/event-stream; charset=utf-8')
        .header('cache-control', 'no-store')
        // nginx and similar proxies pass each event on at once.
        .header('x-accel-buffering', 'no')
        .send(stream);
    },
  );

  return Promise.resolve();
}
