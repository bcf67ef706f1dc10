-- A version of everything an account's consultation list shows (issue 11), so that a page computed
-- once can be served again until something it shows changes (src/lib/page-cache.ts).
--
-- account_totals.data_version goes up, in the writer's own transaction, on every insert, update or
-- delete of a row the list reads for the account: its users row, its consultations, payments,
-- prescriptions, plans (subscriptions) and questionnaire submissions. Triggers do it, so every
-- writer (any module, the CLI, the back office, a hand-run UPDATE, both drivers) keeps the version
-- right without knowing about it. The list also shows doctors' names, e-mail and licence on every
-- consultation and prescription they handled; a change of those on a prescriber's row bumps one
-- service-wide epoch (account_data_epoch) instead of fanning out to every patient they ever saw.
--
-- When the bump happens: at COMMIT (deferred constraint triggers), not after each statement. The
-- bump updates the account's totals row, and a row lock taken mid-transaction and held to the end
-- orders locks badly: a writer that bumped after its first statement and then waits for a row
-- another writer of the same account holds, while that one waits for the totals row, is a
-- deadlock. Taken at commit, after every other lock of the transaction, the totals row lock is held
-- for the commit alone and waits on no other row. (Migration 0700's counters still lock it at once
-- on consultation inserts and money movements; their cost model is separate.)
--
-- One bump per account per transaction: bumped_by records the transaction that last raised the
-- version, and a later event of the same transaction finds it and writes nothing. Without it a bulk
-- insert of 100,000 rows would update one row 100,000 times in one transaction, and every update of
-- a row in one transaction walks its earlier versions (the reason 0700's triggers are per statement).
-- A bump made in a subtransaction that rolls back is rolled back with it, bumped_by too.
alter table account_totals add column data_version bigint not null default 0;
alter table account_totals add column bumped_by xid8;

create table account_data_epoch (
  id boolean primary key default true check (id),
  version bigint not null default 0
);
insert into account_data_epoch (id, version) values (true, 0);

create function account_data_version_raise(account uuid) returns void language sql as $$
  update account_totals set data_version = data_version + 1, bumped_by = pg_current_xact_id()
   where user_id = account and bumped_by is distinct from pg_current_xact_id();
$$;

-- consultations, payments, prescriptions, subscriptions, questionnaire_submissions: each row has the
-- account in user_id (an update that moves a row to another account raises both). The list joins a
-- consultation's payments, prescriptions and submission by consultation; their user_id is the
-- consultation's account, as checkout, the ledger and prescribing write them.
create function account_data_version_bump() returns trigger language plpgsql as $$
begin
  if tg_op <> 'DELETE' then
    perform account_data_version_raise(new.user_id);
  end if;
  if tg_op = 'DELETE' or (tg_op = 'UPDATE' and old.user_id is distinct from new.user_id) then
    perform account_data_version_raise(old.user_id);
  end if;
  return null;
end;
$$;

create constraint trigger consultations_data_version after insert or update or delete on consultations
  deferrable initially deferred for each row execute function account_data_version_bump();
create constraint trigger payments_data_version after insert or update or delete on payments
  deferrable initially deferred for each row execute function account_data_version_bump();
create constraint trigger prescriptions_data_version after insert or update or delete on prescriptions
  deferrable initially deferred for each row execute function account_data_version_bump();
create constraint trigger subscriptions_data_version after insert or update or delete on subscriptions
  deferrable initially deferred for each row execute function account_data_version_bump();
create constraint trigger questionnaire_submissions_data_version after insert or update or delete on questionnaire_submissions
  deferrable initially deferred for each row execute function account_data_version_bump();

-- users: any update of an account's own row raises its version (the summary shows its names, e-mail,
-- locale, identity document; updates of users are rare and every one sets updated_at anyway). A
-- change of the columns the list shows of a prescriber (first_name, last_name, email,
-- doctor_license_number) raises the epoch when the row is, or was, a doctor's or is named by any
-- consultation or prescription: a former doctor's old consultations still show their name.
create function account_data_version_users() returns trigger language plpgsql as $$
begin
  perform account_data_version_raise(new.id);
  if (new.first_name, new.last_name, new.email, new.doctor_license_number)
       is distinct from (old.first_name, old.last_name, old.email, old.doctor_license_number)
     and (new.is_doctor or old.is_doctor or new.doctor_license_number is not null or old.doctor_license_number is not null
          or exists (select 1 from consultations c where c.doctor_id = new.id)
          or exists (select 1 from prescriptions r where r.doctor_id = new.id)) then
    update account_data_epoch set version = version + 1;
  end if;
  return null;
end;
$$;

create constraint trigger users_data_version after update on users
  deferrable initially deferred for each row execute function account_data_version_users();

-- account_totals itself: the list shows its counters and money totals. Migration 0700's triggers
-- change them only beside writes that raise the version anyway, but a repair run by hand
-- (`update account_totals set spent_cents = ...`) must not leave a cached page showing the old sum:
-- a change of a shown column raises the version in the same row write (taking no lock the write
-- does not take), and marks the transaction's bump as made, so the deferred one does not repeat it.
create function account_data_version_totals() returns trigger language plpgsql as $$
begin
  if (new.consultation_count, new.spent_cents, new.refunded_cents) is distinct from (old.consultation_count, old.spent_cents, old.refunded_cents)
     and new.data_version = old.data_version then
    new.data_version := old.data_version + 1;
    new.bumped_by := pg_current_xact_id();
  end if;
  return new;
end;
$$;

create trigger account_totals_data_version before update on account_totals
  for each row execute function account_data_version_totals();

-- The prescriber check above looks a user up by doctor_id.
create index consultations_doctor_idx on consultations (doctor_id) where doctor_id is not null;
create index prescriptions_doctor_idx on prescriptions (doctor_id);
