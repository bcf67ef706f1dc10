-- The patient orders a repeat of a prescription (docs/prescriptions.md, "Repeats"): a checkout
-- session of kind `repeat_supply` pays for one supply of the prescription's medicine, and its
-- finalisation opens the order the pharmacy dispenses as the repeat.
alter table checkout_sessions add column kind text not null default 'consultation';
alter table checkout_sessions add constraint checkout_sessions_kind_check check (kind in ('consultation', 'repeat_supply'));
alter table checkout_sessions add column prescription_id uuid references prescriptions(id);
alter table checkout_sessions add constraint checkout_sessions_repeat_prescription_check
  check ((kind = 'repeat_supply') = (prescription_id is not null));
-- One payable repeat checkout per prescription: a newer one replaces the older (as for submissions, 0900).
create unique index checkout_sessions_one_open_per_prescription on checkout_sessions (prescription_id) where status = 'open';

alter table checkout_sessions drop constraint checkout_sessions_refund_reason_check;
alter table checkout_sessions add constraint checkout_sessions_refund_reason_check
  check (refund_reason is null or refund_reason in ('submission_already_paid', 'consultation_already_open', 'plan_already_active', 'repeat_not_available'));

-- The repeat order a paid session opened: one per session, and at most one repeat order of a
-- prescription still waiting for the pharmacy (two payments cannot open two).
alter table orders add column checkout_session_id text unique references checkout_sessions(id) on delete set null;
create unique index orders_one_open_repeat_per_prescription on orders (prescription_id)
  where checkout_session_id is not null and status = 'awaiting_fulfilment' and dispensed_at is null;
