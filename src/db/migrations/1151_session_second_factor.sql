-- When a session (refresh family) passed a second factor: at sign-in (the second step, or enrolment
-- during sign-in), or later from the account page (a factor confirmed). With STAFF_MFA=required a staff
-- session without it is refused on every request and at refresh (docs/accounts.md). Sessions from
-- before this column are taken as not having passed one: a staff member signs in again, once.
alter table refresh_families add column if not exists second_factor_at timestamptz;
