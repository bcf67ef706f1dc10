-- Issue 23, retention (docs/privacy.md "Retention"): the access log stays append-only, with one
-- controlled exception: a row older than its retention period (10 years, the medical-record period
-- of the records it documents; ACCESS_LOG_RETENTION_YEARS in src/modules/audit/repository.ts) may be
-- deleted, which is what the scheduled job privacy.retention.access-log does. UPDATE is still
-- refused for every row, DELETE of a younger row and TRUNCATE too (SQLSTATE 42501), whoever runs them.
-- The age is judged by the database's own clock, so no caller can widen the window.
create or replace function access_log_append_only() returns trigger language plpgsql as $$
begin
  if tg_op = 'DELETE' then
    if old.at < now() - interval '10 years' then
      return old;
    end if;
  end if;
  raise exception 'access_log is append-only (% refused)', tg_op using errcode = '42501';
end $$;

-- The retention sweep reads the log by age.
create index access_log_at_idx on access_log (at);
