-- Payment receipt mails (src/modules/billing/receipts.ts): one per successful charge ('charge') and
-- one per refund (the provider's refund id), claimed in the transaction that records the payment.
create table payment_receipts (
  payment_id uuid not null references payments(id) on delete cascade,
  event text not null,
  created_at timestamptz not null default now(),
  primary key (payment_id, event)
);
