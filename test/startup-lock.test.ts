// Several processes starting together on one fresh PostgreSQL database (PostgreSQL only): each
// applies the migrations and sets pg-boss up (its schema, the queue, the schedule). Unserialised,
// two pg-boss set-ups could deadlock in pgboss.create_queue and one process exit; the start-up work
// runs under one advisory lock (src/db/startup-lock.ts). Here two instances start at once on a new
// database, several times, each as main.ts does it: the runtime (with migrations), then pg-boss.
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.ts';
import { startPgBossTrigger } from '../src/lib/scheduler.ts';
import { memoryTransport } from '../src/mail/transports.ts';
import { createRuntime, pgTimeouts, type Runtime } from '../src/runtime.ts';

const url = process.env.DATABASE_URL;

describe.skipIf(!url)('two instances starting together on a fresh database', () => {
  let admin: pg.Client;
  const made: string[] = [];
  beforeAll(async () => {
    admin = new pg.Client({ connectionString: url });
    await admin.connect();
  });
  afterAll(async () => {
    for (const name of made) await admin.query(`drop database if exists ${name} with (force)`).catch(() => undefined);
    await admin?.end();
  });

  async function start(databaseUrl: string): Promise<{ runtime: Runtime; stop: () => Promise<void> }> {
    const config = loadConfig({ DATABASE_URL: databaseUrl, LOG_LEVEL: 'silent', DATA_DIR: mkdtempSync(join(tmpdir(), 'pts-start-')) });
    const runtime = await createRuntime(config, { transport: memoryTransport() });
    try {
      const stop = await startPgBossTrigger(databaseUrl, runtime.deps.scheduler, runtime.deps.log, pgTimeouts(config));
      return { runtime, stop };
    } catch (err) {
      await runtime.close();
      throw err;
    }
  }

  it('both start, every time (migrations and pg-boss set-up serialised by an advisory lock)', async () => {
    for (let round = 0; round < 4; round++) {
      const name = `pts_start_${randomBytes(4).toString('hex')}`;
      await admin.query(`create database ${name}`);
      made.push(name);
      const u = new URL(url!);
      u.pathname = `/${name}`;
      const started = await Promise.allSettled([start(u.toString()), start(u.toString())]);
      for (const s of started) {
        if (s.status === 'fulfilled') {
          await s.value.stop();
          await s.value.runtime.close();
        }
      }
      expect(started.map((s) => (s.status === 'rejected' ? String(s.reason) : 'started')), `round ${round + 1}`).toEqual(['started', 'started']);
    }
  }, 240_000);
});
