-- Checkout sessions, consultations, payments, subscriptions, prescriptions and orders.
create table subscriptions (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references users(id) on delete cascade,
  category text not null,
  treatment_id text not null,
  dosage text not null default '',
  -- active | past_due | paused | canceled
  status text not null,
  provider text not null,
  provider_subscription_id text,
  price_cents integer not null,
  currency text not null default 'EUR',
  interval text not null default 'day',
  interval_count integer not null default 28,
  cycle_days integer not null,
  started_at timestamptz not null,
  current_period_start timestamptz not null,
  current_period_end timestamptz not null,
  cancel_at_period_end boolean not null default false,
  canceled_at timestamptz,
  payment_method_brand text,
  payment_method_last4 text,
  early_order_locked_until timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index subscriptions_user_idx on subscriptions (user_id, category);

create table checkout_sessions (
  id text primary key,
  user_id uuid not null references users(id) on delete cascade,
  provider text not null,
  category text not null,
  plan text not null,
  treatment_id text not null,
  dosage text not null default '',
  submission_id uuid references questionnaire_submissions(id),
  amount_cents integer not null,
  currency text not null default 'EUR',
  -- open | paid | declined | expired
  status text not null default 'open',
  success_url text,
  cancel_url text,
  expires_at timestamptz not null,
  -- set once, by whichever of session check or webhook finalises first
  finalised_at timestamptz,
  consultation_id uuid,
  payment_method_brand text,
  payment_method_last4 text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index checkout_sessions_user_idx on checkout_sessions (user_id);

create table consultations (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references users(id) on delete cascade,
  doctor_id uuid references users(id),
  category text not null,
  -- pending_review | approved | rejected | needs_information | cancelled | refunded
  status text not null default 'pending_review',
  -- checkout | subscription_covered | renewal | early_order | express_reorder
  origin text not null default 'checkout',
  plan text not null,
  supply_days integer,
  decision_reason text not null default '',
  treatment_id text not null default '',
  dosage text not null default '',
  images jsonb not null default '[]'::jsonb,
  form_snapshot jsonb not null default '[]'::jsonb,
  questionnaire_submission_id uuid references questionnaire_submissions(id),
  subscription_id uuid references subscriptions(id),
  checkout_session_id text unique references checkout_sessions(id),
  store_order_id text,
  -- renewal choice (subscriptions module): null for non-renewals, else pending | confirmed | expired
  patient_choice_status text,
  renewal_details jsonb,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  decided_at timestamptz
);
create index consultations_user_idx on consultations (user_id, created_at desc);
create index consultations_status_idx on consultations (status, created_at);

create table payments (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references users(id) on delete cascade,
  consultation_id uuid references consultations(id),
  subscription_id uuid references subscriptions(id),
  provider text not null,
  provider_payment_id text not null,
  provider_checkout_id text not null default '',
  provider_order_id text,
  provider_order_name text,
  is_recurring boolean not null default false,
  billing_reason text not null default '',
  amount_cents integer not null,
  refunded_amount_cents integer not null default 0,
  currency text not null default 'EUR',
  -- succeeded | failed | refunded | partially_refunded
  status text not null,
  failure_code text not null default '',
  failed_at timestamptz,
  description text not null default '',
  captured_at timestamptz,
  refund jsonb,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (provider, provider_payment_id)
);
create index payments_user_idx on payments (user_id, created_at desc);

create table prescriptions (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references users(id) on delete cascade,
  consultation_id uuid not null references consultations(id),
  doctor_id uuid not null references users(id),
  category text not null,
  treatment_id text not null,
  treatment_name text not null,
  dosage text not null,
  instructions text not null default '',
  supply_days integer,
  issued_at timestamptz not null default now(),
  valid_until timestamptz,
  created_at timestamptz not null default now()
);
create index prescriptions_user_idx on prescriptions (user_id, issued_at desc);

create table orders (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references users(id) on delete cascade,
  consultation_id uuid references consultations(id),
  prescription_id uuid references prescriptions(id),
  -- awaiting_fulfilment | shipped | delivered | cancelled
  status text not null default 'awaiting_fulfilment',
  items jsonb not null default '[]'::jsonb,
  shipping_address jsonb,
  carrier text,
  tracking_number text,
  tracking_url text,
  shipped_at timestamptz,
  delivered_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index orders_user_idx on orders (user_id, created_at desc);

create table webhook_events (
  provider text not null,
  event_id text not null,
  type text not null,
  received_at timestamptz not null default now(),
  primary key (provider, event_id)
);
