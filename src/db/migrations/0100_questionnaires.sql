-- Questionnaire drafts and submissions. The catalogue itself is data under catalogue/ (validated
-- at start-up); versions are referenced by their uuid.
create table questionnaire_drafts (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references users(id) on delete cascade,
  category text not null,
  version_id uuid not null,
  data jsonb not null default '[]'::jsonb,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (user_id, category)
);

create table questionnaire_submissions (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references users(id) on delete cascade,
  category text not null,
  version_id uuid not null,
  answers jsonb not null,
  -- eligible | ineligible | emergency | held_for_review
  outcome text not null,
  result jsonb not null default '{}'::jsonb,
  created_at timestamptz not null default now()
);
create index questionnaire_submissions_user_idx on questionnaire_submissions (user_id, category, created_at desc);
