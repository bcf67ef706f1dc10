// Operator commands: `npm run cli -- <command> [--flag value ...]`.
// On the embedded database the command takes the DATA_DIR lock, so it refuses to run while a server
// holds the database (stop the server first); on PostgreSQL it runs beside the servers.
import { parseArgs } from 'node:util';
import { loadConfig } from './config.ts';
import { DataDirLockedError } from './db/lock.ts';
import { errorString } from './lib/error-fields.ts';
import { migrate } from './db/migrate.ts';
import { addSuppression, createStaff, parseTotpSecret, resetMfaByEmail, setDisabledByEmail, type StaffRole } from './modules/accounts/index.ts';
import { createRuntime, openDatabase } from './runtime.ts';

const USAGE = `Usage: npm run cli -- <command> [options]

Commands:
  create-staff --email E --password P --role doctor|backoffice_admin|marketer|pharmacist [--first-name F] [--last-name L] [--license N] [--totp-secret BASE32]
                                   a doctor needs --first-name, --last-name and --license (printed on prescriptions);
                                   --totp-secret enrols that authenticator secret (at least 128 bits) as the second factor
  reset-mfa --email E              remove the account's second factor and recovery codes and end its sessions
  disable-account --email E        disable an account and end all its sessions at once
  enable-account --email E         enable a disabled account
  suppress-email --email E [--reason R]   add an address to the mail suppression list (bounces, complaints)
  migrate                          apply pending database migrations
`;

const ROLES: StaffRole[] = ['doctor', 'backoffice_admin', 'marketer', 'pharmacist'];

export async function runCli(argv: string[], env: Record<string, string | undefined> = process.env): Promise<{ code: number; out: string }> {
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
      'totp-secret': { type: 'string' },
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
  if (!['create-staff', 'disable-account', 'enable-account', 'suppress-email', 'reset-mfa'].includes(command ?? '')) return { code: 2, out: USAGE };
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
    const totpSecret = str('totp-secret');
    if (totpSecret !== undefined) {
      try {
        parseTotpSecret(totpSecret);
      } catch (err) {
        return { code: 2, out: `--totp-secret: ${errorString(err, 'message') ?? String(err)}` };
      }
    }
  }

  const runtime = await createRuntime(config);
  try {
    switch (command) {
      case 'create-staff': {
        if (!role || !password) return { code: 2, out: USAGE };
        try {
          const id = await createStaff(runtime.deps, { email, password, role, firstName: str('first-name'), lastName: str('last-name'), licenseNumber: str('license'), totpSecret: str('totp-secret') });
          return { code: 0, out: `staff account ${email} (${role}) ready: ${id}` };
        } catch (err) {
          return { code: 1, out: errorString(err, 'message') ?? String(err) };
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
