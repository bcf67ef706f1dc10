-- Issue 26: the connector's confirmation step before a renewal confirm or a questionnaire submission
-- (docs/mcp.md, "Confirmation"). A two-step confirmation token is stored as a SHA-256 hash, bound to
-- the patient, the grant, the tool and the hash of the exact input; it is short-lived and single-use.
create table mcp_confirmations (
  token_hash text primary key,
  user_id uuid not null references users(id) on delete cascade,
  grant_id uuid not null references mcp_grants(id) on delete cascade,
  tool text not null,
  input_hash text not null,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null,
  used_at timestamptz
);
create index mcp_confirmations_user_idx on mcp_confirmations (user_id);

-- The client capabilities an assistant declared in its last `initialize` on this grant (the endpoint is
-- stateless: a tools/call does not carry them). Read for `elicitation`.
alter table mcp_grants add column client_capabilities jsonb;
