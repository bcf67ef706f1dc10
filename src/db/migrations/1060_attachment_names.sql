-- The name a patient's attachment was uploaded with (issue 27: attachments show their name). A file
-- name can say as much as the file ("hiv-test-result.pdf"), so it is sealed at rest like message
-- bodies (src/lib/sealed.ts); null for files uploaded before this, which keep the generated name.
alter table message_files add column name_enc text;
