// Backups of the embedded database (docs/operations.md, "Backups and restores"): a stop-and-copy
// that the DATA_DIR lock makes safe. `backup` takes the lock (so it refuses while a server holds the
// database), checkpoints, and writes PGlite's own dump of the data directory (a gzipped tar) to a
// file, atomically. `restore` loads a dump into a scratch directory beside the database, checks that
// it opens and holds this service's tables, and only then puts it in place; the database it replaces
// is kept beside it. PostgreSQL is backed up with its own tools (pg_dump / pg_restore).
import { existsSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { openPglite, type Db } from './index.ts';
import { lockDataDir } from './lock.ts';

/** A backup or restore that cannot be done as asked (the message says why and what to do). */
export class BackupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BackupError';
  }
}

type Dumpable = Db & { dump(compression?: 'none' | 'gzip' | 'auto'): Promise<Blob> };

const databaseDir = (dataDir: string) => join(dataDir, 'pglite');

export async function backupEmbedded(dataDir: string, to: string): Promise<{ file: string; bytes: number }> {
  const release = lockDataDir(dataDir);
  try {
    const dir = databaseDir(dataDir);
    if (!existsSync(join(dir, 'PG_VERSION'))) throw new BackupError(`There is no embedded database in ${dataDir} to back up.`);
    const file = resolve(to);
    if (file.startsWith(`${resolve(dir)}/`)) throw new BackupError('The backup file cannot be inside the database directory.');
    if (!existsSync(dirname(file))) throw new BackupError(`The directory ${dirname(file)} does not exist.`);
    const db = (await openPglite({ dataDir: dir })) as Dumpable;
    let data: Buffer;
    try {
      // Every change in the data files, so the copy needs no WAL replay when it is restored.
      await db.exec('checkpoint');
      data = Buffer.from(await (await db.dump('gzip')).arrayBuffer());
    } finally {
      await db.close();
    }
    // Written beside the target and renamed: a crash leaves the previous backup, never half a file.
    const tmp = `${file}.tmp-${process.pid}`;
    writeFileSync(tmp, data, { mode: 0o600 });
    renameSync(tmp, file);
    return { file, bytes: statSync(file).size };
  } finally {
    release();
  }
}

export async function restoreEmbedded(dataDir: string, from: string, options: { force?: boolean } = {}): Promise<{ replaced: string | undefined; migrations: number }> {
  const file = resolve(from);
  if (!existsSync(file)) throw new BackupError(`There is no backup file ${file}.`);
  const release = lockDataDir(dataDir);
  const dir = databaseDir(dataDir);
  const scratch = `${dir}.restore-${process.pid}`;
  try {
    const exists = existsSync(dir);
    if (exists && !options.force) {
      throw new BackupError(`${dataDir} holds a database already: pass --force to replace it (it is kept beside it as pglite.before-restore-<time>).`);
    }
    rmSync(scratch, { recursive: true, force: true });
    let migrations: number;
    try {
      const db = await openPglite({ dataDir: scratch, loadDataDir: new Blob([readFileSync(file)]) });
      try {
        migrations = (await db.query<{ n: number }>('select count(*)::int as n from schema_migrations'))[0]?.n ?? 0;
        await db.exec('checkpoint');
      } finally {
        await db.close();
      }
    } catch (err) {
      if (err instanceof BackupError) throw err;
      throw new BackupError(`${file} is not a backup of this service's embedded database (${err instanceof Error ? err.message.split('\n')[0] : String(err)}).`);
    }
    let replaced: string | undefined;
    if (exists) {
      replaced = `${dir}.before-restore-${new Date().toISOString().replace(/[:.]/g, '-')}`;
      renameSync(dir, replaced);
    }
    renameSync(scratch, dir);
    return { replaced, migrations };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
    release();
  }
}
