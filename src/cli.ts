// Operator commands: `npm run cli -- <command> [--flag value ...]`.
// On the embedded database the command takes the DATA_DIR lock, so it refuses to run while a server
// holds the database (stop the server first); on PostgreSQL it runs beside the servers.
import { parseArgs } from 'node:util';
import { loadConfig } from './config.ts';
import { DataDirLockedError } from './db/lock.ts';
import { errorString } from './lib/error-fields.ts';
import { migrate } from './db/migrate.ts';
import { backupEmbedded, BackupError, restoreEmbedded } from './db/backup.ts';
import { addSuppression, createStaff, parseTotpSecret, resetMfaByEmail, setDisabledByEmail, type StaffRole } from './modules/accounts/index.ts';
import { assignPharmacistToPharmacy, pharmacistIdByEmail } from './modules/pharmacies/index.ts';
import { createRuntime, openDatabase } from './runtime.ts';
import { resealRows, sealedKeyCounts, sealPlaintextRows } from './lib/sealed-columns.repository.ts';
import { resealStoredFiles } from './modules/messages/index.ts';
import { endGrantsWithSessions } from './modules/mcp/index.ts';
import type { Deps } from './deps.ts';
import { resealPhotos } from './modules/photos/index.ts';
import { resealVerificationImages } from './modules/verification/index.ts';
import { revokeSigningIdentity, rotateSigningIdentity, setPrescriberCredentials } from './modules/signing/index.ts';

const USAGE = `Usage: npm run cli -- <command> [options]

Commands:
  create-staff --email E --password P --role doctor|backoffice_admin|marketer|pharmacist --first-name F --last-name L [--license N] [--totp-secret BASE32]
                                   every staff account needs --first-name and --last-name (the patient's access log
                                   shows them); a doctor also --license (printed on prescriptions);
                                   --totp-secret enrols that authenticator secret (at least 128 bits) as the second factor
  assign-pharmacy --email E --pharmacy ID|central
                                   bind a pharmacist to their pharmacy (a back-office admin can too:
                                   PUT /v1/backoffice/pharmacists/{id}/pharmacy/); they see and move only its orders
  reset-mfa --email E              remove the account's second factor and recovery codes and end its sessions
  disable-account --email E        disable an account and end all its sessions at once
  enable-account --email E         enable a disabled account
  suppress-email --email E [--reason R]   add an address to the mail suppression list (bounces, complaints)
  rotate-signing-identity --email E        retire a prescriber's signing key and certificate (what it signed still
                                   verifies); their next prescription is signed with a new one
  revoke-signing-identity --email E --reason R   revoke every signing certificate of a prescriber (a lost or
                                   compromised key): what they signed no longer verifies; a new one is issued at
                                   their next signature (docs/prescriptions.md)
  set-prescriber --email E [--qualification Q] [--license N]   change a doctor's checked credentials (printed on
                                   prescriptions, named in the signing certificate); rotates the signing identity
  migrate                          apply pending database migrations
  backup --to FILE                 embedded database: write a backup of DATA_DIR's database (files included)
                                   to FILE; stop the server first (refused while it holds DATA_DIR)
  reencrypt                        seal every value still in plaintext (rows from before encryption at rest) and
                                   re-seal every value not under the active DATA_ENCRYPTION_KEYS key (key
                                   rotation, docs/operations.md); prints how many values each key holds after
  restore --from FILE [--force]    embedded database: replace DATA_DIR's database with a backup (--force
                                   when one exists: it is kept as DATA_DIR/pglite.before-restore-<time>)
                                   On PostgreSQL use pg_dump / pg_restore (docs/operations.md, "Backups and restores").
`;

const ROLES: StaffRole[] = ['doctor', 'backoffice_admin', 'marketer', 'pharmacist'];

/**
 * `options.deps`: run the account commands on an open runtime (tests drive them against an app's
 * database, with its sessions, grants and factors) instead of opening DATA_DIR's database.
 */
