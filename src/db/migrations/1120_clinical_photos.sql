-- Clinical photos (docs/photos.md): pictures a patient takes for the doctor (a questionnaire's photo
-- question, or a photo added to an open consultation). Only the re-encoded JPEG is kept (no EXIF, no
-- GPS: src/lib/images.ts), sealed like message attachments (AES-256-GCM with the data-encryption key
-- ring, the storage key as associated data) in the configured file store: the database
-- (clinical_photo_blobs) or an S3-compatible bucket. A photo answering a questionnaire names its
-- category and question; one added to a consultation has no question. Which consultation shows a
-- photo is the consultation's own `images` list (consultations module).
create table clinical_photos (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references users(id) on delete cascade,
  category text not null,
  question_key text,
  storage_key text not null unique,
  size_bytes integer not null check (size_bytes > 0),
  width integer not null check (width > 0),
  height integer not null check (height > 0),
  created_at timestamptz not null default now()
);
create index clinical_photos_user_idx on clinical_photos (user_id, category, question_key);

-- The sealed bytes in the database (FILE_STORE=database): written just before their photo row in the
-- same transaction, so the reference is checked at commit; deleted with the row.
create table clinical_photo_blobs (
  storage_key text primary key references clinical_photos(storage_key) on delete cascade deferrable initially deferred,
  key_id text not null,
  sealed bytea not null,
  created_at timestamptz not null default now()
);

-- A doctor's view of a photo is written to the patient's access log.
alter table access_log drop constraint access_log_resource_type_check;
alter table access_log add constraint access_log_resource_type_check
  check (resource_type in ('consultation', 'conversation', 'message_file', 'journal', 'prescription', 'profile', 'payment', 'order', 'clinical_photo'));
