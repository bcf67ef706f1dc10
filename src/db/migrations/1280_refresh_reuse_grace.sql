-- A browser's refresh cookie is shared by its tabs: two tabs refreshing at the same moment, or a
-- reload that drops the answer of a refresh in flight, present the rotated cookie once more. Within
-- a short grace (REFRESH_COOKIE_REUSE_GRACE_SECONDS) that second presentation is answered once with
-- a fresh pair of the same session; `grace_used_at` makes it once, so a third presentation is reuse.
alter table refresh_tokens add column grace_used_at timestamptz;
