-- Issue 11: CHECK constraints on the status-like columns of the accounts, mail and referrals
-- tables, and an index for the back-office email search.

-- Values the code writes (src/lib/locales.ts, profile gender codes, src/modules/accounts/*).
alter table users add constraint users_locale_check check (locale in ('de', 'en', 'es', 'fr', 'it', 'nl', 'pt'));
alter table users add constraint users_gender_check check (gender is null or gender in ('0', '1', '2', '3'));
alter table email_verifications add constraint email_verifications_failed_attempts_check check (failed_attempts >= 0);
alter table refresh_families add constraint refresh_families_revoked_check check (
  (revoked_at is null and revoke_reason is null)
  or (revoked_at is not null and revoke_reason in ('logout', 'refresh_reuse', 'password_reset', 'password_change', 'disabled', 'account_disabled'))
);
alter table mail_outbox add constraint mail_outbox_status_check check (status in ('pending', 'sent', 'bounced'));
alter table mail_outbox add constraint mail_outbox_attempts_check check (attempts >= 0);
alter table attribution_events add constraint attribution_events_event_check check (event in ('landing_view', 'signup_started', 'signup_completed'));

-- GET /v1/backoffice/users/?email= matches a case-insensitive substring of lower(email). A trigram
-- index serves that on PostgreSQL (pg_trgm ships with it and is a trusted extension); the embedded
-- PGlite build loads no contrib modules, so there the search stays a scan of one small table.
do $$
begin
  create extension if not exists pg_trgm;
exception when others then
  raise notice 'pg_trgm is not available: the back-office email search is not indexed';
end $$;
do $$
begin
  if exists (select 1 from pg_extension where extname = 'pg_trgm') then
    execute 'create index if not exists users_email_trgm_idx on users using gin (lower(email) gin_trgm_ops)';
  end if;
end $$;
