// Identity providers as adapters (docs/verification.md): the configured provider
// (IDENTITY_PROVIDER), built once per Deps, and the provider's own HTTP pages (the sandbox page, the
// vendor's webhook), which reach the verification module only through the ports they are given. No
// SQL and no module import here. Rows remember which provider created them.
import type { Config } from '../config.ts';
import type { Deps } from '../deps.ts';
import { sandboxIdentityProvider } from './sandbox.ts';
import type { IdentityProvider } from './types.ts';
import { veriffProvider, type VeriffSettings } from './veriff.ts';

export type { DocumentReading, IdentityEvent, IdentityOutcome, IdentityProvider, IdentityProviderName, IdentityWebhookPort, SandboxIdentityPort, SandboxIdentitySession, UploadedImage } from './types.ts';
export { IDENTITY_PROVIDER_NAMES } from './types.ts';
export { registerSandboxIdentityPages } from './sandbox-pages.ts';
export { registerIdentityWebhook } from './webhook.ts';
export { IdentityProviderUnavailableError } from './veriff.ts';

/** The vendor's settings, when IDENTITY_PROVIDER=veriff (config.ts refuses it without them). */
export function veriffSettings(config: Config): VeriffSettings | null {
  if (!config.IDENTITY_VERIFF_API_KEY || !config.IDENTITY_VERIFF_SHARED_SECRET) return null;
  return { baseUrl: config.IDENTITY_VERIFF_BASE_URL, apiKey: config.IDENTITY_VERIFF_API_KEY, sharedSecret: config.IDENTITY_VERIFF_SHARED_SECRET, toleranceSeconds: config.IDENTITY_WEBHOOK_TOLERANCE_SECONDS };
}

const cache = new WeakMap<Deps, IdentityProvider>();

export function identityProvider(deps: Deps): IdentityProvider {
  let p = cache.get(deps);
  if (!p) {
    if (deps.config.IDENTITY_PROVIDER === 'veriff') {
      const settings = veriffSettings(deps.config);
      if (!settings) throw new Error('IDENTITY_PROVIDER=veriff needs IDENTITY_VERIFF_API_KEY and IDENTITY_VERIFF_SHARED_SECRET');
      p = veriffProvider(settings, deps.clock);
    } else {
      p = sandboxIdentityProvider(deps.config.PUBLIC_BASE_URL, deps.clock);
    }
    cache.set(deps, p);
  }
  return p;
}
