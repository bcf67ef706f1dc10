-- Lead events from the landing funnel, kept for later attribution.
create table attribution_events (
  id uuid primary key default gen_random_uuid(),
  referral_code text,
  -- the referrer the code belonged to when the event arrived (null: no or unknown code)
  referrer_id uuid references users(id) on delete set null,
  event text not null,
  utm_source text,
  utm_medium text,
  utm_campaign text,
  landing_path text,
  -- a keyed hash of the client address: enough to count distinct visitors, not to identify one
  client_hash text not null,
  created_at timestamptz not null default now()
);
create index attribution_events_referrer_idx on attribution_events (referrer_id, created_at);
create index users_referred_by_idx on users (referred_by);
