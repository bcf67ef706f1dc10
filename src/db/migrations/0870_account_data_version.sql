-- A version of everything an account's consultation list shows (issue 11), so that a page computed
-- once can be served again until something it shows changes (src/modules/consultations/list-cache.ts).
--
-- account_totals.data_version goes up, in the writer's own transaction, on every insert, update or
-- delete of a row the list reads for the account: its users row, its consultations, payments,
-- prescriptions, plans (subscriptions) and questionnaire submissions. Triggers do it, so every
-- writer (any module, the CLI, the back office, a hand-run UPDATE, both drivers) keeps the version
-- right without knowing about it. The list also shows doctors' names, e-mail and licence on every
-- consultation and prescription they handled; a change of those on a prescriber's row bumps one
-- service-wide epoch (account_data_epoch) instead of fanning out to every patient they ever saw.
--
-- Like migration 0700 the triggers are per statement over transition tables (one UPDATE per
-- account per statement, whatever the number of rows). The bump takes the account's totals row lock
-- until commit, as 0700's counters already do for consultation inserts and money movements: writers
-- of one account's data serialise on it; writers of different accounts never meet.
alter table account_totals add column data_version bigint not null default 0;

create table account_data_epoch (
  id boolean primary key default true check (id),
  version bigint not null default 0
);
insert into account_data_epoch (id, version) values (true, 0);

-- consultations, payments, prescriptions, subscriptions, questionnaire_submissions: each row has the
-- account in user_id. Each branch names only the transition tables its event has.
create function account_data_version_bump() returns trigger language plpgsql as $$
begin
  if tg_op = 'INSERT' then
    update account_totals t set data_version = t.data_version + 1
     where t.user_id in (select user_id from new_rows);
  elsif tg_op = 'DELETE' then
    update account_totals t set data_version = t.data_version + 1
     where t.user_id in (select user_id from old_rows);
  else
    update account_totals t set data_version = t.data_version + 1
     where t.user_id in (select user_id from new_rows union select user_id from old_rows);
  end if;
  return null;
end;
$$;

create trigger consultations_data_version_insert after insert on consultations
  referencing new table as new_rows for each statement execute function account_data_version_bump();
create trigger consultations_data_version_update after update on consultations
  referencing old table as old_rows new table as new_rows for each statement execute function account_data_version_bump();
create trigger consultations_data_version_delete after delete on consultations
  referencing old table as old_rows for each statement execute function account_data_version_bump();

create trigger payments_data_version_insert after insert on payments
  referencing new table as new_rows for each statement execute function account_data_version_bump();
create trigger payments_data_version_update after update on payments
  referencing old table as old_rows new table as new_rows for each statement execute function account_data_version_bump();
create trigger payments_data_version_delete after delete on payments
  referencing old table as old_rows for each statement execute function account_data_version_bump();

create trigger prescriptions_data_version_insert after insert on prescriptions
  referencing new table as new_rows for each statement execute function account_data_version_bump();
create trigger prescriptions_data_version_update after update on prescriptions
  referencing old table as old_rows new table as new_rows for each statement execute function account_data_version_bump();
create trigger prescriptions_data_version_delete after delete on prescriptions
  referencing old table as old_rows for each statement execute function account_data_version_bump();

create trigger subscriptions_data_version_insert after insert on subscriptions
  referencing new table as new_rows for each statement execute function account_data_version_bump();
create trigger subscriptions_data_version_update after update on subscriptions
  referencing old table as old_rows new table as new_rows for each statement execute function account_data_version_bump();
create trigger subscriptions_data_version_delete after delete on subscriptions
  referencing old table as old_rows for each statement execute function account_data_version_bump();

create trigger questionnaire_submissions_data_version_insert after insert on questionnaire_submissions
  referencing new table as new_rows for each statement execute function account_data_version_bump();
create trigger questionnaire_submissions_data_version_update after update on questionnaire_submissions
  referencing old table as old_rows new table as new_rows for each statement execute function account_data_version_bump();
create trigger questionnaire_submissions_data_version_delete after delete on questionnaire_submissions
  referencing old table as old_rows for each statement execute function account_data_version_bump();

-- users: any update of an account's own row bumps its version (the summary shows its names, e-mail,
-- locale, identity document; updates of users are rare and every one sets updated_at anyway). A
-- change of the columns the list shows of a prescriber (first_name, last_name, email,
-- doctor_license_number) bumps the epoch when the row is, or was, a doctor's or is named by any
-- consultation or prescription: a former doctor's old consultations still show their name.
create function account_data_version_users() returns trigger language plpgsql as $$
begin
  update account_totals t set data_version = t.data_version + 1
   where t.user_id in (select id from new_rows);
  if exists (
    select 1 from new_rows n join old_rows o on o.id = n.id
     where (n.first_name, n.last_name, n.email, n.doctor_license_number)
           is distinct from (o.first_name, o.last_name, o.email, o.doctor_license_number)
       and (n.is_doctor or o.is_doctor or n.doctor_license_number is not null or o.doctor_license_number is not null
            or exists (select 1 from consultations c where c.doctor_id = n.id)
            or exists (select 1 from prescriptions r where r.doctor_id = n.id))
  ) then
    update account_data_epoch set version = version + 1;
  end if;
  return null;
end;
$$;

create trigger users_data_version_update after update on users
  referencing old table as old_rows new table as new_rows for each statement execute function account_data_version_users();

-- The prescriber check above looks a user up by doctor_id.
create index consultations_doctor_idx on consultations (doctor_id) where doctor_id is not null;
create index prescriptions_doctor_idx on prescriptions (doctor_id);
