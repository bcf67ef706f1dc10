-- A weight the doctor saw on the scales during a video call (the appointment's outcome) is a verified
-- weight like one read from a photo (docs/verification.md): a weight_verifications row decided
-- `verified` at once, with no photo. `method` says how the doctor saw it; a photo row keeps its photo.
alter table weight_verifications add column method text not null default 'photo';
alter table weight_verifications add constraint weight_verifications_method_check check (method in ('photo', 'video_call'));
alter table weight_verifications alter column photo_key drop not null;
alter table weight_verifications add constraint weight_verifications_photo_check check (method <> 'photo' or photo_key is not null);
