-- Issue 27: paused_by_patient is read only together with status `paused` (docs/plan-management.md).
-- Other modules end or move paused plans without knowing the flag (erasure, a rejected review,
-- dunning), so the flag must not stop them: the check of 1090 goes.
alter table subscriptions drop constraint subscriptions_patient_pause_paused;
