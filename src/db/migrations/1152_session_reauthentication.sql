-- When the session last proved who holds it: the sign-in that opened it, or
-- POST /v1/users/me/reauthenticate/ (the password or a current second factor). Changes of the
-- account's factors and recovery codes need it within the last 5 minutes (docs/accounts.md,
-- "Re-authentication"). Sessions from before this column have none: they re-authenticate first.
alter table refresh_families add column reauthenticated_at timestamptz;
