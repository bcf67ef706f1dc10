-- The audit trail is append-only (issue 21): the database refuses UPDATE, DELETE and TRUNCATE on
-- audit_log for every role and every writer (the application, the CLI, a hand-run statement), so a
-- record of who did what cannot be rewritten after the fact. Corrections are new rows.
-- (audit_log.actor_id references users without ON DELETE: deleting a user who acted is refused by
-- the foreign key already, and no cascade reaches this table.)
create function audit_log_refuse_change() returns trigger language plpgsql as $$
begin
  raise exception 'audit_log is append-only: % is not allowed', tg_op using errcode = 'insufficient_privilege';
end;
$$;

create trigger audit_log_no_update_or_delete before update or delete on audit_log
  for each row execute function audit_log_refuse_change();
create trigger audit_log_no_truncate before truncate on audit_log
  for each statement execute function audit_log_refuse_change();
