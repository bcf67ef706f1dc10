-- Verified identity and verified weight before prescribing (docs/verification.md).
--
-- identity_verifications: one row per verification session with a provider (the built-in sandbox or a
-- document + liveness vendor). What the document says (name, birth date, type, country) is sealed
-- with the data-encryption key ring; the document number is never kept, only a keyed hash of it
-- (issuing country + number) to find the same document on several accounts. `profile_hash` is a
-- keyed hash of the profile's name and birth date the verification holds for: a later change of the
-- profile no longer matches it, which resets the verification.
create table identity_verifications (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references users(id) on delete cascade,
  provider text not null check (provider in ('sandbox', 'veriff')),
  provider_session_id text not null,
  -- Where the patient completes the check (the vendor's hosted flow or the sandbox page), and where
  -- the flow sends the browser back (a page of the web app).
  provider_url text not null,
  return_url text not null,
  status text not null default 'pending' check (status in ('pending', 'verified', 'needs_review', 'rejected', 'expired')),
  document_sealed text,
  document_hash text,
  mismatches text[] not null default '{}',
  profile_hash text,
  id_photo_key text,
  selfie_key text,
  provider_reason text not null default '',
  decided_by uuid references users(id) on delete set null,
  decision_reason text not null default '',
  checked_at timestamptz,
  expires_at timestamptz not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (provider, provider_session_id)
);
create index identity_verifications_user_idx on identity_verifications (user_id, created_at desc);
create index identity_verifications_document_idx on identity_verifications (document_hash) where document_hash is not null;
create index identity_verifications_review_idx on identity_verifications (created_at) where status = 'needs_review';
-- One open session per account: a second start answers the open one.
create unique index identity_verifications_one_pending on identity_verifications (user_id) where status = 'pending';

-- A vendor's webhook events, each processed once (a redelivery or a replay changes nothing).
create table identity_webhook_events (
  provider text not null,
  event_id text not null,
  received_at timestamptz not null default now(),
  primary key (provider, event_id)
);

-- A photo on the scales with the reading visible, and the desk's decision on it.
create table weight_verifications (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references users(id) on delete cascade,
  photo_key text not null,
  claimed_weight_kg numeric(5, 2) not null check (claimed_weight_kg between 20 and 500),
  status text not null default 'pending' check (status in ('pending', 'verified', 'rejected')),
  weight_kg numeric(5, 2) check (weight_kg is null or weight_kg between 20 and 500),
  decided_by uuid references users(id) on delete set null,
  decided_at timestamptz,
  reason text not null default '',
  created_at timestamptz not null default now(),
  check ((status = 'pending') = (decided_at is null)),
  check (status <> 'verified' or weight_kg is not null)
);
create index weight_verifications_user_idx on weight_verifications (user_id, created_at desc);
create index weight_verifications_queue_idx on weight_verifications (created_at) where status = 'pending';

-- The sealed bytes of the verification images when FILE_STORE=database (with s3 they are objects of
-- the bucket, named by the same random storage key). Deleted by the verification module's erasure.
create table verification_blobs (
  storage_key text primary key,
  key_id text not null,
  sealed bytea not null,
  created_at timestamptz not null default now()
);

-- A weight the desk verified from a photo enters the journal marked so (who, when). A patient's
-- later edit of the entry's weight or day clears the mark (journal repository).
alter table weight_entries add column verified_by uuid references users(id) on delete set null;
alter table weight_entries add column verified_at timestamptz;

-- Staff views of verification records (images, documents) go to the patient's access log.
alter table access_log drop constraint access_log_resource_type_check;
alter table access_log add constraint access_log_resource_type_check check (resource_type in ('consultation', 'conversation', 'message_file', 'journal', 'prescription', 'profile', 'payment', 'order', 'verification'));
