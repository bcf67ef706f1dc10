-- Letters to the patient's own doctor (docs/interoperability.md, "Letters to the patient's own
-- doctor"). gp_letters: one letter per approved consultation (a renewal is a consultation of its
-- own), queued by the approval when the patient consented to sharing (consents.kind `gp_sharing`)
-- and has a GP on the profile, sent by the job interop.gp-letters (or withheld when the consent was
-- withdrawn before it went). The letter's content (the patient's identity, what was prescribed, why,
-- the monitoring advised) is sealed at rest in content_enc; the PDF is made from it.
create table gp_letters (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references users(id) on delete cascade,
  consultation_id uuid not null references consultations(id),
  prescription_id uuid not null references prescriptions(id),
  status text not null default 'queued' check (status in ('queued', 'sent', 'withheld')),
  recipient_email text not null,
  locale text not null,
  content_enc text not null,
  created_at timestamptz not null default now(),
  sent_at timestamptz,
  withheld_reason text check (withheld_reason in ('consent_withdrawn', 'no_gp')),
  constraint gp_letters_one_per_consultation unique (consultation_id)
);
create index gp_letters_user_idx on gp_letters (user_id, created_at desc, id desc);
create index gp_letters_queued_idx on gp_letters (created_at) where status = 'queued';

-- An approval of a `required` category without the consent (or without a GP on the profile): the
-- doctor's written reason, sealed at rest like the decision notes (migration 1231). Part of the
-- prescribing record: kept on erasure (docs/privacy.md).
create table gp_sharing_overrides (
  id uuid primary key default gen_random_uuid(),
  consultation_id uuid not null unique references consultations(id),
  user_id uuid not null references users(id),
  doctor_id uuid not null references users(id),
  missing text not null check (missing in ('consent', 'gp', 'consent_and_gp')),
  reason_enc text not null,
  created_at timestamptz not null default now()
);
