-- Renewals: one renewal consultation per subscription period; early orders once per period; pauses.
alter table consultations add column renewal_period_end timestamptz;
create unique index consultations_renewal_period_key on consultations (subscription_id, origin, renewal_period_end)
  where origin in ('renewal', 'early_order') and renewal_period_end is not null;
-- the current_period_end a period had when an early order produced it (once per period)
alter table subscriptions add column early_ordered_period_end timestamptz;
alter table subscriptions add column paused_at timestamptz;
alter table subscriptions add column renewal_reminded_at timestamptz;
-- the period end a postponement moved (a period can be postponed once)
alter table subscriptions add column postponed_period_end timestamptz;
