// Writes the service's OpenAPI document to src/api/openapi.json without a running server: the app is
// built on a throw-away in-memory embedded database, exactly as the tests build it. The generated
// client types (src/api/schema.d.ts) come from this file, so an API change breaks the web build.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { openPglite } from '../../src/db/index.ts';
import { memoryTransport } from '../../src/mail/transports.ts';
import { createRuntime } from '../../src/runtime.ts';

const out = fileURLToPath(new URL('../src/api/openapi.json', import.meta.url));
const dataDir = mkdtempSync(join(tmpdir(), 'pts-openapi-'));
try {
  const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent', PUBLIC_BASE_URL: 'http://localhost:8000' });
  const runtime = await createRuntime(config, { db: await openPglite(), transport: memoryTransport() });
  const app = await buildApp(runtime.deps, { logger: false });
  await app.ready();
  writeFileSync(out, JSON.stringify(app.swagger(), null, 2) + '\n');
  await app.close();
  await runtime.close();
  process.stdout.write(`OpenAPI document written to ${out}\n`);
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