export async function runCli(argv: string[], env: Record<string, string | undefined> = process.env, options: { deps?: Deps } = {}): Promise<{ code: number; out: string }> {
  const [command, ...rest] = argv;
  const { values } = parseArgs({
    args: rest,
    strict: false,
    options: {
      email: { type: 'string' },
      password: { type: 'string' },
      role: { type: 'string' },
      'first-name': { type: 'string' },
      'last-name': { type: 'string' },
      license: { type: 'string' },
      reason: { type: 'string' },
      qualification: { type: 'string' },
      'totp-secret': { type: 'string' },
      to: { type: 'string' },
      from: { type: 'string' },
      force: { type: 'boolean' },
      pharmacy: { type: 'string' },
    },
  });
  const str = (k: string): string | undefined => {
    const value: unknown = values[k];
    return typeof value === 'string' ? value : undefined;
  };
  const config = loadConfig({ ...env, LOG_LEVEL: env.LOG_LEVEL ?? 'warn' });

  if (command === 'migrate') {
    const { db, release } = await openDatabase(config);
    try {
      const applied = await migrate(db);
      return { code: 0, out: applied.length ? `applied: ${applied.join(', ')}` : 'database is up to date' };
    } finally {
      await db.close();
      release();
    }
  }
  if (command === 'backup' || command === 'restore') {
    if (config.DATABASE_URL) {
      return { code: 2, out: `${command} is for the embedded database; on PostgreSQL use pg_dump / pg_restore (docs/operations.md, "Backups and restores")` };
    }
    try {
      if (command === 'backup') {
        const to = str('to');
        if (!to) return { code: 2, out: `--to FILE is required\n\n${USAGE}` };
        const { file, bytes } = await backupEmbedded(config.DATA_DIR, to);
        return { code: 0, out: `backup of ${config.DATA_DIR} written to ${file} (${bytes} bytes)` };
      }
      const from = str('from');
      if (!from) return { code: 2, out: `--from FILE is required\n\n${USAGE}` };
      const { replaced, migrations } = await restoreEmbedded(config.DATA_DIR, from, { force: values.force === true });
      return {
        code: 0,
        out: `restored ${from} into ${config.DATA_DIR} (${migrations} migrations applied in the backup; newer ones apply at the next start)${replaced ? `; the database it replaced is in ${replaced}` : ''}`,
      };
    } catch (err) {
      if (err instanceof BackupError) return { code: 1, out: err.message };
      throw err;
    }
  }
  if (command === 'reencrypt') {
    const runtime = await createRuntime(config);
    try {
      const sealed = await sealPlaintextRows(runtime.deps.db);
      const resealed = await resealRows(runtime.deps.db);
      const counts = await sealedKeyCounts(runtime.deps.db);
      const files = await resealStoredFiles(runtime.deps);
      const photos = await resealPhotos(runtime.deps);
      const verification = await resealVerificationImages(runtime.deps);
      return {
        code: 0,
        out: [
          `active key: ${runtime.deps.secrets.documentKeys.active.id}`,
          `sealed from plaintext: ${JSON.stringify(sealed)}`,
          `re-sealed with the active key: ${JSON.stringify(resealed)}`,
          `values per key: ${JSON.stringify(counts)}`,
          `attachments re-sealed: ${files.database} in the database, ${files.s3} in the bucket; blobs per key: ${JSON.stringify(files.blobsPerKey)}`,
          `clinical photos re-sealed: ${photos.database} in the database, ${photos.s3} in the bucket`,
          `verification images re-sealed: ${verification.database} in the database, ${verification.s3} in the bucket`,
        ].join('\n'),
      };
    } finally {
      await runtime.close();
    }
  }
  if (!['create-staff', 'disable-account', 'enable-account', 'suppress-email', 'reset-mfa', 'rotate-signing-identity', 'revoke-signing-identity', 'set-prescriber', 'assign-pharmacy'].includes(command ?? '')) return { code: 2, out: USAGE };
  const email = str('email');
  if (!email) return { code: 2, out: `--email is required\n\n${USAGE}` };

  // Arguments are checked before the database is opened.
  const role = str('role') as StaffRole | undefined;
  const password = str('password');
  if (command === 'create-staff') {
    if (!role || !ROLES.includes(role)) return { code: 2, out: `--role must be one of ${ROLES.join(', ')}` };
    if (!password) return { code: 2, out: '--password is required' };
    if (role === 'doctor') {
      const missing = ['first-name', 'last-name', 'license'].filter((k) => !str(k)?.trim());
      if (missing.length) return { code: 2, out: `a doctor needs ${missing.map((k) => `--${k}`).join(', ')} (the prescriber printed on prescriptions)` };
    }
    // Every staff account is named: the patient's access log shows who read their record (issue 43).
    const unnamed = ['first-name', 'last-name'].filter((k) => !str(k)?.trim());
    if (unnamed.length) return { code: 2, out: `a staff account needs ${unnamed.map((k) => `--${k}`).join(', ')} (shown in the patient's access log)` };
    const totpSecret = str('totp-secret');
    if (totpSecret !== undefined) {
      try {
        parseTotpSecret(totpSecret);
      } catch (err) {
        return { code: 2, out: `--totp-secret: ${errorString(err, 'message') ?? String(err)}` };
      }
    }
  }

  if (command === 'set-prescriber') {
    const q = str('qualification')?.trim();
    const l = str('license')?.trim();
    if (q === undefined && l === undefined) return { code: 2, out: 'set-prescriber needs --qualification and/or --license' };
    if (q !== undefined && (q.length < 1 || q.length > 200)) return { code: 2, out: '--qualification must be 1 to 200 characters' };
    if (l !== undefined && (l.length < 1 || l.length > 64)) return { code: 2, out: '--license must be 1 to 64 characters' };
  }
  if (command === 'revoke-signing-identity' && !str('reason')?.trim()) return { code: 2, out: '--reason is required (recorded with the revocation)' };
  const pharmacy = str('pharmacy')?.trim();
  if (command === 'assign-pharmacy' && !(pharmacy === 'central' || /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(pharmacy ?? ''))) {
    return { code: 2, out: '--pharmacy must be a pharmacy id (GET /v1/backoffice/pharmacies/) or central' };
  }

  // The commands that end sessions end the account's connector grants with them: the connector
  // hooks itself onto the accounts module when the server starts, so here it is hooked explicitly.
  endGrantsWithSessions();
  const runtime = options.deps ? { deps: options.deps, close: () => Promise.resolve() } : await createRuntime(config);
  try {
    switch (command) {
      case 'rotate-signing-identity': {
        const r = await rotateSigningIdentity(runtime.deps, email);
        if (!r.found) return { code: 1, out: `no doctor account for ${email}` };
        return { code: 0, out: r.retired ? `signing identity of ${email} rotated: the next prescription is signed with a new key and certificate` : `${email} has no active signing identity: one is issued at the next signature` };
      }
      case 'revoke-signing-identity': {
        const r = await revokeSigningIdentity(runtime.deps, email, (str('reason') ?? '').trim().slice(0, 500));
        if (!r.found) return { code: 1, out: `no doctor account for ${email}` };
        return { code: 0, out: `${r.revoked} signing certificate(s) of ${email} revoked: prescriptions they signed no longer verify` };
      }
      case 'set-prescriber': {
        const r = await setPrescriberCredentials(runtime.deps, email, { qualification: str('qualification')?.trim(), licenceNumber: str('license')?.trim() });
        if (!r.found) return { code: 1, out: `no doctor account for ${email}` };
        return { code: 0, out: `prescriber details of ${email} changed${r.rotated ? '; signing identity rotated: the next prescription is signed with a certificate naming them' : ''}` };
      }
      case 'create-staff': {
        if (!role || !password) return { code: 2, out: USAGE };
        try {
          const id = await createStaff(runtime.deps, { email, password, role, firstName: str('first-name'), lastName: str('last-name'), licenseNumber: str('license'), totpSecret: str('totp-secret') });
          return { code: 0, out: `staff account ${email} (${role}) ready: ${id}` };
        } catch (err) {
          return { code: 1, out: errorString(err, 'message') ?? String(err) };
        }
      }
      case 'assign-pharmacy': {
        const id = await pharmacistIdByEmail(runtime.deps, email);
        if (!id) return { code: 1, out: `no pharmacist account for ${email}` };
        try {
          const a = await assignPharmacistToPharmacy(runtime.deps, null, id, pharmacy === 'central' ? 'central' : pharmacy!);
          return { code: 0, out: `${email} now works for ${a.pharmacy.name} (${a.pharmacy.id}): they see and move only its orders` };
        } catch (err) {
          return { code: 1, out: `${email}: no active pharmacy ${pharmacy}${errorString(err, 'message') ? ` (${errorString(err, 'message')})` : ''}` };
        }
      }
      case 'disable-account':
      case 'enable-account': {
        const found = await setDisabledByEmail(runtime.deps, email, command === 'disable-account');
        return found ? { code: 0, out: `${command === 'disable-account' ? 'disabled' : 'enabled'} ${email}` } : { code: 1, out: `no account for ${email}` };
      }
      case 'reset-mfa': {
        const found = await resetMfaByEmail(runtime.deps, email);
        return found ? { code: 0, out: `second factor removed and sessions ended for ${email}` } : { code: 1, out: `no account for ${email}` };
      }
      default: {
        await addSuppression(runtime.deps, email, str('reason') ?? 'operator');
        return { code: 0, out: `suppressed ${email}` };
      }
    }
  } finally {
    await runtime.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  runCli(process.argv.slice(2))
    .then(({ code, out }) => {
      (code === 0 ? console.log : console.error)(out);
      process.exit(code);
    })
    .catch((err) => {
      console.error(err instanceof DataDirLockedError ? err.message : err instanceof Error ? err.message : err);
      process.exit(1);
    });
}
