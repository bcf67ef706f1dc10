// Assembles the dependencies from the configuration: database (embedded or server), migrations,
// secrets, clock, rate limiters, mail dispatcher and scheduler. Shared by main.ts, cli.ts and tests.
import { errorString } from './lib/error-fields.ts';
import { spawn } from 'node:child_process';
import { existsSync, renameSync, rmSync } from 'node:fs';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pino from 'pino';
import type { Config } from './config.ts';
import type { Db } from './db/index.ts';
import { openPglite, openPostgres, type PgTimeouts } from './db/index.ts';
import { lockDataDir } from './db/lock.ts';
import { migrate } from './db/migrate.ts';
import { copyTree, usableTemplate } from './db/template.ts';
import type { Deps } from './deps.ts';
import { createClock } from './lib/clock.ts';
import { PageCache } from './lib/page-cache.ts';
import { createLimiters } from './lib/rate-limit.ts';
import { createScheduler } from './lib/scheduler.ts';
import { loadSecrets } from './lib/secrets.ts';
import { createDispatcher } from './mail/outbox.ts';
import { fileTransport, smtpTransport, type MailTransport } from './mail/transports.ts';
import { REDACT_PATHS } from './http/logging.ts';
import { bindDataKeys } from './lib/sealed.ts';
import { sealPlaintextRows } from './lib/sealed-columns.repository.ts';

export interface Runtime {
  deps: Deps;
  close(): Promise<void>;
}

/** host:port/database of a database URL, never its user or password. */
function databaseTarget(url: string): string {
  try {
    const u = new URL(url);
    return `${u.hostname || 'local socket'}:${u.port || 5432}${u.pathname}`;
  } catch {
    return 'DATABASE_URL';
  }
}

/** Start-up errors name the setting that caused them, on one line. */
function describe(err: unknown): string {
  return String(errorString(err, 'code') ?? errorString(err, 'message') ?? err).split('\n')[0] ?? '';
}

/**
 * A DATA_DIR without a database: made in a scratch directory renamed into place once complete, so
 * that an interrupted first start leaves no half-made database. Normally a copy of the build's
 * migrated template (db/template.ts): no second PGlite instance, and the files are copied on the
 * thread pool while the server loads its code. Without a usable template (running from src/, or
 * PGlite updated without a rebuild), a child process runs initdb and migrates (see
 * db/init-data-dir.ts: initdb's heap would otherwise stay in the server); when the child cannot run
 * (a runner whose TypeScript loader does not reach child processes), the database is created in
 * this process, as before, at the cost of the memory initdb keeps. Returns how it was made.
 */
async function createDataDir(dataDir: string, useTemplate = true): Promise<'exists' | 'template' | 'initdb'> {
  if (existsSync(join(dataDir, 'PG_VERSION'))) return 'exists';
  if (existsSync(dataDir)) return 'exists'; // a directory from an older start: PGlite decides what it holds
  const scratch = `${dataDir}.init-${process.pid}`;
  rmSync(scratch, { recursive: true, force: true });
  const template = useTemplate ? usableTemplate() : undefined;
  if (template) {
    try {
      await copyTree(template, scratch);
      renameSync(scratch, dataDir);
      return 'template';
    } catch {
      rmSync(scratch, { recursive: true, force: true }); // then initdb, below
    }
  }
  const here = fileURLToPath(import.meta.url);
  const script = join(here, '..', 'db', `init-data-dir${extname(here)}`);
  const ok = await new Promise<boolean>((resolve) => {
    const child = spawn(process.execPath, [...process.execArgv, script, scratch], { stdio: ['ignore', 'ignore', 'pipe'] });
    child.stderr.resume();
    child.on('error', () => resolve(false));
    child.on('exit', (code) => resolve(code === 0));
  });
  if (ok && existsSync(join(scratch, 'PG_VERSION'))) renameSync(scratch, dataDir);
  else rmSync(scratch, { recursive: true, force: true });
  return 'initdb';
}

/** The PostgreSQL timeouts of the configuration (docs/operations.md). */
export function pgTimeouts(config: Config): PgTimeouts {
  return { connectMs: config.DB_CONNECT_TIMEOUT_MS, statementMs: config.DB_STATEMENT_TIMEOUT_MS, idleInTransactionMs: config.DB_IDLE_IN_TRANSACTION_TIMEOUT_MS };
}

