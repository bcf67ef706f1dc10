-- Self-referral (issue 20): a referred account whose e-mail is the referrer's own earns no
-- commission. Addresses are compared by the mailbox they reach: lower case, the local part without
-- its +tag, and for Google's mail domains (gmail.com, googlemail.com: one mailbox) without dots.
-- Immutable and pure, so the referral statements call it on both sides of the comparison.
create function referral_mailbox(email text) returns text
  language sql immutable strict parallel safe
as $$
  select case
    when split_part(lower(email), '@', 2) in ('gmail.com', 'googlemail.com')
      then replace(split_part(split_part(lower(email), '@', 1), '+', 1), '.', '') || '@gmail.com'
    else split_part(split_part(lower(email), '@', 1), '+', 1) || '@' || split_part(lower(email), '@', 2)
  end
$$;
