// The connector's work outside HTTP requests (docs/mcp.md): every grant ends when the account's
// credentials change, the jobs that purge expired rows and unused registrations, and what other
// modules ask of the connector about one account (src/modules/mcp/index.ts).
import type { Queryable } from '../../db/index.ts';
import type { Deps } from '../../deps.ts';
import { onCredentialsRevoked } from '../accounts/index.ts';
import * as oauth from './oauth.ts';
import * as repo from './repository.ts';

const revokeGrantsOnCredentials = async (q: Queryable, userId: string, reason: string) => {
  await repo.revokeAllGrantsForUser(q, userId, reason);
};

export function startConnectorService(deps: Deps): void {
  // A password change or reset, a disable (back office or CLI), an MFA reset or an erasure ends
  // every session of the account in the accounts module: every connector grant ends with them.
  onCredentialsRevoked(revokeGrantsOnCredentials);
  deps.scheduler.register('mcp.purge-expired', () => repo.purgeExpiredForScheduler(deps.db, deps.clock.now()));
  // Registrations never used for a grant are deleted a day after they were made (docs/mcp.md).
  deps.scheduler.register('mcp.expire-unused-clients', async () => {
    const n = await repo.deleteUnusedClientsForScheduler(deps.db, new Date(deps.clock.now().getTime() - oauth.UNUSED_CLIENT_TTL_SECONDS * 1000));
    if (n > 0) deps.log.info({ clients: n }, 'mcp: unused client registrations deleted');
  });
}

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
