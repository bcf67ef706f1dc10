// Benchmarks (`npm run bench`): starts the app in process on a throw-away embedded database, signs a
// patient in, and drives a few representative routes with autocannon on loopback for a bounded time.
// Figures are for comparing changes on the same machine, not absolute capacity.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { issueTokenPair } from '../src/modules/accounts/tokens.ts';
import { createRuntime } from '../src/runtime.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);

async function main() {
  const dataDir = mkdtempSync(join(tmpdir(), 'pts-bench-'));
  const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent', PORT: '0' });
  const runtime = await createRuntime(config);
  const app = await buildApp(runtime.deps, { logger: false });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  const base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  const [user] = await runtime.deps.db.query<{ id: string }>(
    "insert into users (email, email_verified_at, referral_code) values ('bench@example.org', now(), 'BENCH001') returning id",
  );
  const { access } = await issueTokenPair(runtime.deps, runtime.deps.db, user.id);

  const scenarios: { name: string; path: string; headers?: Record<string, string> }[] = [
    { name: 'GET /healthz', path: '/healthz' },
    { name: 'GET /v1/users/profile/ (bearer)', path: '/v1/users/profile/', headers: { authorization: `Bearer ${access}` } },
    { name: 'GET /v1/users/questionnaires/categories/ (public)', path: '/v1/users/questionnaires/categories/' },
    { name: 'GET /v1/users/consultations/ (bearer, paginated)', path: '/v1/users/consultations/', headers: { authorization: `Bearer ${access}` } },
  ];
  console.log(`benchmark: ${SECONDS}s per scenario, 10 connections, embedded database`);
  for (const s of scenarios) {
    const result = await autocannon({ url: base + s.path, headers: s.headers, connections: 10, duration: SECONDS });
    const ok = result['2xx'];
    console.log(
      `${s.name.padEnd(52)} ${String(Math.round(result.requests.average)).padStart(6)} req/s  p50 ${result.latency.p50} ms  p99 ${result.latency.p99} ms  2xx ${ok}  non-2xx ${result.non2xx}`,
    );
  }
  await app.close();
  await runtime.close();
  rmSync(dataDir, { recursive: true, force: true });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
