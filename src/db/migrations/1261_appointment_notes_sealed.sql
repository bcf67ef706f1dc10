-- The doctor's note on a call and the doctor's reason for cancelling or moving it are free text about
-- one patient: sealed at rest like the decision notes (migration 1231; docs/privacy.md, "Encryption at
-- rest"). Existing notes keep their plaintext until the start-up pass (src/lib/sealed-columns.repository.ts,
-- `npm run cli -- reencrypt`) seals them and sets the plaintext column to null; new writes store only
-- the sealed columns.
alter table appointments add column outcome_note_enc text;
alter table appointments add column doctor_reason_enc text;
create index appointments_outcome_note_plaintext_idx on appointments (id) where outcome_note is not null;
