-- Red flags raised while a questionnaire was a draft (issue 10, anti-gaming): a red-flag answer that
-- is unticked before submitting must still reach a doctor. One row per patient, category and rule
-- code; kept after the draft is submitted or replaced (the submission copies the codes it saw).
create table questionnaire_draft_red_flags (
  user_id uuid not null references users(id) on delete cascade,
  category text not null,
  code text not null,
  -- the answer keys the red-flag rule read, e.g. {urgent_symptoms}
  question_keys text[] not null default '{}',
  first_raised_at timestamptz not null default now(),
  last_raised_at timestamptz not null default now(),
  times integer not null default 1,
  primary key (user_id, category, code)
);
