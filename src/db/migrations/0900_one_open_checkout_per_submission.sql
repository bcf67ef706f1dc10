-- One payable checkout session per questionnaire submission at a time (issue 20). A new checkout
-- expires the older open sessions of its submission and inserts its own in one transaction; this
-- index makes that hold under parallel checkouts too (two tabs, a double click, a retrying client):
-- a second open session for the submission cannot be committed, so only one can ever be paid.
--
-- Sessions of older code that broke the rule keep only their newest open session payable.
update checkout_sessions s
   set status = 'expired', updated_at = now()
 where s.status = 'open'
   and s.submission_id is not null
   and exists (
     select 1 from checkout_sessions n
      where n.submission_id = s.submission_id
        and n.status = 'open'
        and (n.created_at, n.id) > (s.created_at, s.id)
   );

create unique index checkout_sessions_one_open_per_submission
  on checkout_sessions (submission_id)
  where status = 'open';
