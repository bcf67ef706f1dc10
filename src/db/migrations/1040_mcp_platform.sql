-- Issue 26: the expiry of unused registrations looks for a client's grants (mcp.expire-unused-clients).
create index mcp_grants_client_idx on mcp_grants (client_id);
