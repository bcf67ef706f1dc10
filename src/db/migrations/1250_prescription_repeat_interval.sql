-- Repeats stated by the doctor (docs/prescriptions.md, "Repeats"): the minimum number of days between
-- two dispensings, counted from the last one (of this prescription or of the one a reissue replaced).
-- Required with repeats; a reissue keeps it even when no repeat is left, since the supply it still
-- allows waits for the interval after the original's last dispensing. Part of the signed document.
alter table prescriptions add column repeat_interval_days integer check (repeat_interval_days between 1 and 365);
alter table prescriptions add constraint prescriptions_repeat_interval_check check (repeats = 0 or repeat_interval_days is not null);
