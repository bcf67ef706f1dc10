-- Notifications (docs/notifications.md): the patient's channel preferences, their browsers' push
-- subscriptions, a verified phone for SMS, and the delivery outbox (one row per event and channel).

-- Per event kind, which channels are on ({"kind": {"push": true, "sms": false, "email": true}});
-- kinds or channels missing from it take the defaults of the code. Quiet hours are local times of
-- the patient's time zone (users.timezone); both null means none.
create table notification_preferences (
  user_id uuid primary key references users(id) on delete cascade,
  channels jsonb not null default '{}'::jsonb check (jsonb_typeof(channels) = 'object'),
  quiet_start text check (quiet_start is null or quiet_start ~ '^([01][0-9]|2[0-3]):[0-5][0-9]$'),
  quiet_end text check (quiet_end is null or quiet_end ~ '^([01][0-9]|2[0-3]):[0-5][0-9]$'),
  updated_at timestamptz not null default now(),
  check ((quiet_start is null) = (quiet_end is null))
);

-- A browser's PushSubscription. The endpoint is a capability URL of the push service: unique, so a
-- browser that subscribes again (or moves to another account) has one row.
create table push_subscriptions (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references users(id) on delete cascade,
  endpoint text not null unique check (length(endpoint) between 12 and 2048),
  p256dh text not null check (length(p256dh) between 40 and 200),
  auth text not null check (length(auth) between 16 and 64),
  created_at timestamptz not null default now()
);
create index push_subscriptions_user_idx on push_subscriptions (user_id, created_at);

-- The phone for SMS, in E.164, usable once verified by a code (HMAC of the code, never the code).
create table notification_phones (
  user_id uuid primary key references users(id) on delete cascade,
  phone_e164 text not null check (phone_e164 ~ '^\+[1-9][0-9]{6,14}$'),
  verified_at timestamptz,
  code_hash text,
  code_expires_at timestamptz,
  code_attempts integer not null default 0 check (code_attempts >= 0),
  updated_at timestamptz not null default now()
);

-- The outbox: one row per event and channel, written in the transaction of the change that causes
-- the event; unique on (event_key, channel), so an event is sent at most once per channel however
-- often it is raised. The dispatcher claims due rows with a lease (next_attempt_at), sends, and
-- records the outcome: sent, skipped (with the reason), or failed after the last retry. No text is
-- stored: it is rendered when sent, in the patient's language, from the kind alone.
create table notification_deliveries (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references users(id) on delete cascade,
  kind text not null check (kind ~ '^[a-z_]{3,40}$'),
  event_key text not null check (length(event_key) between 3 and 300),
  channel text not null check (channel in ('push', 'sms', 'email')),
  link text not null default '/' check (link ~ '^/[A-Za-z0-9/_?=&.-]*$' and length(link) <= 300),
  status text not null default 'pending' check (status in ('pending', 'sent', 'skipped', 'failed')),
  reason text check (reason is null or length(reason) <= 100),
  attempts integer not null default 0,
  last_error text check (last_error is null or length(last_error) <= 500),
  next_attempt_at timestamptz not null default now(),
  created_at timestamptz not null default now(),
  finished_at timestamptz,
  unique (event_key, channel)
);
create index notification_deliveries_due_idx on notification_deliveries (next_attempt_at) where status = 'pending';
create index notification_deliveries_user_idx on notification_deliveries (user_id, created_at desc);
