-- Issue 11: the status columns of the checkout, ledger and fulfilment tables hold only the values
-- their status machines know (checkout/status.ts, payments, fulfilment/schemas.ts), and the session
-- points at the consultation it created through a real foreign key.

-- checkout_sessions.status already has its CHECK (0203).
alter table checkout_sessions add constraint checkout_sessions_plan_check check (plan in ('one_off', 'subscription'));
alter table checkout_sessions add constraint checkout_sessions_refund_reason_check
  check (refund_reason is null or refund_reason in ('submission_already_paid', 'consultation_already_open', 'plan_already_active'));
alter table checkout_sessions add constraint checkout_sessions_consultation_fk
  foreign key (consultation_id) references consultations(id) on delete set null;

alter table payments add constraint payments_status_check check (status in ('succeeded', 'failed', 'partially_refunded', 'refunded'));
alter table payments add constraint payments_amounts_check check (amount_cents >= 0 and refunded_amount_cents >= 0 and refunded_amount_cents <= amount_cents);

alter table orders add constraint orders_status_check check (status in ('awaiting_fulfilment', 'shipped', 'delivered', 'cancelled'));
