// After `npm install` / `npm ci` in a checkout: install and build the web app now, so the first
// `npm start` is as quick as every later one (it only rebuilds what changed). Skipped where there is
// no web app to build (a container's dependency layer copies package.json alone), with
// PTS_SKIP_WEB_BUILD=1, and for an install of production dependencies only. A failure here is a
// warning, not a failed install: `npm start` tries again and says what went wrong.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const script = fileURLToPath(new globalThis.URL('../web/scripts/ensure-built.mjs', import.meta.url));
const omitted = (process.env.npm_config_omit ?? '').split(/[\s,]+/);
if (!existsSync(script) || process.env.PTS_SKIP_WEB_BUILD === '1' || omitted.includes('dev')) process.exit(0);
process.stdout.write('Building the web app (once; `npm start` then starts at once)...\n');
const r = spawnSync(process.execPath, [script], { stdio: 'inherit' });
if (r.status !== 0) process.stdout.write('The web app was not built now; `npm start` will try again.\n');
