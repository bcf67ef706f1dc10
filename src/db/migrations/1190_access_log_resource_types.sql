-- The kinds of patient record a staff read or write is logged against, as one list: several
-- capabilities of one release each widened the check on its own, and the last one applied would
-- otherwise have dropped the others' kinds.
alter table access_log drop constraint access_log_resource_type_check;
alter table access_log add constraint access_log_resource_type_check
  check (resource_type in ('consultation', 'conversation', 'message_file', 'journal', 'prescription', 'profile', 'payment', 'order', 'verification', 'clinical_photo', 'red_flag'));
