-- A clinician's reads of the red-flag desk (the patient's name, address and own words) are written
-- to the patient's access log like every other staff read (docs/privacy.md).
alter table access_log drop constraint access_log_resource_type_check;
alter table access_log add constraint access_log_resource_type_check check (
  resource_type in ('consultation', 'conversation', 'message_file', 'journal', 'prescription', 'profile', 'payment', 'order', 'red_flag')
);
