-- Reissue reasons and doctors' decision notes sealed at rest (issue 43; docs/privacy.md, "Encryption
-- at rest"): the patient's reason for asking a prescription again, the doctor's reason for deciding
-- it, and the doctor's note on a consultation (why it was rejected, the question asked, the approval
-- note) are health data about one person. As in migration 1010, existing rows keep their plaintext
-- until the start-up pass (src/lib/sealed-columns.repository.ts, `npm run cli -- reencrypt`) seals it
-- and sets the plaintext column to null; new writes store only the sealed column.
alter table prescription_reissue_requests add column reason_enc text, add column decision_reason_enc text;
alter table prescription_reissue_requests alter column reason drop not null;
create index prescription_reissue_requests_plaintext_idx on prescription_reissue_requests (id) where reason is not null or decision_reason is not null;

-- consultations.decision_reason was '' when no note was given: that is now null (nothing to seal).
alter table consultations add column decision_reason_enc text;
alter table consultations alter column decision_reason drop not null;
alter table consultations alter column decision_reason drop default;
update consultations set decision_reason = null where decision_reason = '';
create index consultations_decision_reason_plaintext_idx on consultations (id) where decision_reason is not null;

-- A declined request gives its reason: now in either column (the plaintext one until sealed).
do $$
declare c text;
begin
  select conname into c from pg_constraint
   where conrelid = 'prescription_reissue_requests'::regclass and contype = 'c'
     and pg_get_constraintdef(oid) like '%declined%' and pg_get_constraintdef(oid) like '%decision_reason IS NOT NULL%';
  if c is not null then execute format('alter table prescription_reissue_requests drop constraint %I', c); end if;
end $$;
alter table prescription_reissue_requests add constraint prescription_reissue_requests_declined_reason
  check (status <> 'declined' or decision_reason is not null or decision_reason_enc is not null);
alter table prescription_reissue_requests add constraint prescription_reissue_requests_reason_stored
  check (reason is not null or reason_enc is not null);
