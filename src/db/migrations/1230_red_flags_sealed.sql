-- Red-flag excerpts and evidence sealed at rest (issue 43; docs/privacy.md, "Encryption at rest"):
-- the excerpt is the patient's own words (about suicide, self-harm, chest pain), the evidence the
-- words or n-grams the detector matched in them. Both move to sealed columns as the other health
-- texts did in migration 1010: SQL cannot encrypt, so existing rows keep their plaintext until the
-- start-up pass (src/lib/sealed-columns.repository.ts, also `npm run cli -- reencrypt`) seals them,
-- writes the excerpt's keyed hash and sets the plaintext columns to null. New writes store only the
-- sealed columns.
--
-- The desk files the same unresolved words from the same place once: that comparison uses
-- `excerpt_hash`, an HMAC-SHA-256 of the excerpt under a key derived from the data-encryption keys
-- (src/lib/sealed.ts, keyedTextHash), never the plaintext.
--
-- Erasure empties every one of these columns (the flag's kind, categories, times and resolution stay).
alter table red_flags add column excerpt_enc text, add column excerpt_hash text, add column evidence_enc text;
alter table red_flags alter column excerpt drop not null;
alter table red_flags alter column evidence drop not null;
alter table red_flags alter column evidence drop default;
create index red_flags_plaintext_idx on red_flags (id) where excerpt is not null or evidence is not null;
-- The duplicate check of a new flag: the account's open flags with the same keyed hash.
create index red_flags_open_hash_idx on red_flags (user_id, excerpt_hash) where resolved_at is null;
