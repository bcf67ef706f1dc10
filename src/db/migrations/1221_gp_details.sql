-- The patient's own doctor (GP) on the profile (docs/profile.md, docs/interoperability.md): name,
-- practice, address and e-mail, as one JSON object (null when not given). And the consent to share
-- with them (consents.kind `gp_sharing`, recorded with its version like the other kinds).
alter table users add column gp jsonb;
alter table consents drop constraint consents_kind_check;
alter table consents add constraint consents_kind_check check (kind in ('health_data_processing', 'terms', 'privacy', 'marketing', 'gp_sharing'));
