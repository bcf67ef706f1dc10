-- An extraordinary cancellation (for good cause, § 314 BGB) names its reason on the public form
-- (§ 312k (2) 1 b BGB): sealed at rest like other free text of a patient. Confirmed, it ends the
-- plans at once (or at the period end when the date asked is later), and waits for the back
-- office to review the reason and any refund of the period already paid (`reviewed_at`).
alter table plan_cancel_requests add column reason_enc text;
alter table plan_cancel_requests add column reviewed_at timestamptz;
alter table plan_cancel_requests add column reviewed_by uuid references users(id) on delete set null;
alter table plan_cancel_requests add column review_note_enc text;
-- Only an extraordinary cancellation has a reason (erasure removes it: the row stays as the receipt).
alter table plan_cancel_requests add constraint plan_cancel_requests_reason check (kind = 'extraordinary' or reason_enc is null);
