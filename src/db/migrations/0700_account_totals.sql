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
create function account_totals_user_created() returns trigger language plpgsql as $$
begin
  insert into account_totals (user_id) values (new.id) on conflict (user_id) do nothing;
  return null;
end;
$$;

create trigger users_account_totals after insert on users
  for each row execute function account_totals_user_created();

create function account_totals_consultations() returns trigger language plpgsql as $$
begin
  if tg_op = 'UPDATE' and new.user_id is not distinct from old.user_id then
    return null;
  end if;
  if tg_op in ('UPDATE', 'DELETE') then
    update account_totals set consultation_count = consultation_count - 1 where user_id = old.user_id;
  end if;
  if tg_op in ('UPDATE', 'INSERT') then
    update account_totals set consultation_count = consultation_count + 1 where user_id = new.user_id;
  end if;
  return null;
end;
$$;

create trigger consultations_account_totals after insert or delete or update of user_id on consultations
  for each row execute function account_totals_consultations();

create function account_totals_payments() returns trigger language plpgsql as $$
declare
  old_spent bigint := 0;
  old_refunded bigint := 0;
  new_spent bigint := 0;
  new_refunded bigint := 0;
begin
  if tg_op in ('UPDATE', 'DELETE') then
    old_spent := case when old.status <> 'failed' then old.amount_cents else 0 end;
    old_refunded := coalesce(old.refunded_amount_cents, 0);
  end if;
  if tg_op in ('UPDATE', 'INSERT') then
    new_spent := case when new.status <> 'failed' then new.amount_cents else 0 end;
    new_refunded := coalesce(new.refunded_amount_cents, 0);
  end if;
  if tg_op = 'UPDATE' and new.user_id is not distinct from old.user_id then
    -- Most payment updates (invoice numbers, provider ids) move no money: take no row lock then.
    if new_spent <> old_spent or new_refunded <> old_refunded then
      update account_totals
         set spent_cents = spent_cents + new_spent - old_spent,
             refunded_cents = refunded_cents + new_refunded - old_refunded
       where user_id = new.user_id;
    end if;
    return null;
  end if;
  if tg_op in ('UPDATE', 'DELETE') and (old_spent <> 0 or old_refunded <> 0) then
    update account_totals set spent_cents = spent_cents - old_spent, refunded_cents = refunded_cents - old_refunded where user_id = old.user_id;
  end if;
  if tg_op in ('UPDATE', 'INSERT') and (new_spent <> 0 or new_refunded <> 0) then
    update account_totals set spent_cents = spent_cents + new_spent, refunded_cents = refunded_cents + new_refunded where user_id = new.user_id;
  end if;
  return null;
end;
$$;

create trigger payments_account_totals after insert or delete or update of user_id, status, amount_cents, refunded_amount_cents on payments
  for each row execute function account_totals_payments();

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
