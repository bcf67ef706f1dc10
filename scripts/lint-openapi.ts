// npm run lint:openapi: writes the two published OpenAPI documents (GET /v1/schema/ and
// GET /v1/schema/staff/) to .tmp/openapi/ and lints both with Spectral and the OWASP API Security
// ruleset (.spectral.yaml): any error fails. The app is built on a throw-away in-memory embedded
// database, as web/scripts/gen-openapi.ts builds it, with an https PUBLIC_BASE_URL: the documents as
// a deployment serves them (its `servers` URL is the deployment's own; a local run says http).
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { openPglite } from '../src/db/index.ts';
import { DOCUMENT_PATHS, type Audience } from '../src/http/openapi.ts';
import { memoryTransport } from '../src/mail/transports.ts';
import { createRuntime } from '../src/runtime.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const outDir = join(root, '.tmp', 'openapi');
mkdirSync(outDir, { recursive: true });
const files: string[] = [];
const dataDir = mkdtempSync(join(tmpdir(), 'pts-openapi-lint-'));
try {
  const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent', PUBLIC_BASE_URL: 'https://api.example.org' });
  const runtime = await createRuntime(config, { db: await openPglite(), transport: memoryTransport() });
  const app = await buildApp(runtime.deps, { logger: false });
  await app.ready();
  for (const audience of ['patient', 'staff'] as const satisfies readonly Audience[]) {
    const res = await app.inject({ method: 'GET', url: DOCUMENT_PATHS[audience] });
    if (res.statusCode !== 200) throw new Error(`GET ${DOCUMENT_PATHS[audience]} answered ${res.statusCode}`);
    const file = join(outDir, `${audience}.json`);
    writeFileSync(file, JSON.stringify(res.json(), null, 2) + '\n');
    files.push(file);
  }
  await app.close();
  await runtime.close();
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}

process.stdout.write(`OpenAPI documents written: ${files.map((f) => f.slice(root.length)).join(', ')}\n`);
const spectral = spawnSync(
  join(root, 'node_modules', '.bin', 'spectral'),
  ['lint', ...files, '--ruleset', join(root, '.spectral.yaml'), '--fail-severity', 'error', '--display-only-failures', '--format', 'stylish'],
  // Scarf is the CLI's install analytics: off.
  { stdio: 'inherit', env: { ...process.env, SCARF_ANALYTICS: 'false', DO_NOT_TRACK: '1' } },
);
if (spectral.error) throw spectral.error;
process.exit(spectral.status ?? 1);
