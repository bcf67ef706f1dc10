// Request and response shapes of the appointments module (validation, serialisation, OpenAPI).
import { z } from 'zod';

export const IdParams = z.object({ id: z.uuid() });

const QuarterHour = z
  .string()
  .max(5)
  .regex(/^([01]\d|2[0-3]):(00|15|30|45)$|^24:00$/, 'Use HH:MM on a quarter hour (e.g. 09:00, 13:45).')
  .meta({ description: 'Local time HH:MM on a quarter hour (24:00 ends a day)' });

const Weekly = z
  .object({ weekday: z.number().int().min(1).max(7).meta({ description: 'ISO weekday: 1 Monday ... 7 Sunday' }), start: QuarterHour, end: QuarterHour })
  .refine((w) => w.start < w.end, { message: 'start must be before end', path: ['end'] });
const Exception = z
  .object({
    date: z.iso.date().meta({ description: 'A local date (YYYY-MM-DD)' }),
    start: QuarterHour.nullable().optional(),
    end: QuarterHour.nullable().optional(),
  })
  .refine((e) => (e.start == null) === (e.end == null), { message: 'Give both start and end, or neither (a day off).', path: ['end'] })
  .refine((e) => e.start == null || e.end == null || e.start < e.end, { message: 'start must be before end', path: ['end'] });

export const AvailabilityBody = z.object({
  timezone: z.string().min(1).max(64).meta({ description: 'The doctor’s IANA time zone, e.g. Europe/Berlin: the hours are local times there' }),
  weekly: z.array(Weekly).max(100),
  exceptions: z.array(Exception).max(400).default([]).meta({ description: 'Dates whose hours differ: without start and end a day off; with them, these hours instead of the weekly ones (several entries for one date add up)' }),
});

export const AvailabilitySchema = z
  .object({
    timezone: z.string(),
    weekly: z.array(z.object({ weekday: z.number().int(), start: z.string(), end: z.string() })),
    exceptions: z.array(z.object({ date: z.string(), start: z.string().nullable(), end: z.string().nullable() })),
    updated_at: z.string().nullable(),
  })
  .meta({ id: 'ClinicianAvailability' });

export const RequestCallBody = z.object({ reason: z.string().trim().min(1).max(2000).meta({ description: 'Why a call is needed: the patient reads it (decision_reason)' }) });
export const RequestCallSchema = z
  .object({ id: z.uuid(), status: z.string().meta({ description: 'awaiting_call' }), decision_reason: z.string().nullable(), doctor_id: z.uuid().nullable() })
  .meta({ id: 'CallRequested' });

export const SlotsQuery = z.object({ consultation_id: z.uuid() });
export const SlotsSchema = z
  .object({
    consultation_id: z.uuid(),
    timezone: z.string().meta({ description: 'The patient’s time zone (the profile’s; UTC when unset): the times are written with its offset' }),
    slot_minutes: z.number().int(),
    slots: z.array(z.object({ starts_at: z.string(), ends_at: z.string() })),
  })
  .meta({ id: 'AppointmentSlots' });

export const BookBody = z.object({
  consultation_id: z.uuid(),
  starts_at: z.iso.datetime({ offset: true }).max(40).meta({ description: 'A slot’s starts_at, as listed (any offset: the instant counts)' }),
});
export const RescheduleBody = z.object({ starts_at: z.iso.datetime({ offset: true }).max(40) });

export const AppointmentSchema = z
  .object({
    id: z.uuid(),
    consultation_id: z.uuid(),
    status: z.enum(['booked', 'cancelled', 'completed']),
    starts_at: z.string(),
    ends_at: z.string(),
    timezone: z.string(),
    doctor: z.object({ id: z.uuid(), name: z.string() }),
    changeable_until: z.string().meta({ description: 'Rescheduling and cancelling close then (2 hours before the start)' }),
    join_opens_at: z.string().meta({ description: '10 minutes before the start' }),
    cancelled_by: z.enum(['patient', 'doctor']).nullable(),
    mode: z.enum(['video', 'phone']).nullable(),
    outcome: z.enum(['completed', 'no_answer', 'no_show']).nullable(),
    doctor_reason: z.string().nullable().meta({ description: 'Why the doctor cancelled or moved the call (cancelled_by doctor, or moved by the doctor); null otherwise' }),
    created_at: z.string(),
  })
  .meta({ id: 'Appointment' });
export const AppointmentListSchema = z.object({ count: z.number().int(), results: z.array(AppointmentSchema) }).meta({ id: 'AppointmentList' });

