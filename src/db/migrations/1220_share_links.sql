-- SMART Health Links to the patient summary (docs/interoperability.md). share_links holds only the
-- encrypted summary (a JWE whose key is carried in the link itself and never stored), the link's
-- manifest id (its unguessable address), its expiry and revocation, and a hash of the optional
-- passcode with the count of wrong attempts. share_link_accesses: each use of the link (the
-- recipient's self-declared name, the outcome), listed to the patient.
create table share_links (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references users(id) on delete cascade,
  manifest_id text not null unique,
  label text not null default '',
  payload_jwe text not null,
  passcode_hash text,
  passcode_failures integer not null default 0,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null,
  revoked_at timestamptz
);
create index share_links_user_idx on share_links (user_id, created_at desc, id desc);

create table share_link_accesses (
  id uuid primary key default gen_random_uuid(),
  share_link_id uuid not null references share_links(id) on delete cascade,
  user_id uuid not null references users(id) on delete cascade,
  recipient text not null,
  outcome text not null check (outcome in ('served', 'wrong_passcode', 'locked')),
  at timestamptz not null default now()
);
create index share_link_accesses_link_idx on share_link_accesses (share_link_id, at desc);

-- A use of a share link is in the patient's access log: the actor is whoever holds the link (no
-- account), named by the recipient text they gave.
alter table access_log drop constraint access_log_actor_role_check;
alter table access_log add constraint access_log_actor_role_check check (actor_role in ('doctor', 'backoffice_admin', 'pharmacist', 'link_recipient'));
alter table access_log drop constraint access_log_resource_type_check;
alter table access_log add constraint access_log_resource_type_check
  check (resource_type in ('consultation', 'conversation', 'message_file', 'journal', 'prescription', 'profile', 'payment', 'order', 'verification', 'clinical_photo', 'red_flag', 'share_link'));
