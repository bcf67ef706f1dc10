// Builds the web app when needed (for `npm start`): installs web/'s own dependencies when they are
// missing, and rebuilds when web/dist is missing or older than the app's sources or the service's
// sources (the client is generated from the service's OpenAPI document). Quiet when up to date.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const web = fileURLToPath(new globalThis.URL('..', import.meta.url));
const root = join(web, '..');
const built = join(web, 'dist', 'index.html');

function newest(path) {
  if (!existsSync(path)) return 0;
  const s = statSync(path);
  if (!s.isDirectory()) return s.mtimeMs;
  let max = 0;
  for (const name of readdirSync(path)) if (name !== 'node_modules' && name !== 'dist') max = Math.max(max, newest(join(path, name)));
  return max;
}

function run(args) {
  const r = spawnSync('npm', args, { cwd: web, stdio: 'inherit', shell: process.platform === 'win32' });
  if (r.status !== 0) process.exit(r.status ?? 1);
}

// Tests of the service's own start (test/run-model.test.ts) do not need the app's pages.
if (process.env.PTS_SKIP_WEB_BUILD === '1') process.exit(0);
const force = process.argv.includes('--force');
// Installed when missing, and again when web/package-lock.json changed since (a pulled update that
// adds a dependency would otherwise fail the build with a missing module).
const installed = join(web, 'node_modules', '.package-lock.json');
if (!existsSync(installed) || statSync(join(web, 'package-lock.json')).mtimeMs > statSync(installed).mtimeMs) run(['ci', '--no-audit', '--no-fund']);
const sources = Math.max(
  ...['src', 'index.html', 'package-lock.json', 'vite.config.ts', 'tsconfig.json'].map((p) => newest(join(web, p))),
  newest(join(root, 'src')),
  newest(join(root, 'catalogue', 'countries.json')),
);
if (force || !existsSync(built) || statSync(built).mtimeMs < sources) run(['run', 'build']);
