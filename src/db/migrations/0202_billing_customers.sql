-- The provider's customer of a plan (Stripe: cus_...), for the billing portal.
alter table subscriptions add column provider_customer_id text;
alter table checkout_sessions add column provider_customer_id text;
