// Operator CLI: create-staff (with --totp-secret), reset-mfa, disable/enable-account, suppress-email, migrate, and the DATA_DIR lock.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../src/cli.ts';
import { loadConfig } from '../src/config.ts';
import { openDatabase } from '../src/runtime.ts';
import { lockDataDir } from '../src/db/lock.ts';
import { migrationFiles } from '../src/db/migrate.ts';

// The CLI runs on its own embedded database (a fresh DATA_DIR), or on PostgreSQL when DATABASE_URL is
// set; here it always uses a fresh embedded one so that the commands can be checked end to end.
const env = () => ({ DATA_DIR: mkdtempSync(join(tmpdir(), 'pts-cli-')), LOG_LEVEL: 'silent' });

// Once per CI run: it never reads DATABASE_URL, so the PostgreSQL pass would repeat it to the letter
// (CI's embedded pass runs it; test/cli-accounts.test.ts runs the commands on the configured database).
describe.runIf(!process.env.DATABASE_URL)('operator CLI', () => {
  it('creates staff, disables and enables accounts, suppresses addresses and migrates', async () => {
    const e = env();
    // From src/ there is no build template: a fresh DATA_DIR is created and migrated by a child process
    // (where the runtime can start one: Node 22.18+/24 run the TypeScript source directly), or empty
    // and then migrated in this process: both end with every migration applied.
    expect((await runCli(['migrate'], e)).out).toMatch(/^(applied: 0001_accounts\.sql|database is up to date$)/);
    expect((await runCli(['migrate'], e)).out).toBe('database is up to date');
    // A doctor needs a first and last name and a licence number (printed on prescriptions).
    const noNames = await runCli(['create-staff', '--email', 'Doc@Example.org', '--password', 'Ward-Lantern-Harbour-2026', '--role', 'doctor', '--license', 'DE-123'], e);
    expect(noNames).toEqual({ code: 2, out: 'a doctor needs --first-name, --last-name (the prescriber printed on prescriptions)' });
    const noLicence = await runCli(['create-staff', '--email', 'Doc@Example.org', '--password', 'Ward-Lantern-Harbour-2026', '--role', 'doctor', '--first-name', 'Zofia', '--last-name', 'Wójcik'], e);
    expect(noLicence.code).toBe(2);
    expect(noLicence.out).toMatch(/--license/);
    const blank = await runCli(['create-staff', '--email', 'Doc@Example.org', '--password', 'Ward-Lantern-Harbour-2026', '--role', 'doctor', '--first-name', ' ', '--last-name', 'Wójcik', '--license', 'DE-123'], e);
    expect(blank.code).toBe(2);
    const created = await runCli(
      ['create-staff', '--email', 'Doc@Example.org', '--password', 'Ward-Lantern-Harbour-2026', '--role', 'doctor', '--first-name', 'Zofia', '--last-name', 'Wójcik-Σταύρου', '--license', 'LANR 123456789'],
      e,
    );
    expect(created.code).toBe(0);
    expect((await runCli(['create-staff', '--email', 'x@example.org', '--password', 'short', '--role', 'doctor', '--first-name', 'A', '--last-name', 'B', '--license', 'L-1'], e)).code).toBe(1);
    expect((await runCli(['create-staff', '--email', 'x@example.org', '--password', 'Ward-Lantern-Harbour-2026', '--role', 'nurse'], e)).code).toBe(2);
    // A pharmacist (the pharmacy desk, docs/pharmacy.md) needs no licence.
    const pharmacist = await runCli(['create-staff', '--email', 'pharmacy@example.org', '--password', 'Mortar-Pestle-Harbour-2026', '--role', 'pharmacist', '--first-name', 'Lena', '--last-name', 'Apotheker'], e);
    expect(pharmacist).toEqual({ code: 0, out: expect.stringMatching(/^staff account pharmacy@example\.org \(pharmacist\) ready: [0-9a-f-]{36}$/) });
    // Operator enrolment of TOTP, and its reset.
    const staff = ['create-staff', '--email', 'ops@example.org', '--password', 'Signal-Orchard-Beacon-2026', '--role', 'backoffice_admin', '--first-name', 'Olga', '--last-name', 'Ops'];
    expect(await runCli([...staff, '--totp-secret', 'not base32!'], e)).toEqual({ code: 2, out: '--totp-secret: the TOTP secret must be base32 (A-Z, 2-7)' });
    expect((await runCli([...staff, '--totp-secret', 'JBSWY3DPEHPK3PXP'], e)).out).toMatch(/^--totp-secret: the TOTP secret must hold at least 128 bits/);
    expect((await runCli([...staff, '--totp-secret', 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP'], e)).code).toBe(0);
    expect((await runCli(['reset-mfa', '--email', 'doc@example.org'], e)).code).toBe(0);
    const totpRows = async () => {
      const { db, release } = await openDatabase(loadConfig(e));
      try {
        return await db.query('select u.email, t.confirmed_at is not null as confirmed from mfa_totp t join users u on u.id = t.user_id');
      } finally {
        await db.close();
        release();
      }
    };
    expect(await totpRows()).toEqual([{ email: 'ops@example.org', confirmed: true }]);
    expect(await runCli(['reset-mfa', '--email', 'ops@example.org'], e)).toEqual({ code: 0, out: 'second factor removed and sessions ended for ops@example.org' });
    expect(await totpRows()).toEqual([]);
    expect((await runCli(['reset-mfa', '--email', 'nobody@example.org'], e)).code).toBe(1);
    // The CLI process starts no server: its commands still end the connector grants and sessions
    // (test/cli-accounts.test.ts runs every account command on accounts in use).
    const signedIn = async (sqlText: string) => {
      const { db, release } = await openDatabase(loadConfig(e));
      try {
        if (sqlText.startsWith('insert')) return void (await db.exec(sqlText));
        return await db.query<Record<string, unknown>>(sqlText);
      } finally {
        await db.close();
        release();
      }
    };
    await signedIn(`insert into mcp_clients (id, redirect_uris) values ('cli-assistant', '[]'::jsonb);
      insert into mcp_grants (user_id, client_id, scopes, resource) select id, 'cli-assistant', 'patient:read', 'http://x/mcp' from users where email = 'doc@example.org';
      insert into refresh_families (user_id) select id from users where email = 'doc@example.org'`);
    expect(await runCli(['disable-account', '--email', 'doc@example.org'], e)).toEqual({ code: 0, out: 'disabled doc@example.org' });
    expect(await signedIn(`select g.revoke_reason as grant_reason, f.revoke_reason as session_reason from mcp_grants g join refresh_families f using (user_id)`)).toEqual([
      { grant_reason: 'disabled', session_reason: 'disabled' },
    ]);
    expect(await runCli(['enable-account', '--email', 'doc@example.org'], e)).toEqual({ code: 0, out: 'enabled doc@example.org' });
    expect((await runCli(['disable-account', '--email', 'nobody@example.org'], e)).code).toBe(1);
    expect((await runCli(['suppress-email', '--email', 'bounce@example.org'], e)).code).toBe(0);
    expect((await runCli(['frobnicate'], e)).code).toBe(2);
    // The doctor's names and licence number are stored.
    const { db, release } = await openDatabase(loadConfig(e));
    try {
      const [doc] = await db.query('select first_name, last_name, doctor_license_number, is_doctor from users where lower(email) = $1', ['doc@example.org']);
      expect(doc).toEqual({ first_name: 'Zofia', last_name: 'Wójcik-Σταύρου', doctor_license_number: 'LANR 123456789', is_doctor: true });
      const applied = (await db.query<{ name: string }>('select name from schema_migrations order by name')).map((r) => r.name);
      expect(applied).toEqual(migrationFiles());
    } finally {
      await db.close();
      release();
    }
  }, 240_000);

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
