-- The patient's goal weight (docs/journal.md): one row per account, kept on the server so it follows
-- the patient to every device. A cleared goal keeps its row with a null weight (updated_at says when).
create table journal_goals (
  user_id uuid primary key references users(id) on delete cascade,
  goal_weight_kg numeric(5, 2) check (goal_weight_kg is null or goal_weight_kg between 20 and 500),
  updated_at timestamptz not null default now()
);
