// Writes the service's OpenAPI documents to src/api/openapi.json without a running server: the app is
// built on a throw-away in-memory embedded database, exactly as the tests build it. The service
// publishes two documents (GET /v1/schema/ for patients, GET /v1/schema/staff/ for the staff desks and
// operations); the app has both the patient pages and the desks, so the file is the two published
// documents merged. The generated client types (src/api/schema.d.ts) come from this file, so an API
// change breaks the web build.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { openPglite } from '../../src/db/index.ts';
import { DOCUMENT_PATHS, mergeDocuments } from '../../src/http/openapi.ts';
import { memoryTransport } from '../../src/mail/transports.ts';
import { createRuntime } from '../../src/runtime.ts';

const out = fileURLToPath(new URL('../src/api/openapi.json', import.meta.url));
const dataDir = mkdtempSync(join(tmpdir(), 'pts-openapi-'));
try {
  const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent', PUBLIC_BASE_URL: 'http://localhost:8000' });
  const runtime = await createRuntime(config, { db: await openPglite(), transport: memoryTransport() });
  const app = await buildApp(runtime.deps, { logger: false });
  await app.ready();
  const published = async (url: string) => {
    const res = await app.inject({ method: 'GET', url });
    if (res.statusCode !== 200) throw new Error(`GET ${url} answered ${res.statusCode}`);
    return res.json<Record<string, unknown>>();
  };
  const merged = mergeDocuments(await published(DOCUMENT_PATHS.patient), await published(DOCUMENT_PATHS.staff));
  writeFileSync(out, JSON.stringify(merged, null, 2) + '\n');
  await app.close();
  await runtime.close();
  process.stdout.write(`OpenAPI document written to ${out}\n`);
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
