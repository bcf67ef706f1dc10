-- Accounts, sessions, one-time codes, mail outbox and shared secrets.
create table users (
  id uuid primary key default gen_random_uuid(),
  email text not null,
  password_hash text,
  google_sub text unique,
  email_verified_at timestamptz,
  disabled_at timestamptz,
  is_doctor boolean not null default false,
  is_backoffice_admin boolean not null default false,
  is_marketer boolean not null default false,
  is_referrer boolean not null default false,
  first_name text not null default '',
  last_name text not null default '',
  date_of_birth date,
  gender text,
  country_of_residence text,
  timezone text not null default '',
  locale text not null default 'en',
  city text,
  postal_code text,
  issuing_state text not null default '',
  document_number_enc text,
  document_type text,
  addresses jsonb not null default '[]'::jsonb,
  doctor_license_number text,
  referral_code text not null unique,
  referred_by uuid references users(id),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create unique index users_email_key on users (lower(email));

create table email_verifications (
  user_id uuid primary key references users(id) on delete cascade,
  code_hash text not null,
  expires_at timestamptz not null,
  last_sent_at timestamptz not null,
  failed_attempts integer not null default 0,
  locked_until timestamptz
);

create table refresh_families (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references users(id) on delete cascade,
  created_at timestamptz not null default now(),
  revoked_at timestamptz,
  revoke_reason text
);
create index refresh_families_user_idx on refresh_families (user_id);

create table refresh_tokens (
  jti_hash text primary key,
  family_id uuid not null references refresh_families(id) on delete cascade,
  expires_at timestamptz not null,
  used_at timestamptz,
  created_at timestamptz not null default now()
);
create index refresh_tokens_family_idx on refresh_tokens (family_id);

create table password_reset_tokens (
  token_hash text primary key,
  user_id uuid not null references users(id) on delete cascade,
  expires_at timestamptz not null,
  used_at timestamptz,
  created_at timestamptz not null default now()
);
create index password_reset_tokens_user_idx on password_reset_tokens (user_id, created_at);

create table email_suppressions (
  email text primary key,
  reason text not null,
  created_at timestamptz not null default now()
);

create table mail_outbox (
  id uuid primary key default gen_random_uuid(),
  to_address text not null,
  subject text not null,
  text_body text,
  html_body text,
  template text not null,
  status text not null default 'pending',
  attempts integer not null default 0,
  next_attempt_at timestamptz not null default now(),
  last_error text,
  created_at timestamptz not null default now(),
  sent_at timestamptz
);
create index mail_outbox_due_idx on mail_outbox (status, next_attempt_at);

create table app_secrets (
  name text primary key,
  value text not null,
  created_at timestamptz not null default now()
);

create table app_settings (
  key text primary key,
  value jsonb not null,
  updated_at timestamptz not null default now()
);

create table audit_log (
  id uuid primary key default gen_random_uuid(),
  actor_id uuid references users(id),
  action text not null,
  subject_type text not null,
  subject_id text not null,
  details jsonb not null default '{}'::jsonb,
  created_at timestamptz not null default now()
);
create index audit_log_subject_idx on audit_log (subject_type, subject_id);
