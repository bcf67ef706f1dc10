// Applies the SQL files of src/db/migrations in name order, once each, in one transaction guarded by
// an advisory lock so that several processes starting together never apply a file twice. Each
// applied file's checksum is recorded; a start whose applied file differs from its record stops
// (MigrationEditedError) before changing anything.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Db } from './index.ts';
import { STARTUP_LOCK_KEY } from './startup-lock.ts';

export const MIGRATIONS_DIR = join(dirname(fileURLToPath(import.meta.url)), 'migrations');

export function migrationFiles(dir = MIGRATIONS_DIR): string[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.sql'))
    .sort();
}

/** sha256 of a migration file (line endings normalised, so a checkout with CRLF endings matches). */
export function migrationChecksum(sql: string): string {
  return createHash('sha256').update(sql.replace(/\r\n/g, '\n')).digest('hex');
}

/** An applied migration whose file changed since: the database may not be what the files say. */
export class MigrationEditedError extends Error {
  constructor(readonly files: string[]) {
    super(
      `Migration${files.length > 1 ? 's' : ''} ${files.join(', ')} changed after ${files.length > 1 ? 'they were' : 'it was'} applied (checksum in schema_migrations differs): restore the applied file and put the change in a new migration`,
    );
    this.name = 'MigrationEditedError';
  }
}

export async function migrate(db: Db, dir = MIGRATIONS_DIR): Promise<string[]> {
  return db.tx(async (q) => {
    // Migrations (and the wait for another process's) may run longer than DB_STATEMENT_TIMEOUT_MS.
    await q.query('set local statement_timeout = 0');
    await q.query('select pg_advisory_xact_lock($1)', [STARTUP_LOCK_KEY]);
    await q.query(`create table if not exists schema_migrations (
      name text primary key,
      applied_at timestamptz not null default now(),
      checksum text
    )`);
    // Databases from before checksums: the column is added, and filled below from the files as
    // they are now (trusted once, on the first start that knows checksums).
    await q.query('alter table schema_migrations add column if not exists checksum text');
    const done = new Map((await q.query<{ name: string; checksum: string | null }>('select name, checksum from schema_migrations')).map((r) => [r.name, r.checksum]));
    const files = migrationFiles(dir).map((file) => {
      const sql = readFileSync(join(dir, file), 'utf8');
      return { file, sql, checksum: migrationChecksum(sql) };
    });
    // Every applied file is checked before anything is applied: an edited one stops the start.
    const edited = files.filter((f) => done.has(f.file) && done.get(f.file) !== null && done.get(f.file) !== f.checksum).map((f) => f.file);
    if (edited.length > 0) throw new MigrationEditedError(edited);
    for (const f of files) {
      if (done.has(f.file) && done.get(f.file) === null) await q.query('update schema_migrations set checksum = $2 where name = $1', [f.file, f.checksum]);
    }
    const applied: string[] = [];
    for (const { file, sql, checksum } of files) {
      if (done.has(file)) continue;
      // Statements are separated by a line holding only `--> statement-breakpoint` or by `;` at a
      // line end; each runs on its own so both drivers accept the file inside the transaction.
      for (const stmt of splitStatements(sql)) await q.query(stmt);
      await q.query('insert into schema_migrations (name, checksum) values ($1, $2)', [file, checksum]);
      applied.push(file);
    }
    return applied;
  });
}

export function splitStatements(sql: string): string[] {
  const out: string[] = [];
  let current: string[] = [];
  let inDollar = false;
  for (const line of sql.split('\n')) {
    if (/^\s*--/.test(line) && !inDollar) continue;
    current.push(line);
    if ((line.match(/\$\$/g) ?? []).length % 2 === 1) inDollar = !inDollar;
    if (!inDollar && /;\s*$/.test(line)) {
      const stmt = current.join('\n').trim();
      if (stmt) out.push(stmt);
      current = [];
    }
  }
  const rest = current.join('\n').trim();
  if (rest) out.push(rest);
  return out;
}