export async function openDatabase(config: Config): Promise<{ db: Db; release: () => void }> {
  if (config.DATABASE_URL) {
    try {
      return { db: await openPostgres(config.DATABASE_URL, 10, pgTimeouts(config)), release: () => undefined };
    } catch (err) {
      const code = errorString(err, 'code');
      const message = errorString(err, 'message');
      const reason = code && message && !message.includes(code) ? `${code}: ${message}` : (message ?? String(err));
      throw new Error(`DATABASE_URL: cannot connect to ${databaseTarget(config.DATABASE_URL)} (${String(reason).split('\n')[0]})`, { cause: err });
    }
  }
  let release: () => void;
  try {
    release = lockDataDir(config.DATA_DIR);
  } catch (err) {
    if (errorString(err, 'code')) throw new Error(`DATA_DIR: cannot use ${config.DATA_DIR} (${describe(err)})`, { cause: err });
    throw err;
  }
  try {
    const dataDir = join(config.DATA_DIR, 'pglite');
    const made = await createDataDir(dataDir);
    try {
      return { db: await openPglite({ dataDir, worker: config.PGLITE_WORKER }), release };
    } catch (err) {
      if (made !== 'template') throw err;
      // A template copy that does not open (it was checked against the PGlite version, so this is
      // not expected): nothing was stored in it yet, so make the database with initdb instead.
      rmSync(dataDir, { recursive: true, force: true });
      await createDataDir(dataDir, false);
      return { db: await openPglite({ dataDir, worker: config.PGLITE_WORKER }), release };
    }
  } catch (err) {
    release();
    throw err;
  }
}

export function mailTransportFor(config: Config): MailTransport {
  return config.SMTP_URL ? smtpTransport(config.SMTP_URL) : fileTransport(join(config.DATA_DIR, 'outbox'));
}

export async function createRuntime(
  config: Config,
  options: { db?: Db; transport?: MailTransport; migrate?: boolean; release?: () => void } = {},
): Promise<Runtime> {
  const opened = options.db ? { db: options.db, release: options.release ?? (() => undefined) } : await openDatabase(config);
  const { db } = opened;
  let replica: Db | undefined;
  try {
    if (options.migrate !== false) await migrate(db);
    if (config.DATABASE_REPLICA_URL) replica = await openPostgres(config.DATABASE_REPLICA_URL, 10, pgTimeouts(config));
    const log = pino({ level: config.LOG_LEVEL, redact: { paths: REDACT_PATHS, censor: '[redacted]' } });
    const transport = options.transport ?? mailTransportFor(config);
    const deps: Deps = {
      config,
      db,
      reader: replica ?? db,
      clock: await createClock(db),
      secrets: await loadSecrets(db, config),
      limiters: createLimiters(config, log),
      mail: createDispatcher(db, transport, config.MAIL_FROM, log),
      scheduler: createScheduler(log),
      pageCache: config.LIST_CACHE_MB > 0 ? new PageCache(config.LIST_CACHE_MB * 1024 * 1024) : undefined,
      log,
    };
    // Repositories seal and open health data with the key ring bound to the handles (src/lib/sealed.ts);
    // rows left in plaintext from before encryption at rest are sealed now (src/lib/sealed-columns.repository.ts).
    bindDataKeys(db, deps.secrets.documentKeys);
    if (replica) bindDataKeys(replica, deps.secrets.documentKeys);
    const sealed = await sealPlaintextRows(db);
    if (Object.keys(sealed).length) log.info({ sealed }, 'rows written before encryption at rest sealed');
    // Attachments kept on this process's disk before they moved to the file store (docs/messages.md,
    // "Storage"); the module is loaded only when there are some, to keep the start lean.
    if (existsSync(join(config.DATA_DIR, 'uploads'))) {
      const { importDiskUploads } = await import('./modules/messages/index.ts');
      await importDiskUploads(deps);
    }
    return {
      deps,
      async close() {
        await deps.mail.stop();
        await deps.scheduler.stop();
        await deps.limiters.close();
        transport.close?.();
        await replica?.close();
        await db.close();
        opened.release();
      },
    };
  } catch (err) {
    await replica?.close().catch(() => undefined);
    await db.close().catch(() => undefined);
    opened.release();
    throw err;
  }
}
