// The connector's work outside HTTP requests (docs/mcp.md): every grant ends when the account's
// credentials change, and the jobs that purge expired rows and unused registrations.
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
  deps.scheduler.register('mcp.purge-expired', () => repo.purgeExpired(deps.db, deps.clock.now()));
  // Registrations never used for a grant are deleted a day after they were made (docs/mcp.md).
  deps.scheduler.register('mcp.expire-unused-clients', async () => {
    const n = await repo.deleteUnusedClients(deps.db, new Date(deps.clock.now().getTime() - oauth.UNUSED_CLIENT_TTL_SECONDS * 1000));
    if (n > 0) deps.log.info({ clients: n }, 'mcp: unused client registrations deleted');
  });
}
