-- Signed prescriptions (docs/prescriptions.md): each prescriber's signing identity (a key pair and an
-- X.509 certificate naming them), the PAdES signature of every prescription issued from now on, its
-- cancellation (a reissue cancels the original), and its dispensings (once, or its stated repeats).

-- A prescriber's signing identities: the sandbox's (key sealed with DATA_ENCRYPTION_KEYS, certificate
-- from the service's test CA) or a remote provider's (CSC: the certificate only, the key stays with
-- the provider). One active identity per prescriber and provider; rotated ones keep verifying what
-- they signed, revoked ones do not.
create table prescriber_signing_identities (
  id uuid primary key default gen_random_uuid(),
  doctor_id uuid not null references users(id) on delete restrict,
  provider text not null check (provider in ('sandbox', 'csc')),
  certificate_pem text not null,
  certificate_sha256 text not null unique check (certificate_sha256 ~ '^[0-9a-f]{64}$'),
  serial_number text not null,
  not_after timestamptz not null,
  private_key_sealed text,
  csc_credential_id text,
  status text not null default 'active' check (status in ('active', 'rotated', 'revoked')),
  created_at timestamptz not null default now(),
  retired_at timestamptz,
  revoke_reason text check (revoke_reason is null or char_length(revoke_reason) between 1 and 500),
  check ((provider = 'sandbox') = (private_key_sealed is not null)),
  check ((status = 'active') = (retired_at is null))
);
create unique index prescriber_signing_identities_one_active on prescriber_signing_identities (doctor_id, provider) where status = 'active';

-- The prescriber's details a cross-border prescription names (Implementing Directive 2012/52/EU, annex).
alter table users add column prescriber_qualification text check (prescriber_qualification is null or char_length(prescriber_qualification) between 1 and 200);
alter table users add column prescriber_phone text check (prescriber_phone is null or prescriber_phone ~ '^\+[1-9][0-9]{6,14}$');

-- The signature of a prescription. Prescriptions issued before this migration have none (their PDF
-- is rendered on demand, unsigned, as before). `signed_digest` is the SHA-256 the CMS signed over (its
-- messageDigest): verification finds the prescription by it even when the file was changed. The
-- signed file itself (sealed) is in prescription_signed_documents, out of the rows lists read.
alter table prescriptions add column status text not null default 'active' check (status in ('active', 'cancelled'));
alter table prescriptions add column cancelled_at timestamptz;
alter table prescriptions add column repeats integer not null default 0 check (repeats between 0 and 12);
alter table prescriptions add column signature_level text check (signature_level in ('B-B', 'B-T'));
alter table prescriptions add column signed_at timestamptz;
alter table prescriptions add column signer_name text;
alter table prescriptions add column signing_identity_id uuid references prescriber_signing_identities(id) on delete restrict;
alter table prescriptions add column signed_digest text unique check (signed_digest is null or signed_digest ~ '^[0-9a-f]{64}$');
alter table prescriptions add constraint prescriptions_cancelled_check check ((status = 'cancelled') = (cancelled_at is not null));
alter table prescriptions add constraint prescriptions_signed_check check ((signed_at is null) = (signed_digest is null) and (signed_at is null) = (signing_identity_id is null) and (signed_at is null) = (signature_level is null));

create table prescription_signed_documents (
  prescription_id uuid primary key references prescriptions(id) on delete cascade,
  -- The signed PDF, base64, sealed with DATA_ENCRYPTION_KEYS (src/lib/sealed.ts).
  pdf_sealed text not null,
  created_at timestamptz not null default now()
);

-- Dispensings: one per order and delivery attempt (a reshipped order re-sends the same supply); the
-- prescription's supplies are its distinct orders, at most 1 + repeats.
create table prescription_dispensings (
  id uuid primary key default gen_random_uuid(),
  prescription_id uuid not null references prescriptions(id) on delete cascade,
  order_id uuid not null references orders(id) on delete cascade,
  attempt integer not null,
  partner_pharmacy_id uuid references partner_pharmacies(id) on delete set null,
  pharmacy_name text not null check (char_length(pharmacy_name) between 1 and 200),
  dispensed_by uuid references users(id) on delete set null,
  dispensed_at timestamptz not null,
  unique (order_id, attempt)
);
create index prescription_dispensings_prescription_idx on prescription_dispensings (prescription_id, dispensed_at);

-- A session (refresh family) records when its sign-in passed the second factor: with
-- STAFF_MFA=required a prescription is signed only in such a session.
alter table refresh_families add column second_factor_at timestamptz;
