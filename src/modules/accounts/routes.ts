// The accounts module: not built yet.
import type { App } from '../../app.ts';
import type { Deps } from '../../deps.ts';

export default async function accountsModule(_app: App, _deps: Deps): Promise<void> {}
