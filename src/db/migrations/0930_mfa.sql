-- A second factor at sign-in (issue 24, docs/accounts.md "Second factor"): TOTP (RFC 6238), single-use
-- recovery codes, and the short-lived tickets of a sign-in waiting for its second step or its
-- enrolment. Kept out of users, so that enrolling touches no row the consultation list reads.
create table mfa_totp (
  user_id uuid primary key references users(id) on delete cascade,
  -- The shared secret, AES-256-GCM with DATA_ENCRYPTION_KEYS (src/lib/crypto.ts): the service must
  -- read it back to check codes, so it cannot be a hash.
  secret_enc text not null,
  -- Null while an enrolment waits for its first code; the factor counts only once confirmed.
  confirmed_at timestamptz,
  -- The newest 30-second time step a code was accepted for: a code (or an older one) is never
  -- accepted twice (RFC 6238 section 5.2).
  last_step bigint,
  created_at timestamptz not null default now()
);

create table mfa_recovery_codes (
  user_id uuid not null references users(id) on delete cascade,
  -- keyed SHA-256 of the normalised code (never stored in clear)
  code_hash text not null,
  used_at timestamptz,
  created_at timestamptz not null default now(),
  primary key (user_id, code_hash)
);

create table mfa_tickets (
  token_hash text primary key,
  user_id uuid not null references users(id) on delete cascade,
  -- sign_in: the password was right, the second factor is awaited (mfa_token);
  -- enrol: the password was right, a factor must be enrolled first (enrolment_token).
  purpose text not null check (purpose in ('sign_in', 'enrol')),
  expires_at timestamptz not null,
  used_at timestamptz,
  failed_attempts integer not null default 0 check (failed_attempts >= 0),
  created_at timestamptz not null default now()
);
create index mfa_tickets_user_idx on mfa_tickets (user_id);
