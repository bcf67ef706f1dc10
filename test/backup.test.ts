// Backups and restores (docs/operations.md, "Backups and restores"): the embedded database
// through the CLI (`backup --to`, `restore --from`), and PostgreSQL through pg_dump / pg_restore when
// the tests run on PostgreSQL and the binaries exist. Each restores a backup and reads the data back
// over HTTP, attachments included.
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { describe, expect, inject, it } from 'vitest';
import { buildApp, type App } from '../src/app.ts';
import { runCli } from '../src/cli.ts';
import { loadConfig } from '../src/config.ts';
import { openPostgres } from '../src/db/index.ts';
import { memoryTransport } from '../src/mail/transports.ts';
import { createRuntime, type Runtime } from '../src/runtime.ts';
import { call, createTestContext, firstRow, seedPatient, TEST_BASE_URL, TEST_BRAND, type Patient, type TestContext } from './support/harness.ts';
import { multipart, pdfPart } from './support/multipart.ts';

const PDF = Buffer.concat([Buffer.from('%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n'), randomBytes(20_000), Buffer.from('\n%%EOF\n')]);

/** Uploads a file as `p` and returns the download path. */
async function upload(on: { app: App }, p: Patient, data = PDF): Promise<string> {
  const id = (await call(on, 'GET', '/v1/users/conversations/', { token: p.access })).body.results[0].id as string;
  const r = await call(on, 'POST', `/v1/users/conversations/${id}/messages/`, { token: p.access, ...multipart({}, pdfPart(data)) });
  expect(r.status, r.text).toBe(201);
  return (r.body.last_message.file as string).replace(TEST_BASE_URL, '');
}

const download = (on: { app: App }, path: string, token: string) => on.app.inject({ method: 'GET', url: path, headers: { authorization: `Bearer ${token}` } });

describe('the embedded database: backup and restore through the CLI', () => {
  const env = (dataDir: string) => ({ DATA_DIR: dataDir, LOG_LEVEL: 'silent', BRAND_SLUG: TEST_BRAND, PUBLIC_BASE_URL: TEST_BASE_URL });

  /** The service on DATA_DIR, as `npm start` opens it (the lock, the migrations). */
  async function serve(dataDir: string): Promise<{ app: App; runtime: Runtime; ctx: TestContext; close(): Promise<void> }> {
    const runtime = await createRuntime(loadConfig(env(dataDir)), { transport: memoryTransport() });
    const app = await buildApp(runtime.deps, { logger: false });
    await app.ready();
    // seedPatient needs the database and the dependencies of a test context.
    const ctx = { app, deps: runtime.deps, db: runtime.deps.db } as unknown as TestContext;
    return { app, runtime, ctx, close: async () => (await app.close(), await runtime.close()) };
  }

  it('restores what was backed up (accounts, messages, attachments), and keeps the replaced database', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'pts-backup-'));
    // A migrated database to start from: the tests' template (itself a PGlite dump, so this is a
    // restore too), else a fresh one.
    const template = inject('pgliteTemplate');
    if (template) expect((await runCli(['restore', '--from', template], env(dataDir))).code).toBe(0);
    else expect((await runCli(['migrate'], env(dataDir))).code).toBe(0);

    let server = await serve(dataDir);
    const p = await seedPatient(server.ctx);
    const kept = await upload(server, p);
    // (A server in another process holds DATA_DIR's lock and the backup is refused: next test.)
    await server.close();

    const file = join(mkdtempSync(join(tmpdir(), 'pts-backups-')), 'pts.tar.gz');
    const backup = await runCli(['backup', '--to', file], env(dataDir));
    expect(backup.code, backup.out).toBe(0);
    expect(backup.out).toMatch(/^backup of .* written to .*pts\.tar\.gz \(\d+ bytes\)$/);
    expect(readdirSync(join(file, '..'))).toEqual(['pts.tar.gz']); // no temporary file left

    // Changes after the backup: another patient and another file.
    server = await serve(dataDir);
    const later = await seedPatient(server.ctx);
    const lost = await upload(server, later);
    await server.close();

    // Restoring over a database needs --force; a file that is not a backup changes nothing.
    const refused = await runCli(['restore', '--from', file], env(dataDir));
    expect(refused.code).toBe(1);
    expect(refused.out).toMatch(/holds a database already: pass --force/);
    const junk = join(tmpdir(), `${randomUUID()}.tar.gz`);
    writeFileSync(junk, 'not a backup at all');
    const bad = await runCli(['restore', '--from', junk, '--force'], env(dataDir));
    expect(bad.code).toBe(1);
    expect(bad.out).toMatch(/is not a backup of this service's embedded database/);
    expect((await runCli(['restore', '--from', join(tmpdir(), 'no-such-backup.tar.gz'), '--force'], env(dataDir))).code).toBe(1);

    const restored = await runCli(['restore', '--from', file, '--force'], env(dataDir));
    expect(restored.code, restored.out).toBe(0);
    expect(restored.out).toMatch(/the database it replaced is in .*pglite\.before-restore-/);
    expect(readdirSync(dataDir).filter((f) => f.startsWith('pglite.before-restore-'))).toHaveLength(1);

    server = await serve(dataDir);
    try {
      // The patient's session still works (the signing key is in the backup), their file reads back.
      const dl = await download(server, kept, p.access);
      expect(dl.statusCode).toBe(200);
      expect(dl.rawPayload.equals(PDF)).toBe(true);
      // What came after the backup is gone.
      expect(await server.runtime.deps.db.query('select 1 from users where id = $1', [later.id])).toHaveLength(0);
      expect((await download(server, lost, p.access)).statusCode).toBe(404);
    } finally {
      await server.close();
    }
  }, 180_000);

  it('refuses a backup while another live process holds DATA_DIR, and on PostgreSQL points to pg_dump', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'pts-backup-'));
    const holder = spawn('sleep', ['30']);
    try {
      writeFileSync(join(dataDir, 'pglite.lock'), String(holder.pid));
      await expect(runCli(['backup', '--to', join(dataDir, 'x.tar.gz')], env(dataDir))).rejects.toThrow(/in use by process/);
      await expect(runCli(['restore', '--from', join(dataDir, 'pglite.lock'), '--force'], env(dataDir))).rejects.toThrow(/in use by process/);
    } finally {
      holder.kill();
    }
    expect(existsSync(join(dataDir, 'x.tar.gz'))).toBe(false);
    const onPg = await runCli(['backup', '--to', 'x.tar.gz'], { ...env(dataDir), DATABASE_URL: 'postgres://127.0.0.1:1/none' });
    expect(onPg.code).toBe(2);
    expect(onPg.out).toMatch(/pg_dump/);
    expect((await runCli(['backup'], env(dataDir))).code).toBe(2);
    const empty = await runCli(['backup', '--to', join(dataDir, 'x.tar.gz')], env(mkdtempSync(join(tmpdir(), 'pts-empty-'))));
    expect(empty).toMatchObject({ code: 1, out: expect.stringMatching(/no embedded database/) });
  });
});

