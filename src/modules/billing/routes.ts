// The billing module: not built yet.
import type { App } from '../../app.ts';
import type { Deps } from '../../deps.ts';

export default async function billingModule(_app: App, _deps: Deps): Promise<void> {}
