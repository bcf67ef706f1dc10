-- Self-referral by card (issue 20): the payment card's fingerprint where the provider gives one
-- (Stripe: payment_method_details.card.fingerprint, the same for every use of one card number; the
-- sandbox: a hash of its test card number). A referred account that paid with a card the referrer
-- also paid with earns the referrer no commission. Not a card number: it identifies a card without
-- revealing it.
alter table checkout_sessions add column payment_method_fingerprint text;
alter table payments add column payment_method_fingerprint text;
create index payments_card_fingerprint_idx on payments (payment_method_fingerprint) where payment_method_fingerprint is not null;
