-- Progress journal: weight, injections, the injection plan, notes and side-effect reports.
create table weight_entries (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references users(id) on delete cascade,
  weight_kg numeric(5, 2) not null,
  logged_on date not null,
  note text not null default '',
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (user_id, logged_on)
);

create table injections (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references users(id) on delete cascade,
  medication text not null default '',
  dose text not null,
  injected_at timestamptz not null,
  injection_site text,
  note text not null default '',
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index injections_user_idx on injections (user_id, injected_at desc);

create table injection_plans (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null unique references users(id) on delete cascade,
  medication text not null default '',
  anchor_weekday integer not null check (anchor_weekday between 0 and 6),
  preferred_time text not null,
  starts_on date not null,
  active boolean not null default true,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);

create table journal_notes (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references users(id) on delete cascade,
  content text not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index journal_notes_user_idx on journal_notes (user_id, created_at desc);

create table side_effect_reports (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references users(id) on delete cascade,
  symptom text not null,
  severity text not null check (severity in ('mild', 'moderate', 'severe')),
  started_on date,
  note text not null default '',
  -- severe reports and emergency wording are flagged for the medical team
  flagged boolean not null default false,
  created_at timestamptz not null default now()
);
create index side_effect_reports_user_idx on side_effect_reports (user_id, created_at desc);
