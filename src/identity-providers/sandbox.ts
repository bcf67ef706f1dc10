// The built-in sandbox identity provider: no network, no keys. Its sessions are this service's own
// identity_verifications rows; the hosted page (sandbox-pages.ts) stands in for the vendor's flow.
import { randomBytes } from 'node:crypto';
import type { Clock } from '../lib/clock.ts';
import type { IdentityProvider, StartedSession, StartRequest } from './types.ts';

/** How long a sandbox session's page can be completed. */
export const SANDBOX_IDENTITY_TTL_MS = 3600 * 1000;
export const SANDBOX_IDENTITY_ID = /^idv_sandbox_[0-9a-f]{32}$/;

export function sandboxIdentityProvider(baseUrl: string, clock: Clock): IdentityProvider {
  return {
    name: 'sandbox',
    startSession(_req: StartRequest): Promise<StartedSession> {
      const sessionId = `idv_sandbox_${randomBytes(16).toString('hex')}`;
      return Promise.resolve({ sessionId, url: `${baseUrl}/sandbox/identity/${sessionId}/`, expiresAt: new Date(clock.now().getTime() + SANDBOX_IDENTITY_TTL_MS) });
    },
  };
}
