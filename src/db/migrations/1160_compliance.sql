-- What the service must publish and honour to sell at a distance (docs/compliance.md).

-- A staff member's public listing on the "our doctors" page (the prescriber must be identifiable):
-- listed unless they opt out on their desk profile. No row means listed.
create table staff_public_profiles (
  staff_id uuid primary key references users(id) on delete cascade,
  public_listing boolean not null default true,
  updated_at timestamptz not null default now()
);

-- Cancellations asked on the public /cancel page (§ 312k BGB): the request is confirmed by a
-- one-click link mailed to the account; only the link's hash is stored, used once, expiring.
create table plan_cancel_requests (
  id uuid primary key default gen_random_uuid(),
  token_hash text not null unique,
  user_id uuid not null references users(id) on delete cascade,
  -- The plan named on the form; null: every running plan of the account at confirmation.
  subscription_id uuid references subscriptions(id) on delete cascade,
  kind text not null check (kind in ('ordinary', 'extraordinary')),
  requested_date date not null,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null,
  used_at timestamptz
);
create index plan_cancel_requests_user on plan_cancel_requests (user_id);

-- A plan's price follows the catalogue only after a notice (at least PRICE_CHANGE_NOTICE_DAYS before
-- the first charge at the new price). One open notice per plan; a later change supersedes it.
create table plan_price_notices (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references users(id) on delete cascade,
  subscription_id uuid not null references subscriptions(id) on delete cascade,
  treatment_id text not null,
  old_price_cents integer not null check (old_price_cents >= 0),
  new_price_cents integer not null check (new_price_cents >= 0),
  currency text not null,
  notified_at timestamptz not null,
  effective_from timestamptz not null,
  applied_at timestamptz,
  superseded_at timestamptz,
  check (effective_from >= notified_at)
);
create unique index plan_price_notices_one_open on plan_price_notices (subscription_id)
  where applied_at is null and superseded_at is null;
create index plan_price_notices_user on plan_price_notices (user_id);
