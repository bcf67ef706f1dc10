-- Issue 23: the health-data duties of an EU controller (docs/privacy.md).
--
-- consents: every consent decision of an account, appended (never updated): the current state of a
-- kind is its newest row. access_log: who (staff) read or wrote which part of a patient's record;
-- append-only, enforced below. users.erased_at: the account was erased (Art. 17) and its row
-- pseudonymised; the row stays because retained records (invoices, prescriptions) point at it.

create table consents (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references users(id) on delete cascade,
  kind text not null check (kind in ('health_data_processing', 'terms', 'privacy', 'marketing')),
  version text not null check (length(version) between 1 and 64),
  granted boolean not null,
  created_at timestamptz not null default now()
);
create index consents_user_idx on consents (user_id, kind, created_at desc, id desc);

-- No foreign key to users: the log outlives anything it names, and a cascade would be a DELETE.
create table access_log (
  id uuid primary key default gen_random_uuid(),
  patient_id uuid not null,
  actor_id uuid,
  actor_role text not null check (actor_role in ('doctor', 'backoffice_admin', 'pharmacist')),
  actor_name text not null,
  action text not null check (action in ('read', 'write')),
  resource_type text not null check (resource_type in ('consultation', 'conversation', 'message_file', 'journal', 'prescription', 'profile', 'payment')),
  resource_id text not null,
  at timestamptz not null default now()
);
create index access_log_patient_idx on access_log (patient_id, at desc, id desc);

create function access_log_append_only() returns trigger language plpgsql as $$
begin
  raise exception 'access_log is append-only (% refused)', tg_op using errcode = '42501';
end $$;
create trigger access_log_no_update_delete before update or delete on access_log
  for each row execute function access_log_append_only();
create trigger access_log_no_truncate before truncate on access_log
  for each statement execute function access_log_append_only();

-- The staff writes recorded before this migration (audit_log), as write entries of their patient.
insert into access_log (patient_id, actor_id, actor_role, actor_name, action, resource_type, resource_id, at)
select o.patient_id, a.id, case when a.is_doctor then 'doctor' else 'backoffice_admin' end,
       trim(a.first_name || ' ' || a.last_name), 'write', o.resource_type, l.subject_id, l.created_at
  from audit_log l
  join users a on a.id = l.actor_id and (a.is_doctor or a.is_backoffice_admin)
  join lateral (
    select c.user_id as patient_id, 'consultation' as resource_type from consultations c where l.subject_type = 'consultation' and c.id::text = l.subject_id
    union all
    select v.user_id, 'conversation' from conversations v where l.subject_type = 'conversation' and v.id::text = l.subject_id
    union all
    select p.user_id, 'payment' from payments p where l.subject_type = 'payment' and p.id::text = l.subject_id
    union all
    select u.id, 'profile' from users u where l.subject_type = 'user' and u.id::text = l.subject_id
  ) o on true;

alter table users add column erased_at timestamptz;
