-- The assistant connector (MCP) and its OAuth 2.1 authorization server: registered clients, pending
-- authorization requests (sign-in and consent pages), grants (one connected app of one patient),
-- authorization codes and tokens (stored hashed), and the record of tool calls (no content).
create table mcp_clients (
  id text primary key,
  client_name text not null default '',
  redirect_uris jsonb not null,
  token_endpoint_auth_method text not null default 'none',
  client_secret_hash text,
  metadata jsonb not null default '{}'::jsonb,
  created_at timestamptz not null default now()
);

create table mcp_auth_requests (
  id uuid primary key default gen_random_uuid(),
  client_id text not null references mcp_clients(id) on delete cascade,
  redirect_uri text not null,
  state text,
  code_challenge text not null,
  scopes text not null,
  resource text not null,
  locale text not null default 'en',
  csrf_hash text not null,
  user_id uuid references users(id) on delete cascade,
  expires_at timestamptz not null,
  completed_at timestamptz,
  created_at timestamptz not null default now()
);

create table mcp_grants (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references users(id) on delete cascade,
  client_id text not null references mcp_clients(id) on delete cascade,
  scopes text not null,
  resource text not null,
  created_at timestamptz not null default now(),
  last_used_at timestamptz,
  revoked_at timestamptz,
  revoke_reason text
);
create index mcp_grants_user_idx on mcp_grants (user_id, created_at desc);

create table mcp_auth_codes (
  code_hash text primary key,
  grant_id uuid not null references mcp_grants(id) on delete cascade,
  client_id text not null,
  redirect_uri text not null,
  code_challenge text not null,
  scopes text not null,
  resource text not null,
  expires_at timestamptz not null,
  used_at timestamptz
);

create table mcp_tokens (
  token_hash text primary key,
  grant_id uuid not null references mcp_grants(id) on delete cascade,
  kind text not null check (kind in ('access', 'refresh')),
  scopes text not null,
  resource text not null,
  expires_at timestamptz not null,
  used_at timestamptz,
  revoked_at timestamptz,
  created_at timestamptz not null default now()
);
create index mcp_tokens_grant_idx on mcp_tokens (grant_id);

create table mcp_tool_calls (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references users(id) on delete cascade,
  client_id text not null,
  grant_id uuid not null,
  tool text not null,
  outcome text not null,
  called_at timestamptz not null default now()
);
create index mcp_tool_calls_user_idx on mcp_tool_calls (user_id, called_at desc);
