-- Issue 11: the medical team's conversation list pages in this order (flagged threads first, then
-- the most recently active); the index serves the page without sorting every conversation.
create index conversations_clinician_sort_idx on conversations (flagged_at desc nulls last, updated_at desc, id);
