-- A plan the payment provider bills itself (Stripe) is charged only for a period whose renewal a
-- doctor approved (issue 20), like the plans this service charges. Stripe drafts the next invoice at
-- the period end (invoice.created); when the renewal is not approved yet the draft is held
-- (auto_advance off) and its id kept here until the approval releases it (finalise and pay) or the
-- plan's end discards it. Null: nothing held.
alter table subscriptions add column held_provider_invoice_id text;
