-- Reasons a session (refresh family) may end with. 0810 listed the reasons of its time and left out
-- `mfa_reset` (the operator command reset-mfa), so that command failed for every account that had
-- ever signed in. `mfa_required`: a staff session opened without a second factor, ended once one is
-- required (docs/accounts.md, "Second factor").
alter table refresh_families drop constraint refresh_families_revoked_check;
alter table refresh_families add constraint refresh_families_revoked_check check (
  (revoked_at is null and revoke_reason is null)
  or (revoked_at is not null and revoke_reason in (
    'logout', 'refresh_reuse', 'password_reset', 'password_change', 'disabled', 'account_disabled', 'mfa_reset', 'mfa_required'
  ))
);
