// Applies the SQL files of src/db/migrations in name order, once each, in one transaction guarded by
// an advisory lock so that several processes starting together never apply a file twice.
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

export async function migrate(db: Db, dir = MIGRATIONS_DIR): Promise<string[]> {
  return db.tx(async (q) => {
    // Migrations (and the wait for another process's) may run longer than DB_STATEMENT_TIMEOUT_MS.
    await q.query('set local statement_timeout = 0');
    await q.query('select pg_advisory_xact_lock($1)', [STARTUP_LOCK_KEY]);
    await q.query(`create table if not exists schema_migrations (
      name text primary key,
      applied_at timestamptz not null default now()
    )`);
    const done = new Set((await q.query<{ name: string }>('select name from schema_migrations')).map((r) => r.name));
    const applied: string[] = [];
    for (const file of migrationFiles(dir)) {
      if (done.has(file)) continue;
      // Statements are separated by a line holding only `--> statement-breakpoint` or by `;` at a
      // line end; each runs on its own so both drivers accept the file inside the transaction.
      for (const stmt of splitStatements(readFileSync(join(dir, file), 'utf8'))) await q.query(stmt);
      await q.query('insert into schema_migrations (name) values ($1)', [file]);
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
