-- Issue 11: the scheduler's scans of plans whose period ends (the recurring charge, the renewal
-- window, ending plans set to cancel) read live plans by period end; without this index each run
-- reads every plan ever sold.
create index subscriptions_due_idx on subscriptions (current_period_end)
  where status in ('active', 'past_due', 'paused');
-- The review desk's queue: consultations waiting for a doctor, oldest first.
create index consultations_review_queue_idx on consultations (created_at, id)
  where status in ('pending_review', 'needs_information');
