-- A doctor's approval of a treatment or dose outside what the eligibility engine allowed: the
-- written clinical reason, the doctor, and what the engine said (docs/consultations.md).
create table prescribing_overrides (
  id uuid primary key default gen_random_uuid(),
  consultation_id uuid not null references consultations(id),
  doctor_id uuid not null references users(id),
  treatment_id text not null,
  dosage text not null,
  reason text not null,
  engine_codes jsonb not null default '[]'::jsonb,
  engine_allowed jsonb not null default '{}'::jsonb,
  created_at timestamptz not null default now()
);
create unique index prescribing_overrides_consultation_key on prescribing_overrides (consultation_id);
