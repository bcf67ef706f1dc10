-- Appointments and 1:1 video calls (docs/appointments.md).
--
-- A consultation the doctor wants to talk about waits in `awaiting_call` (consultations/status.ts).
alter table consultations drop constraint consultations_status_check;
alter table consultations
  add constraint consultations_status_check
  check (status in ('pending_review', 'approved', 'rejected', 'needs_information', 'awaiting_call', 'cancelled', 'refunded'));

-- A doctor's weekly hours and exceptions, in the doctor's time zone: weekly [{weekday 1-7 (ISO,
-- Monday 1), start "HH:MM", end "HH:MM"}], exceptions [{date "YYYY-MM-DD", start?, end?}] (a date
-- without hours is a day off; with hours they replace the weekly hours of that date).
create table clinician_availability (
  doctor_id uuid primary key references users(id) on delete cascade,
  timezone text not null,
  weekly jsonb not null default '[]',
  exceptions jsonb not null default '[]',
  updated_at timestamptz not null default now()
);

-- Every appointment lasts one slot of 15 minutes on the 15-minute grid (UTC, which every time zone
-- offset in use shares), so two appointments of a doctor overlap exactly when they start at the same
-- instant: the partial unique index is the database's guarantee that a slot is taken once and a
-- doctor never double-booked, whichever process books. One open appointment per consultation.
create table appointments (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references users(id) on delete cascade,
  consultation_id uuid not null references consultations(id) on delete cascade,
  doctor_id uuid not null references users(id),
  starts_at timestamptz not null,
  ends_at timestamptz not null,
  status text not null default 'booked',
  booked_at timestamptz not null default now(),
  cancelled_at timestamptz,
  cancelled_by text,
  mode text,
  outcome text,
  outcome_note text,
  verified_weight_kg numeric(5, 1),
  outcome_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  constraint appointments_status_check check (status in ('booked', 'cancelled', 'completed')),
  constraint appointments_cancelled_by_check check (cancelled_by is null or cancelled_by in ('patient', 'doctor')),
  constraint appointments_mode_check check (mode is null or mode in ('video', 'phone')),
  constraint appointments_outcome_check check (outcome is null or outcome in ('completed', 'no_answer', 'no_show')),
  constraint appointments_grid_check check (extract(epoch from starts_at)::bigint % 900 = 0),
  constraint appointments_length_check check (ends_at = starts_at + interval '15 minutes'),
  constraint appointments_weight_check check (verified_weight_kg is null or verified_weight_kg between 20 and 400)
);
create unique index appointments_doctor_slot_key on appointments (doctor_id, starts_at) where status <> 'cancelled';
create unique index appointments_consultation_open_key on appointments (consultation_id) where status = 'booked';
create index appointments_user_idx on appointments (user_id, starts_at);
create index appointments_due_idx on appointments (starts_at) where status = 'booked';

-- A participant's pass to one call (POST .../join/): only the SHA-256 of the token is kept.
-- last_seen_at: when that participant last read the signalling channel (presence of the other side).
create table call_passes (
  token_hash text primary key,
  appointment_id uuid not null references appointments(id) on delete cascade,
  participant_id uuid not null references users(id) on delete cascade,
  role text not null check (role in ('patient', 'doctor')),
  expires_at timestamptz not null,
  last_seen_at timestamptz,
  created_at timestamptz not null default now()
);
create index call_passes_appointment_idx on call_passes (appointment_id, participant_id);

-- The signalling relay: offer/answer/ICE candidates from one participant to the other, read by the
-- other's process (any process: the database is the shared store). Deleted with the appointment,
-- and by the reminders job a day after the call.
create table call_signals (
  seq bigint generated always as identity primary key,
  appointment_id uuid not null references appointments(id) on delete cascade,
  sender_id uuid not null references users(id) on delete cascade,
  recipient_id uuid not null references users(id) on delete cascade,
  kind text not null check (kind in ('offer', 'answer', 'candidate', 'bye')),
  payload jsonb not null,
  created_at timestamptz not null default now()
);
create index call_signals_recipient_idx on call_signals (appointment_id, recipient_id, seq);

-- Mail attachments (the appointment's calendar file): [{filename, content_type, content}], blanked once sent.
alter table mail_outbox add column attachments jsonb;
