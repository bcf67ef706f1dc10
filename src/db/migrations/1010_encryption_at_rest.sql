-- Issue 23: health data encrypted at rest with the data-encryption key ring (docs/privacy.md,
-- "Encryption at rest"; src/lib/sealed.ts). Each `*_enc` column holds `v2.<key id>.<iv>.<tag>.<data>`
-- (AES-256-GCM; JSON values sealed as their JSON text). SQL cannot encrypt, so existing rows keep
-- their plaintext column until the start-up pass (src/lib/sealed-columns.repository.ts, also
-- `npm run cli -- reencrypt`) seals it and sets the plaintext column to null. New writes store only
-- the sealed column; a read takes the plaintext column when it is not null (a row not sealed yet, or
-- written by a process older than this migration during a rolling deploy), else the sealed one.
-- The plaintext columns keep their defaults ('[]', ''), which an older writer relies on; new writes
-- set them to null explicitly. The partial indexes find the rows still in plaintext without scanning the tables.

alter table questionnaire_drafts add column data_enc text;
alter table questionnaire_drafts alter column data drop not null;
alter table questionnaire_drafts add constraint questionnaire_drafts_data_stored check (data is not null or data_enc is not null);
create index questionnaire_drafts_plaintext_idx on questionnaire_drafts (id) where data is not null;

alter table questionnaire_submissions add column answers_enc text;
alter table questionnaire_submissions alter column answers drop not null;
alter table questionnaire_submissions add constraint questionnaire_submissions_answers_stored check (answers is not null or answers_enc is not null);
create index questionnaire_submissions_plaintext_idx on questionnaire_submissions (id) where answers is not null;

-- form_snapshot: the answers the consultation was made from; renewal_details: the renewal's answers,
-- change note and the engine's verdict.
alter table consultations add column form_snapshot_enc text, add column renewal_details_enc text;
alter table consultations alter column form_snapshot drop not null;
alter table consultations add constraint consultations_form_snapshot_stored check (form_snapshot is not null or form_snapshot_enc is not null);
create index consultations_plaintext_idx on consultations (id) where form_snapshot is not null or renewal_details is not null;

alter table messages add column content_enc text;
alter table messages alter column content drop not null;
alter table messages add constraint messages_content_stored check (content is not null or content_enc is not null);
create index messages_plaintext_idx on messages (id) where content is not null;

alter table journal_notes add column content_enc text;
alter table journal_notes alter column content drop not null;
alter table journal_notes add constraint journal_notes_content_stored check (content is not null or content_enc is not null);
create index journal_notes_plaintext_idx on journal_notes (id) where content is not null;

alter table side_effect_reports add column note_enc text;
alter table side_effect_reports alter column note drop not null;
alter table side_effect_reports add constraint side_effect_reports_note_stored check (note is not null or note_enc is not null);
create index side_effect_reports_plaintext_idx on side_effect_reports (id) where note is not null;

-- The first answer of an Idempotency-Key request is replayed for 24 hours: it carries what the request
-- created (a message, answers), so it is sealed too.
alter table idempotency_keys add column response_body_enc text;
