// Losing the database for real (PostgreSQL only): the server runs as its own process (src/main.ts,
// with pg-boss) and reaches PostgreSQL through a TCP proxy this test controls. With message writes in
// flight, the app's backends are terminated (pg_terminate_backend), then the proxy refuses
// connections, then it swallows them (a vanished host). The process must stay up, answer 503 (never
// 500) while the database is gone, /readyz must say 503 within 2 s, it must recover within 10 s of
// the database's return, and every write it acknowledged must be stored.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { loadConfig } from '../src/config.ts';
import { createRuntime } from '../src/runtime.ts';
import { seedPatient, TEST_BRAND, type TestContext } from './support/harness.ts';
import { startTcpProxy, type TcpProxy } from './support/tcp-proxy.ts';

const url = process.env.DATABASE_URL;
const root = join(import.meta.dirname, '..');

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  await new Promise((r) => server.close(r));
  return port;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Answer {
  status: number; // 0: no HTTP answer at all
  ms: number;
  startedAt: number;
  body?: any;
}

describe.skipIf(!url)('losing the database (PostgreSQL behind a proxy)', () => {
  let admin: pg.Client;
  let dbName: string;
  let proxy: TcpProxy;
  let child: ChildProcess;
  let output = '';
  let base: string;

  beforeAll(async () => {
    admin = new pg.Client({ connectionString: url });
    await admin.connect();
    dbName = `pts_t_${randomBytes(5).toString('hex')}`;
    for (let i = 0; ; i++) {
      try {
        await admin.query(`create database ${dbName} template ${inject('pgTemplate')}`);
        break;
      } catch (err: any) {
        if (i > 50 || err.code !== '55006') throw err;
        await sleep(100 + Math.random() * 200);
      }
    }
    const direct = new URL(url!);
    direct.pathname = `/${dbName}`;
    proxy = await startTcpProxy({ host: direct.hostname, port: Number(direct.port || 5432) });
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    const env: NodeJS.ProcessEnv = { ...process.env };
    for (const k of ['REDIS_URL', 'SMTP_URL', 'PAYMENT_PROVIDER', 'STRIPE_SECRET_KEY', 'STRIPE_WEBHOOK_SECRET', 'METRICS_TOKEN', 'NODE_ENV']) delete env[k];
    Object.assign(env, {
      DATABASE_URL: proxy.via(direct.toString()),
      DATA_DIR: mkdtempSync(join(tmpdir(), 'pts-faults-')),
      PORT: String(port),
      HOST: '127.0.0.1',
      BRAND_SLUG: TEST_BRAND,
      LOG_LEVEL: 'warn',
      // Four writers post messages as fast as the server answers for the whole outage: far more than
      // a patient's hourly message budget (src/http/budgets.ts). This test is about the database, so
      // the budgets are raised out of its way (a 429 here is not what it measures).
      ROUTE_BUDGETS: 'messages-account=1000000/3600,messages-ip=1000000/3600',
    });
    child = spawn(process.execPath, ['--import', 'tsx', join(root, 'src/main.ts')], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout!.on('data', (d) => (output += d));
    child.stderr!.on('data', (d) => (output += d));
    const deadline = Date.now() + 90_000;
    for (;;) {
      const ready = await fetch(`${base}/readyz`, { signal: AbortSignal.timeout(2000) }).catch(() => undefined);
      if (ready?.status === 200) break;
      if (child.exitCode !== null) throw new Error(`the server exited at start:\n${output}`);
      if (Date.now() > deadline) throw new Error(`the server did not get ready:\n${output}`);
      await sleep(250);
    }
  }, 120_000);

  afterAll(async () => {
    if (child && child.exitCode === null) {
      child.kill('SIGKILL');
      await new Promise((r) => child.once('exit', r));
    }
    await proxy?.close();
    await admin?.query(`drop database if exists ${dbName} with (force)`).catch(() => undefined);
    await admin?.end();
  });

  it('stays up, answers 503 (never 500) while the database is gone, recovers within 10 s and loses no acknowledged write', async () => {
    // A patient and its token, made directly on the database (the server reads the same keys).
    const direct = new URL(url!);
    direct.pathname = `/${dbName}`;
    const rt = await createRuntime(loadConfig({ DATABASE_URL: direct.toString(), BRAND_SLUG: TEST_BRAND, LOG_LEVEL: 'silent', DATA_DIR: mkdtempSync(join(tmpdir(), 'pts-faults-')) }), { migrate: false });
    const patient = await seedPatient({ db: rt.deps.db, deps: rt.deps } as unknown as TestContext);
    await rt.close();
    const headers = { authorization: `Bearer ${patient.access}`, 'content-type': 'application/json' };
    const list = await fetch(`${base}/v1/users/conversations/`, { headers });
    expect(list.status).toBe(200);
    const conversation = ((await list.json()) as any).results[0].id as string;

    const answers: Answer[] = [];
    const acknowledged = new Set<string>();
    let n = 0;
    let stop = false;
    const writer = async () => {
      while (!stop) {
        const content = `write ${++n}`;
        const startedAt = Date.now();
        try {
          const res = await fetch(`${base}/v1/users/conversations/${conversation}/messages/`, {
            method: 'POST',
            headers,
            body: JSON.stringify({ content }),
            signal: AbortSignal.timeout(30_000),
          });
          const body = await res.json().catch(() => undefined);
          answers.push({ status: res.status, ms: Date.now() - startedAt, startedAt, body });
          if (res.status === 201) acknowledged.add(content);
        } catch {
          answers.push({ status: 0, ms: Date.now() - startedAt, startedAt });
        }
        await sleep(20);
      }
    };
    const writers = Array.from({ length: 4 }, writer);
    const okSince = (t: number) => answers.filter((a) => a.startedAt >= t && a.status === 201).length;
    /** Waits until a write started after `t` succeeded and /readyz says 200; the time it took. */
    const recovery = async (t: number) => {
      for (;;) {
        const ready = await fetch(`${base}/readyz`, { signal: AbortSignal.timeout(5000) }).catch(() => undefined);
        if (ready?.status === 200 && okSince(t) > 0) return Date.now() - t;
        if (Date.now() - t > 30_000) return Infinity;
        await sleep(100);
      }
    };
    const readyz = async () => {
      const started = Date.now();
      const res = await fetch(`${base}/readyz`, { signal: AbortSignal.timeout(10_000) });
      return { status: res.status, body: (await res.json()) as any, ms: Date.now() - started };
    };

    try {
      while (acknowledged.size < 10) await sleep(50);

      // 1. Every backend of the app is terminated, twice, with writes in flight.
      for (let round = 0; round < 2; round++) {
        const killed = await admin.query('select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()', [dbName]);
        expect(killed.rowCount).toBeGreaterThan(0);
        const t = Date.now();
        expect(await recovery(t)).toBeLessThan(10_000);
      }

      // 2. The database restarts: open connections close, new ones are refused.
      proxy.cut('refuse');
      await sleep(300);
      const refused = await readyz();
      expect([refused.status, refused.body.checks.database]).toEqual([503, 'unreachable']);
      expect(refused.ms).toBeLessThan(2000);
      await sleep(1500);
      let t = Date.now();
      proxy.restore();
      expect(await recovery(t)).toBeLessThan(10_000);

      // 3. The host vanishes: connection attempts are never answered.
      proxy.cut('blackhole');
      await sleep(300);
      const vanished = await readyz();
      expect([vanished.status, vanished.body.checks.database]).toEqual([503, 'unreachable']);
      expect(vanished.ms).toBeLessThan(2000);
      await sleep(4000); // writes wait for their connection timeout, then answer 503
      t = Date.now();
      proxy.restore();
      expect(await recovery(t)).toBeLessThan(10_000);
      await sleep(500);
    } finally {
      stop = true;
      await Promise.all(writers);
    }

    // The process is up, and said nothing of an unhandled error.
    expect(child.exitCode).toBeNull();
    expect(output).not.toMatch(/Unhandled|uncaught/i);
    expect((await fetch(`${base}/healthz`)).status).toBe(200);

    // Only 201 and 503 (with its code and Retry-After); every answer came, and the 503s quickly.
    const statuses = [...new Set(answers.map((a) => a.status))].sort();
    expect(statuses).toEqual([201, 503]);
    const unavailable = answers.filter((a) => a.status === 503);
    expect(unavailable.every((a) => a.body?.code === 'database_unavailable' && typeof a.body?.error === 'string')).toBe(true);
    expect(Math.max(...unavailable.map((a) => a.ms))).toBeLessThan(6000);

    // Every acknowledged write is stored.
    const stored = await fetch(`${base}/v1/users/conversations/${conversation}/messages/`, { headers });
    expect(stored.status).toBe(200);
    const contents = new Set(((await stored.json()) as Array<{ content: string }>).map((m) => m.content));
    const lost = [...acknowledged].filter((c) => !contents.has(c));
    expect(acknowledged.size).toBeGreaterThan(20);
    expect(lost).toEqual([]);

    // And it still stops cleanly.
    child.kill('SIGTERM');
    const code = await new Promise<number | null>((r) => child.once('exit', (c) => r(c)));
    expect(code).toBe(0);
  }, 120_000);
});
