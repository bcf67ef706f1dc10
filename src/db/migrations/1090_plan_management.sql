-- Issue 27: plan management as the peers offer it (docs/plan-management.md): skip one delivery,
-- pause (for some cycles or until resumed), move the next delivery date, and ask the doctor for a
-- dose change between renewals.
--
-- current_period_end stays the end of the supply that was paid and approved (the prescribing rules
-- read it as "supplied until"); next_delivery_at, when set, is when the next cycle starts instead
-- (its renewal opens 7 days before, its charge is due then). A patient's pause is status `paused`
-- with paused_by_patient; next_delivery_at is then the resume date (null: until resumed).
alter table subscriptions add column next_delivery_at timestamptz;
alter table subscriptions add column skipped_period_end timestamptz;
alter table subscriptions add column paused_by_patient boolean not null default false;
alter table subscriptions add column next_cycle_dosage text check (next_cycle_dosage is null or char_length(next_cycle_dosage) between 1 and 255);
alter table subscriptions add constraint subscriptions_patient_pause_paused check (not paused_by_patient or status = 'paused');

-- A patient's request to change the plan's dose between renewals; a doctor decides it on the desk.
-- The patient's note is health data: sealed at rest (note_enc, src/lib/sealed.ts).
create table plan_dose_change_requests (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references users(id) on delete cascade,
  subscription_id uuid not null references subscriptions(id) on delete cascade,
  treatment_id text not null,
  from_dosage text not null,
  requested_dosage text not null,
  note_enc text,
  status text not null default 'pending' check (status in ('pending', 'approved', 'declined', 'withdrawn')),
  decided_dosage text,
  decision_note_enc text,
  decided_by uuid references users(id) on delete set null,
  decided_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  check ((status = 'pending') = (decided_at is null)),
  check (status <> 'approved' or decided_dosage is not null)
);
-- One open request per plan (a second one while it waits is 409 dose_change_pending).
create unique index plan_dose_change_requests_pending_key on plan_dose_change_requests (subscription_id) where status = 'pending';
create index plan_dose_change_requests_user_idx on plan_dose_change_requests (user_id, created_at desc);
create index plan_dose_change_requests_queue_idx on plan_dose_change_requests (created_at) where status = 'pending';
