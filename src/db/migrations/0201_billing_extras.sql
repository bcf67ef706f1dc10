-- Billing additions (additive only: 0200's columns are relied on by other modules).
alter table checkout_sessions add column checkout_url text;
alter table checkout_sessions add column cycle_days integer;
alter table checkout_sessions add column supply_days integer;
alter table checkout_sessions add column treatment_name text not null default '';
alter table checkout_sessions add column provider_payment_id text;
alter table checkout_sessions add column provider_subscription_id text;
alter table checkout_sessions add column decline_code text;

-- Exactly one payment per paid checkout session (finalisation may run many times concurrently).
alter table payments add column checkout_session_id text unique references checkout_sessions(id);
-- Sequential invoice numbers (EU invoicing: a unique, sequential number per invoice).
create sequence invoice_number_seq start 1000;
alter table payments add column invoice_number bigint unique;
-- The billing period a recurring charge pays for: one successful charge per subscription period.
alter table payments add column period_start timestamptz;
create unique index payments_subscription_period_paid_key on payments (subscription_id, period_start) where status <> 'failed' and period_start is not null;
create index payments_subscription_idx on payments (subscription_id);
create index payments_consultation_idx on payments (consultation_id);

alter table subscriptions add column failed_attempts integer not null default 0;
alter table subscriptions add column next_charge_attempt_at timestamptz;
create unique index subscriptions_provider_key on subscriptions (provider, provider_subscription_id) where provider_subscription_id is not null;

create index prescriptions_consultation_idx on prescriptions (consultation_id);
create index orders_consultation_idx on orders (consultation_id);
