// Operator CLI: create-staff, disable/enable-account, suppress-email, migrate, and the DATA_DIR lock.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../src/cli.ts';
import { lockDataDir } from '../src/db/lock.ts';

// The CLI runs on its own embedded database (a fresh DATA_DIR), or on PostgreSQL when DATABASE_URL is
// set; here it always uses a fresh embedded one so that the commands can be checked end to end.
const env = () => ({ DATA_DIR: mkdtempSync(join(tmpdir(), 'pts-cli-')), LOG_LEVEL: 'silent' });

describe('operator CLI', () => {
  it('creates staff, disables and enables accounts, suppresses addresses and migrates', async () => {
    const e = env();
    expect((await runCli(['migrate'], e)).out).toMatch(/applied: 0001_accounts.sql/);
    expect((await runCli(['migrate'], e)).out).toBe('database is up to date');
    const created = await runCli(['create-staff', '--email', 'Doc@Example.org', '--password', 'Ward-Lantern-Harbour-2026', '--role', 'doctor', '--license', 'DE-123'], e);
    expect(created.code).toBe(0);
    expect((await runCli(['create-staff', '--email', 'x@example.org', '--password', 'short', '--role', 'doctor'], e)).code).toBe(1);
    expect((await runCli(['create-staff', '--email', 'x@example.org', '--password', 'Ward-Lantern-Harbour-2026', '--role', 'pharmacist'], e)).code).toBe(2);
    expect(await runCli(['disable-account', '--email', 'doc@example.org'], e)).toEqual({ code: 0, out: 'disabled doc@example.org' });
    expect(await runCli(['enable-account', '--email', 'doc@example.org'], e)).toEqual({ code: 0, out: 'enabled doc@example.org' });
    expect((await runCli(['disable-account', '--email', 'nobody@example.org'], e)).code).toBe(1);
    expect((await runCli(['suppress-email', '--email', 'bounce@example.org'], e)).code).toBe(0);
    expect((await runCli(['frobnicate'], e)).code).toBe(2);
  }, 240_000); // five embedded databases opened in turn: slow on a busy machine

  it('refuses to open an embedded database that a running server holds', async () => {
    const e = env();
    // A live process other than this one holds the lock (the parent process stands in for a server).
    writeFileSync(join(e.DATA_DIR, 'pglite.lock'), String(process.ppid));
    await expect(runCli(['migrate'], e)).rejects.toThrow(/in use by process/);
    // A lock left by a process that died is stale and taken over.
    writeFileSync(join(e.DATA_DIR, 'pglite.lock'), '999999');
    const release = lockDataDir(e.DATA_DIR);
    release();
  });
});
