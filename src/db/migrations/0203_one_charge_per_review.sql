-- One charge per review (issue: two checkout tabs for one submission, both paid, created two
-- consultations, two payments and two plans). Finalisation refunds a second paid session; these
-- constraints make the rule hold in the database too, whatever the code path.

-- A paid session that duplicated a review already paid for: refunded through the provider.
alter table checkout_sessions add column refunded_at timestamptz;
alter table checkout_sessions add column refund_reason text;
alter table checkout_sessions add column provider_refund_id text;
alter table checkout_sessions add constraint checkout_sessions_status_check check (status in ('open', 'paid', 'declined', 'expired', 'refunded'));
create index checkout_sessions_submission_idx on checkout_sessions (submission_id) where status = 'open';

-- One live consultation per questionnaire submission (a cancelled or refunded one frees it).
create unique index consultations_one_live_per_submission on consultations (questionnaire_submission_id)
  where questionnaire_submission_id is not null and status not in ('cancelled', 'refunded');

-- One live treatment plan per patient and category.
create unique index subscriptions_one_live_per_category on subscriptions (user_id, category)
  where status in ('active', 'past_due', 'paused');
