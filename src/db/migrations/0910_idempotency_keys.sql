-- Idempotency-Key (IETF httpapi draft) on the POSTs that create something (src/http/idempotency.ts):
-- the first answer to a key is kept for 24 hours, per account, so that a client's retry of the same
-- request gets the same answer instead of a second record. Kept in the database, so it holds
-- across processes. status_code is null while the first request is still being answered.
create table idempotency_keys (
  user_id uuid not null references users(id) on delete cascade,
  key text not null,
  fingerprint text not null,
  status_code integer,
  response_type text,
  response_body text,
  created_at timestamptz not null,
  primary key (user_id, key)
);

-- The expiry sweep (scheduled job idempotency.expire) reads by age.
create index idempotency_keys_created_at on idempotency_keys (created_at);
