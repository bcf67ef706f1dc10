-- Every staff account has a name (issue 43): the patient's access log shows who read their record by
-- name and role, and an empty name tells the patient nothing. Staff accounts created before without
-- one get an explicit placeholder ("Unnamed" / "staff member") that the operator replaces
-- (`npm run cli -- create-staff` again with --first-name/--last-name, docs/operations.md); from now
-- on the database refuses a staff account without both names (an erased account is pseudonymised
-- and keeps no name).
update users
   set first_name = coalesce(nullif(btrim(first_name), ''), 'Unnamed'),
       last_name = coalesce(nullif(btrim(last_name), ''), 'staff member')
 where (is_doctor or is_backoffice_admin or is_pharmacist or is_marketer)
   and erased_at is null
   and (btrim(first_name) = '' or btrim(last_name) = '');
alter table users add constraint users_staff_named
  check (not (is_doctor or is_backoffice_admin or is_pharmacist or is_marketer) or erased_at is not null
         or (btrim(first_name) <> '' and btrim(last_name) <> ''));
