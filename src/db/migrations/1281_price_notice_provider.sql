-- Plans Stripe bills itself follow a noticed price change too: once the period that ends at the
-- notice's effective date is running (its invoice at the old price is already drafted), the sweep
-- sets the new price on the provider's subscription without proration, so the first invoice at the
-- new price is the period the notice names. `provider_applied_at` records that the provider has it.
alter table plan_price_notices add column provider_applied_at timestamptz;
