-- Passkeys (WebAuthn level 2) as a second factor (issue 24, docs/accounts.md "Passkeys"), beside
-- TOTP (0930_mfa.sql): the account's registered credentials and the challenges the service handed
-- out, kept server-side so that each is used once, within its lifetime, by the account it was made for.
create table mfa_passkeys (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references users(id) on delete cascade,
  -- The credential ID the authenticator chose (base64url), unique across every account.
  credential_id text not null unique check (length(credential_id) between 1 and 1400),
  -- The COSE public key (base64url): a public key, nothing secret.
  public_key text not null,
  -- The authenticator's signature counter as last seen (0 for authenticators that keep none); an
  -- assertion with a counter not above it is refused as a possible clone (WebAuthn 6.1.1).
  counter bigint not null default 0 check (counter >= 0),
  transports text[] not null default '{}',
  backed_up boolean not null default false,
  -- A label the account chose (or the default "Passkey"), shown on the account page.
  name text not null check (length(name) between 1 and 64),
  created_at timestamptz not null default now(),
  last_used_at timestamptz
);
create index mfa_passkeys_user_idx on mfa_passkeys (user_id, created_at);

create table webauthn_challenges (
  -- SHA-256 of the base64url challenge (the challenge itself goes only to the client).
  challenge_hash text primary key,
  user_id uuid not null references users(id) on delete cascade,
  -- register: creating a passkey (signed in, or with an enrolment ticket); sign_in: the second step
  -- of a sign-in, bound to that sign-in's mfa_token (ticket_hash).
  purpose text not null check (purpose in ('register', 'sign_in')),
  ticket_hash text,
  expires_at timestamptz not null,
  used_at timestamptz,
  created_at timestamptz not null default now(),
  check ((purpose = 'sign_in') = (ticket_hash is not null))
);
create index webauthn_challenges_user_idx on webauthn_challenges (user_id);