// PostgreSQL: the documented pg_dump / pg_restore commands, run for real.
const hasPgTools = (() => {
  try {
    execFileSync('pg_dump', ['--version'], { stdio: 'ignore' });
    execFileSync('pg_restore', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

describe.skipIf(!process.env.DATABASE_URL || !hasPgTools)('PostgreSQL: pg_dump and pg_restore (docs/operations.md)', () => {
  it('a custom-format dump restored into a new database serves the same accounts and attachments', async () => {
    const ctx = await createTestContext();
    const admin = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await admin.connect();
    const restoredName = `pts_restore_${randomBytes(4).toString('hex')}`;
    const dumpFile = join(mkdtempSync(join(tmpdir(), 'pts-pgdump-')), 'pts.dump');
    try {
      const p = await seedPatient(ctx);
      const path = await upload(ctx, p);
      const source = new URL(process.env.DATABASE_URL!);
      source.pathname = `/${firstRow(await ctx.db.query<{ db: string }>('select current_database() as db')).db}`;
      execFileSync('pg_dump', ['--format=custom', '--no-owner', '--file', dumpFile, source.toString()], { stdio: 'pipe' });
      await admin.query(`create database ${restoredName}`);
      const target = new URL(source.toString());
      target.pathname = `/${restoredName}`;
      execFileSync('pg_restore', ['--no-owner', '--exit-on-error', '--dbname', target.toString(), dumpFile], { stdio: 'pipe' });

      const db = await openPostgres(target.toString());
      const runtime = await createRuntime(loadConfig({ DATA_DIR: mkdtempSync(join(tmpdir(), 'pts-test-')), LOG_LEVEL: 'silent', BRAND_SLUG: TEST_BRAND, PUBLIC_BASE_URL: TEST_BASE_URL }), {
        db,
        transport: memoryTransport(),
      });
      const app = await buildApp(runtime.deps, { logger: false });
      try {
        const dl = await download({ app }, path, p.access);
        expect(dl.statusCode).toBe(200);
        expect(dl.rawPayload.equals(PDF)).toBe(true);
      } finally {
        await app.close();
        await runtime.close();
      }
    } finally {
      await admin.query(`drop database if exists ${restoredName} with (force)`).catch(() => undefined);
      await admin.end();
      await ctx.close();
    }
  }, 120_000);
});
