-- Message attachments in the database, where every process sees them (issue 22; docs/messages.md,
-- "Storage"). One row per file: its bytes sealed with the data-encryption key ring (AES-256-GCM,
-- src/lib/crypto.ts sealBytes, the storage key as associated data), and the id of the key that
-- sealed them (for key rotation). The reference to message_files is checked at commit: the bytes
-- are written just before their file row, in the same transaction.
create table file_blobs (
  storage_key text primary key references message_files(storage_key) on delete cascade deferrable initially deferred,
  key_id text not null,
  sealed bytea not null,
  created_at timestamptz not null default now()
);
