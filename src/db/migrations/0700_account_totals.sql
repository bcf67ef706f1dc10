-- Per-account counters and money totals for the user summary that every consultation carries
-- (issue 11). Computing them per request scanned all of an account's consultations and payments: at
-- 100,000 consultations the list was 19x slower, and `sum(...)::int` overflowed into a 500. Triggers
-- keep them exact in the same transaction as each write, whichever module or driver writes; money is
-- bigint.
create table account_totals (
  user_id uuid primary key references users(id) on delete cascade,
  consultation_count bigint not null default 0,
  -- sum of amount_cents of payments whose status is not 'failed'
  spent_cents bigint not null default 0,
  -- sum of refunded_amount_cents of all payments
  refunded_cents bigint not null default 0
);

-- Every account has its row from the start, so the triggers below only ever UPDATE (an upsert would
-- fail when a cascaded delete of a user's consultations runs after the user row is gone).
--
-- The triggers are per statement, over transition tables: one UPDATE per account per statement.
-- Row-level triggers updated the same totals row once per inserted row, and in one transaction
-- every update of a row has to walk its earlier versions: a bulk insert of 100,000 payments for one
-- account ran for many minutes.
create function account_totals_users() returns trigger language plpgsql as $$
begin
  insert into account_totals (user_id) select id from new_rows on conflict (user_id) do nothing;
  return null;
end;
$$;

create trigger users_account_totals after insert on users
  referencing new table as new_rows
  for each statement execute function account_totals_users();

create function account_totals_consultations() returns trigger language plpgsql as $$
begin
  if tg_op = 'INSERT' then
    update account_totals t set consultation_count = t.consultation_count + d.n
      from (select user_id, count(*) as n from new_rows group by user_id) d
     where t.user_id = d.user_id;
  elsif tg_op = 'DELETE' then
    update account_totals t set consultation_count = t.consultation_count - d.n
      from (select user_id, count(*) as n from old_rows group by user_id) d
     where t.user_id = d.user_id;
  else
    update account_totals t set consultation_count = t.consultation_count + d.n
      from (select user_id, sum(n) as n
              from (select user_id, 1 as n from new_rows union all select user_id, -1 from old_rows) x
             group by user_id) d
     where t.user_id = d.user_id and d.n <> 0;
  end if;
  return null;
end;
$$;

create trigger consultations_account_totals_insert after insert on consultations
  referencing new table as new_rows
  for each statement execute function account_totals_consultations();
create trigger consultations_account_totals_delete after delete on consultations
  referencing old table as old_rows
  for each statement execute function account_totals_consultations();
create trigger consultations_account_totals_update after update on consultations
  referencing old table as old_rows new table as new_rows
  for each statement execute function account_totals_consultations();

-- spent: amount_cents of payments whose status is not 'failed'; refunded: refunded_amount_cents.
-- Each branch names only the transition tables its event has.
create function account_totals_payments() returns trigger language plpgsql as $$
begin
  if tg_op = 'INSERT' then
    update account_totals t set spent_cents = t.spent_cents + d.spent, refunded_cents = t.refunded_cents + d.refunded
      from (select user_id, sum(case when status <> 'failed' then amount_cents else 0 end) as spent,
                   sum(refunded_amount_cents) as refunded
              from new_rows group by user_id) d
     where t.user_id = d.user_id and (d.spent <> 0 or d.refunded <> 0);
  elsif tg_op = 'DELETE' then
    update account_totals t set spent_cents = t.spent_cents - d.spent, refunded_cents = t.refunded_cents - d.refunded
      from (select user_id, sum(case when status <> 'failed' then amount_cents else 0 end) as spent,
                   sum(refunded_amount_cents) as refunded
              from old_rows group by user_id) d
     where t.user_id = d.user_id and (d.spent <> 0 or d.refunded <> 0);
  else
    -- Most payment updates (invoice numbers, provider ids) move no money: no totals row is touched.
    update account_totals t set spent_cents = t.spent_cents + d.spent, refunded_cents = t.refunded_cents + d.refunded
      from (select user_id, sum(spent) as spent, sum(refunded) as refunded
              from (select user_id, case when status <> 'failed' then amount_cents::bigint else 0 end as spent,
                           refunded_amount_cents::bigint as refunded
                      from new_rows
                    union all
                    select user_id, -case when status <> 'failed' then amount_cents::bigint else 0 end,
                           -refunded_amount_cents::bigint
                      from old_rows) x
             group by user_id) d
     where t.user_id = d.user_id and (d.spent <> 0 or d.refunded <> 0);
  end if;
  return null;
end;
$$;

create trigger payments_account_totals_insert after insert on payments
  referencing new table as new_rows
  for each statement execute function account_totals_payments();
create trigger payments_account_totals_delete after delete on payments
  referencing old table as old_rows
  for each statement execute function account_totals_payments();
create trigger payments_account_totals_update after update on payments
  referencing old table as old_rows new table as new_rows
  for each statement execute function account_totals_payments();

-- Backfill the accounts that exist already.
insert into account_totals (user_id, consultation_count, spent_cents, refunded_cents)
select u.id,
       (select count(*) from consultations c where c.user_id = u.id),
       (select coalesce(sum(p.amount_cents::bigint), 0) from payments p where p.user_id = u.id and p.status <> 'failed'),
       (select coalesce(sum(p.refunded_amount_cents::bigint), 0) from payments p where p.user_id = u.id)
  from users u;

-- The summary's latest plan (status and date) is read by (user_id, created_at desc); the latest
-- prescription already has prescriptions_user_idx (user_id, issued_at desc).
create index subscriptions_user_created_idx on subscriptions (user_id, created_at desc, id desc);