export const DeskAppointmentSchema = AppointmentSchema.extend({
  patient: z.object({ id: z.uuid(), first_name: z.string(), last_name: z.string() }),
  category: z.string(),
  consultation_status: z.string(),
  outcome_note: z.string().nullable(),
  verified_weight_kg: z.number().nullable(),
}).meta({ id: 'DeskAppointment' });
export const DeskDayQuery = z.object({ date: z.iso.date().optional().meta({ description: 'A local date in the doctor’s time zone (default: today)' }) });
export const DeskDaySchema = z.object({ date: z.string(), timezone: z.string(), results: z.array(DeskAppointmentSchema) }).meta({ id: 'DeskAppointmentDay' });

export const OutcomeBody = z.object({
  mode: z.enum(['video', 'phone']).meta({ description: 'phone: the doctor called the patient by phone instead (the fallback)' }),
  outcome: z.enum(['completed', 'no_answer', 'no_show']),
  note: z.string().trim().max(4000).optional(),
  verified_weight_kg: z.number().min(20).max(400).optional().meta({ description: 'Weight loss only: the weight the doctor saw on the scales on camera' }),
});

export const JoinSchema = z
  .object({
    ice_servers: z.array(z.object({ urls: z.array(z.string()), username: z.string().optional(), credential: z.string().optional() })).meta({
      description: 'RTCPeerConnection iceServers: the TURN_URLS with time-limited credentials (TURN REST API: username `<expiry>:<user id>`, credential base64(HMAC-SHA1(TURN_SECRET, username)))',
    }),
    signalling_url: z.string().meta({ description: 'POST a signal (`token` in the body); GET (poll, `after`=last seq) the other participant’s signals with `token` in the X-Call-Token header' }),
    signalling_stream_url: z.string().meta({ description: 'GET the other participant’s signals as server-sent events (text/event-stream), `token` in the X-Call-Token header: read with fetch, not EventSource' }),
    token: z.string().meta({ description: 'The pass to this call’s signalling channel, valid until expires_at' }),
    expires_at: z.string(),
    role: z.enum(['patient', 'doctor']),
  })
  .meta({ id: 'CallJoin' });

const SignalType = z.enum(['offer', 'answer', 'candidate', 'bye']);
export const SignalBody = z.object({
  token: z.string().min(20).max(200),
  type: SignalType,
  payload: z.unknown().meta({ description: 'The SDP description or ICE candidate (RTCSessionDescriptionInit / RTCIceCandidateInit JSON)' }),
});
export const SignalQuery = z.object({ after: z.coerce.number().int().min(0).default(0) });
/** The call pass travels in a header, never in the URL (which proxies and logs keep). */
export const SignalHeaders = z.object({ 'x-call-token': z.string().min(20).max(200).meta({ description: 'The call pass the join answered (`token`)' }) });
export const SignalSentSchema = z.object({ seq: z.number().int() });
export const SignalsSchema = z
  .object({
    messages: z.array(z.object({ seq: z.number().int(), type: SignalType, payload: z.unknown(), sent_at: z.string() })),
    peer_present: z.boolean().meta({ description: 'The other participant read the channel in the last 15 seconds' }),
    expires_at: z.string(),
  })
  .meta({ id: 'CallSignals' });

export const SignalStreamQuery = z.object({ after: z.coerce.number().int().min(0).optional().meta({ description: 'Resume after this seq (as Last-Event-ID)' }) });
export const SignalStreamHeaders = SignalHeaders.extend({
  'last-event-id': z.string().max(20).regex(/^\d*$/, 'A signal seq.').optional().meta({ description: 'The last `seq` received, when reconnecting' }),
});
/** The 200 answer is a stream of events (text/event-stream), documented by its example. */
export const SignalStreamSchema = z.unknown().meta({ description: 'Server-sent events (text/event-stream)' });
export const SIGNAL_STREAM_EXAMPLE = [
  'retry: 2000',
  ': connected',
  '',
  'event: presence',
  'data: {"peer_present":true,"expires_at":"2026-12-03T09:15:00.000Z"}',
  '',
  'id: 42',
  'event: signal',
  'data: {"seq":42,"type":"offer","payload":{"type":"offer","sdp":"v=0..."},"sent_at":"2026-12-03T09:01:12.000Z"}',
  '',
  ': heartbeat',
  '',
  'event: end',
  'data: {"reason":"hung_up"}',
  '',
  '',
].join('\n');

export const DoctorCancelBody = z.object({ reason: z.string().trim().min(1).max(2000).meta({ description: 'Why the call is cancelled: the patient reads it in the app (not in the mail)' }) });
export const DoctorRescheduleBody = z.object({
  starts_at: z.iso.datetime({ offset: true }).max(40).meta({ description: 'One of the doctor’s free slots (any offset: the instant counts)' }),
  reason: z.string().trim().min(1).max(2000).meta({ description: 'Why the call moves: the patient reads it in the app (not in the mail)' }),
});
