-- Issue 11: the status columns of consultations and subscriptions are closed sets, each moved only by
-- its status machine (consultations/status.ts, subscriptions/status.ts); the database refuses
-- anything else. The journal's enumerated columns likewise (side_effect_reports.severity already is).
alter table consultations
  add constraint consultations_status_check
  check (status in ('pending_review', 'approved', 'rejected', 'needs_information', 'cancelled', 'refunded'));
alter table consultations
  add constraint consultations_origin_check
  check (origin in ('checkout', 'subscription_covered', 'renewal', 'early_order', 'express_reorder'));
alter table consultations
  add constraint consultations_plan_check check (plan in ('one_off', 'subscription'));
alter table consultations
  add constraint consultations_patient_choice_status_check
  check (patient_choice_status is null or patient_choice_status in ('pending', 'confirmed', 'expired'));

alter table subscriptions
  add constraint subscriptions_status_check check (status in ('active', 'past_due', 'paused', 'canceled'));

alter table injections
  add constraint injections_injection_site_check
  check (injection_site is null or injection_site in ('abdomen', 'thigh', 'upper_arm'));
