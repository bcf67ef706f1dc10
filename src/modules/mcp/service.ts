// The connector's work outside HTTP requests (docs/mcp.md): every grant ends when the account's
// credentials change, the jobs that purge expired rows and unused registrations, and what other
// modules ask of the connector about one account (src/modules/mcp/index.ts).
import type { Queryable } from '../../db/index.ts';
import type { Deps } from '../../deps.ts';
import type { Order } from '../../http/pagination.ts';
import { onCredentialsRevoked } from '../accounts/index.ts';
import * as oauth from './oauth.ts';
import * as repo from './repository.ts';

const revokeGrantsOnCredentials = async (q: Queryable, userId: string, reason: string) => {
  await repo.revokeAllGrantsForUser(q, userId, reason);
};

/**
 * A password change or reset, a disable (back office or CLI), an MFA reset or an erasure ends every
 * session of the account in the accounts module: every connector grant ends with them. Called by the
 * server's start and by the operator CLI (which starts no server); registering twice is harmless.
 */
export function endGrantsWithSessions(): void {
  onCredentialsRevoked(revokeGrantsOnCredentials);
}

export function startConnectorService(deps: Deps): void {
  endGrantsWithSessions();
  deps.scheduler.register('mcp.purge-expired', () => repo.purgeExpiredForScheduler(deps.db, deps.clock.now()));
  // Registrations never used for a grant are deleted a day after they were made (docs/mcp.md).
  deps.scheduler.register('mcp.expire-unused-clients', async () => {
    const n = await repo.deleteUnusedClientsForScheduler(deps.db, new Date(deps.clock.now().getTime() - oauth.UNUSED_CLIENT_TTL_SECONDS * 1000));
    if (n > 0) deps.log.info({ clients: n }, 'mcp: unused client registrations deleted');
  });
}

// ---------------------------------------------------------------- the patient's connected apps (/v1/)

/** The connected apps list's `ordering` whitelist (default: newest first). */
export const GRANT_ORDERING = repo.GRANT_ORDERING;

const appOut = (g: repo.ConnectedAppRow) => ({
  id: g.id,
  client_id: g.client_id,
  client_name: g.client_name || g.client_id,
  redirect_hosts: [...new Set(g.redirect_uris.map((u) => new URL(u).host))],
  scopes: g.scopes.split(' ').filter(Boolean),
  created_at: new Date(g.created_at).toISOString(),
  last_used_at: g.last_used_at ? new Date(g.last_used_at).toISOString() : null,
});

/** One page of the account's live grants as the connected apps list shows them, and their count. */
export async function connectedAppsPage(deps: Deps, userId: string, limit: number, offset: number, order: Order<(typeof GRANT_ORDERING.fields)[number]>) {
  return {
    count: await repo.countLiveGrants(deps.db, userId),
    results: (await repo.pageLiveGrants(deps.db, userId, limit, offset, order)).map(appOut),
  };
}

/** Disconnects the account's app (its tokens stop working at once); false when it is not the account's live grant. */
export function disconnectApp(deps: Deps, userId: string, grantId: string): Promise<boolean> {
  return deps.db.tx((q) => repo.revokeOwnGrant(q, userId, grantId));
}

// ---------------------------------------------------------------- the MCP endpoint's per-grant state

/** The capabilities the client declared in its last `initialize` on this grant (the endpoint is stateless). */
export function rememberCapabilities(deps: Deps, auth: oauth.McpAuth, capabilities: Record<string, unknown>): Promise<void> {
  return repo.setGrantCapabilities(deps.db, auth.userId, auth.grantId, capabilities);
}

export function capabilitiesOf(deps: Deps, auth: oauth.McpAuth): Promise<Record<string, unknown>> {
  return repo.grantCapabilities(deps.db, auth.userId, auth.grantId);
}

/** Writes each tool call of the grant to the account's record (name and outcome, no content). */
export const toolCallRecorder =
  (deps: Deps, auth: oauth.McpAuth) =>
  (tool: string, outcome: string): Promise<void> =>
    repo.recordToolCall(deps.db, { userId: auth.userId, clientId: auth.clientId, grantId: auth.grantId, tool, outcome, at: deps.clock.now() });

// ---------------------------------------------------------------- what other modules ask (index.ts)

export type { AccountGrantRow } from './repository.ts';

/** Every grant the account gave a connector, live and revoked, newest first (privacy page, export). */
export function grantsOfAccount(q: Queryable, userId: string): Promise<repo.AccountGrantRow[]> {
  return repo.grantsOfAccount(q, userId);
}

/** The account's connector tool calls (names and outcomes, no content), newest first (data export). */
export function toolCallsOfAccount(q: Queryable, userId: string) {
  return repo.toolCallsOfAccount(q, userId);
}

/** Erasure: every grant revoked with its tokens; pending requests, confirmations and tool calls deleted. */
export function revokeAccountConnectors(q: Queryable, userId: string): Promise<void> {
  return repo.revokeAccountConnectors(q, userId);
}

/** Every live grant of the account ends with its tokens (a disable by the back office); how many were live. */
export function revokeAllGrantsForUser(q: Queryable, userId: string, reason: string): Promise<number> {
  return repo.revokeAllGrantsForUser(q, userId, reason);
}
