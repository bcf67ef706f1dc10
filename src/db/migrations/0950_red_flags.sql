-- The red-flag desk (docs/red-flags.md): every patient free text the emergency detector reads
-- (messages, journal notes, weight and injection notes, side-effect reports, questionnaire text
-- answers, connector inputs) that raises a red flag leaves one row here, for a clinician to work
-- through and resolve. `kind`: emergency (the patient was shown the emergency notice), history (a
-- past event or a negated mention of suicide: shown to the team, no notice) or review (a side-effect
-- rule, e.g. dehydration on a GLP-1 at moderate severity).
create table red_flags (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references users(id) on delete cascade,
  source text not null check (source in ('message', 'journal_note', 'weight_entry', 'injection', 'side_effect', 'questionnaire', 'connector')),
  source_id uuid,
  kind text not null check (kind in ('emergency', 'history', 'review')),
  categories text[] not null check (cardinality(categories) > 0),
  excerpt text not null check (char_length(excerpt) <= 1000),
  created_at timestamptz not null default now(),
  resolved_at timestamptz,
  resolved_by uuid references users(id) on delete set null,
  resolution text,
  check ((resolved_at is null) = (resolution is null))
);
-- The desk reads open flags, emergencies first, oldest first.
create index red_flags_open_idx on red_flags ((kind = 'emergency') desc, created_at) where resolved_at is null;
create index red_flags_user_idx on red_flags (user_id, created_at desc);
