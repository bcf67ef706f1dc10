-- Red-flag tiers (docs/red-flags.md "Tiers"): a current red flag is either an emergency (the patient
-- was told to call the emergency number now) or urgent (told to see a doctor today, with the
-- country's out-of-hours number). Each flag carries its tier and the time by which the desk must have
-- acted on it (`due_at`), and the evidence the detector read (the words a rule matched or the model's
-- strongest n-grams, per category) so the desk can see why it was raised.
alter table red_flags drop constraint red_flags_kind_check;
alter table red_flags add constraint red_flags_kind_check check (kind in ('emergency', 'urgent', 'history', 'review'));
alter table red_flags add column tier text check (tier in ('emergency', 'urgent'));
alter table red_flags add column due_at timestamptz;
alter table red_flags add column evidence jsonb not null default '[]'::jsonb;
-- The desk works through open flags by deadline.
create index red_flags_open_due_idx on red_flags (due_at) where resolved_at is null;
