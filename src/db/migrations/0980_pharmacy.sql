-- Issue 25: the pharmacy desk (docs/pharmacy.md). A pharmacist staff role; the order status machine
-- gains `undeliverable` (src/modules/fulfilment/status.ts is the one place that decides the moves);
-- what the pharmacy records at dispensing (batch/lot and expiry), dispatch and a failed delivery.
alter table users add column is_pharmacist boolean not null default false;

alter table orders drop constraint orders_status_check;
alter table orders add constraint orders_status_check check (status in ('awaiting_fulfilment', 'shipped', 'delivered', 'undeliverable', 'cancelled'));

alter table orders add column dispensed_at timestamptz;
alter table orders add column dispensed_by uuid references users(id) on delete set null;
alter table orders add column batch_number text check (batch_number is null or char_length(batch_number) between 1 and 64);
alter table orders add column batch_expiry date;
alter table orders add column shipped_by uuid references users(id) on delete set null;
alter table orders add column undeliverable_reason text check (undeliverable_reason is null or char_length(undeliverable_reason) between 1 and 1000);
alter table orders add column undeliverable_at timestamptz;
-- A shipped order names its carrier and tracking number; a delivered one was shipped first.
alter table orders add constraint orders_shipped_tracking_check check (shipped_at is null or (carrier is not null and tracking_number is not null));
alter table orders add constraint orders_delivered_after_shipped_check check (delivered_at is null or shipped_at is not null);

-- The pharmacy queue: orders awaiting fulfilment, oldest first.
create index orders_fulfilment_queue_idx on orders (created_at, id) where status = 'awaiting_fulfilment';

-- A pharmacist's reads of an order are written to the staff access log (docs/privacy.md).
alter table access_log drop constraint access_log_resource_type_check;
alter table access_log add constraint access_log_resource_type_check check (resource_type in ('consultation', 'conversation', 'message_file', 'journal', 'prescription', 'profile', 'payment', 'order'));
