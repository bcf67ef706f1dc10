// Payment providers as adapters: the configured provider (PAYMENT_PROVIDER), built once per Deps,
// and the provider's own HTTP pages (sandbox checkout and portal, Stripe webhook), which reach the
// modules only through the ports they are given. No SQL and no module import here. Rows remember
// which provider created them, so `providerFor(deps, row.provider)` serves older rows after a switch.
import type { Deps } from '../deps.ts';
import { sandboxProvider } from './sandbox.ts';
import { stripeProvider } from './stripe.ts';
import type { PaymentProvider, ProviderName } from './types.ts';

export type { PaymentProvider, ProviderName, ProviderEvent, SessionState, StoredSession, WebhookPort } from './types.ts';
export { registerSandboxPages, type SandboxCheckoutPort, type SandboxPageSession } from './sandbox-pages.ts';
export { registerSandboxPortal, type PortalPlan, type SandboxPortalPort } from './sandbox-portal.ts';
export { registerStripeWebhook } from './stripe-webhook.ts';

const cache = new WeakMap<Deps, Map<string, PaymentProvider>>();

export function providerFor(deps: Deps, name: string = deps.config.PAYMENT_PROVIDER): PaymentProvider {
  let byName = cache.get(deps);
  if (!byName) cache.set(deps, (byName = new Map<string, PaymentProvider>()));
  let p = byName.get(name);
  if (!p) {
    if (name === 'sandbox') p = sandboxProvider(deps.config.PUBLIC_BASE_URL, deps.clock, deps.secrets.jwtKey);
    else if (name === 'stripe') p = stripeProvider(deps.config);
    else throw new Error(`unknown payment provider ${name}`);
    byName.set(name, p);
  }
  return p;
}

export const activeProvider = (deps: Deps): PaymentProvider => providerFor(deps);
export const isProviderName = (v: string): v is ProviderName => v === 'sandbox' || v === 'stripe';
