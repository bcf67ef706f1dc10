-- Pharmacists bound to their pharmacy (issue 43; docs/pharmacy.md, "Pharmacies and their pharmacists").
-- Until now every pharmacist saw and moved every order. Pharmacies are records (partner_pharmacies);
-- the central dispatch pharmacy, which ships every order not routed elsewhere, is one of them
-- (`is_central`, exactly one; its address is the back office's to complete). A back-office admin
-- assigns each pharmacist to one pharmacy (pharmacist_pharmacies); an order names the pharmacy that
-- fulfils it (orders.pharmacy_id; null: the central dispatch pharmacy). A pharmacist sees and moves
-- only the orders of their pharmacy; one with no assignment works for the central dispatch pharmacy.
alter table partner_pharmacies add column is_central boolean not null default false;
create unique index partner_pharmacies_one_central on partner_pharmacies (is_central) where is_central;
insert into partner_pharmacies (name, address_line, postal_code, city, country, delivery, click_and_collect, is_central)
values ('Central dispatch pharmacy', 'Central dispatch (address to be completed by the back office)', '-', '-', 'DEU', true, false, true);

create table pharmacist_pharmacies (
  pharmacist_id uuid primary key references users(id) on delete cascade,
  pharmacy_id uuid not null references partner_pharmacies(id),
  assigned_by uuid references users(id) on delete set null,
  assigned_at timestamptz not null default now()
);
create index pharmacist_pharmacies_pharmacy_idx on pharmacist_pharmacies (pharmacy_id);

alter table orders add column pharmacy_id uuid references partner_pharmacies(id);
-- The desk's queue of one pharmacy (null is the central dispatch pharmacy's).
create index orders_pharmacy_queue_idx on orders (pharmacy_id, created_at) where status = 'awaiting_fulfilment';
