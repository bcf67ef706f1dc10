-- Issue 25 leftovers (docs/pharmacy.md): partner pharmacies managed by the back office, collection
-- at one of them (chosen at checkout or renewal, carried by the consultation to its order), and the
-- reship of an undeliverable order (a new attempt; the earlier ones are kept in `previous_attempts`).
create table partner_pharmacies (
  id uuid primary key default gen_random_uuid(),
  name text not null check (char_length(name) between 1 and 200),
  address_line text not null check (char_length(address_line) between 1 and 300),
  postal_code text not null check (char_length(postal_code) between 1 and 20),
  city text not null check (char_length(city) between 1 and 120),
  country text not null check (country ~ '^[A-Z]{3}$'),
  -- [{day: "mon".."sun", opens: "HH:MM", closes: "HH:MM"}], validated by the API.
  opening_hours jsonb not null default '[]'::jsonb,
  click_and_collect boolean not null default false,
  delivery boolean not null default false,
  is_active boolean not null default true,
  deactivated_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  check (click_and_collect or delivery),
  check (is_active = (deactivated_at is null))
);
-- The patient's list: active pharmacies of one country.
create index partner_pharmacies_country_idx on partner_pharmacies (country, postal_code) where is_active;

alter table checkout_sessions add column collection_pharmacy_id uuid references partner_pharmacies(id) on delete set null;
alter table consultations add column collection_pharmacy_id uuid references partner_pharmacies(id) on delete set null;
alter table orders add column collection_pharmacy_id uuid references partner_pharmacies(id) on delete set null;

-- Reship: the attempt number and what the earlier attempts were; refund: when the back office refunded it.
alter table orders add column attempt integer not null default 1 check (attempt >= 1);
alter table orders add column previous_attempts jsonb not null default '[]'::jsonb;
alter table orders add column refunded_at timestamptz;
alter table orders add constraint orders_refunded_undeliverable_check check (refunded_at is null or status = 'undeliverable');
