-- Issue 25: prescription reissue requests (docs/pharmacy.md "Prescription reissue requests"). A
-- patient asks for a prescription to be issued again (lost, damaged, the pharmacy needs a new one);
-- a doctor approves (a new prescription that names the original in `reissued_from`) or declines with
-- a reason. One pending request per prescription.
alter table prescriptions add column reissued_from uuid references prescriptions(id) on delete set null;

create table prescription_reissue_requests (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references users(id) on delete cascade,
  prescription_id uuid not null references prescriptions(id) on delete cascade,
  status text not null default 'pending' check (status in ('pending', 'approved', 'declined')),
  reason text not null check (char_length(reason) between 1 and 2000),
  decision_reason text check (decision_reason is null or char_length(decision_reason) between 1 and 2000),
  decided_by uuid references users(id) on delete set null,
  decided_at timestamptz,
  new_prescription_id uuid references prescriptions(id) on delete set null,
  created_at timestamptz not null default now(),
  check ((status = 'pending') = (decided_at is null)),
  check (status <> 'approved' or new_prescription_id is not null),
  check (status <> 'declined' or decision_reason is not null)
);
create unique index prescription_reissue_one_pending on prescription_reissue_requests (prescription_id) where status = 'pending';
create index prescription_reissue_user_idx on prescription_reissue_requests (user_id, created_at desc);
create index prescription_reissue_queue_idx on prescription_reissue_requests (created_at, id) where status = 'pending';
