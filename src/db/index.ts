// One small database interface over two drivers: embedded PGlite (Postgres in WASM, persisted under
// DATA_DIR) and a node-postgres pool (DATABASE_URL). Repositories write plain parameterised SQL
// against `Queryable`, so the same statements run on both.
import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { PGlite, types as pgliteTypes } from '@electric-sql/pglite';
import type pg from 'pg';

export type Row = Record<string, unknown>;

export interface Queryable {
  query<T = Row>(sql: string, params?: unknown[]): Promise<T[]>;
  /** Rows and the number of rows a write touched (the typed layer in kysely.ts runs on this). */
  execute(sql: string, params?: readonly unknown[]): Promise<{ rows: unknown[]; rowCount: number }>;
}

export interface Db extends Queryable {
  readonly kind: 'pglite' | 'pg';
  /** Runs fn in one transaction; rolls back when it throws. */
  tx<T>(fn: (q: Queryable) => Promise<T>): Promise<T>;
  /** Runs a multi-statement script (migrations). */
  exec(sql: string): Promise<void>;
  close(): Promise<void>;
  /** Connection pool use (node-postgres only; /metrics reads it). */
  poolStats?(): { total: number; idle: number; waiting: number; max: number };
}

/**
 * A failed statement keeps its SQLSTATE code and constraint (callers branch on them) and gains a
 * short `statement` label; the bound parameters and the server's detail (which quote values: names,
 * message text, refund reasons) are dropped so that no log line can carry them.
 */
export function scrubDbError(err: unknown, sql: string): unknown {
  if (typeof err !== 'object' || err === null) return err;
  const e = err as Record<string, unknown>;
  for (const key of ['params', 'query', 'detail', 'where', 'internalQuery', 'hint']) delete e[key];
  e.statement = sql.replace(/\s+/g, ' ').trim().slice(0, 80);
  return err;
}

// Dates stay `YYYY-MM-DD` strings (a JS Date would shift them by the time zone); numerics and
// 64-bit integers become numbers (counts and money fit comfortably in a double).
const asString = (v: string) => v;
const asNumber = (v: string) => Number(v);

export async function openPglite(options: { dataDir?: string; loadDataDir?: Blob } = {}): Promise<Db> {
  if (options.dataDir) mkdirSync(options.dataDir, { recursive: true });
  const db = new PGlite({
    dataDir: options.dataDir,
    // 32 MB of shared buffers instead of 128: the embedded database serves one process, the OS
    // caches its files anyway, and the buffers are resident memory (RSS ~100 MB lower). Passed on
    // the command line, so postgresql.conf in DATA_DIR stays as initdb wrote it.
    startParams: [...PGlite.defaultStartParams, '-c', 'shared_buffers=32MB'],
    loadDataDir: options.loadDataDir,
    parsers: {
      [pgliteTypes.DATE]: asString,
      [pgliteTypes.NUMERIC]: asNumber,
      [pgliteTypes.INT8]: asNumber,
    },
  });
  await db.waitReady;
  const wrap = (q: { query: PGlite['query'] }): Queryable => ({
    async query<T = Row>(sql: string, params: unknown[] = []) {
      try {
        return (await q.query<T>(sql, params)).rows;
      } catch (err) {
        throw scrubDbError(err, sql);
      }
    },
    async execute(sql: string, params: readonly unknown[] = []) {
      try {
        const result = await q.query(sql, params as unknown[]);
        return { rows: result.rows, rowCount: result.affectedRows ?? 0 };
      } catch (err) {
        throw scrubDbError(err, sql);
      }
    },
  });
  return {
    kind: 'pglite',
    ...wrap(db),
    // PGlite has one connection: its transactions are exclusive, so they also serialise.
    tx: (fn) => db.transaction((t) => fn(wrap(t))),
    exec: async (sql) => {
      await db.exec(sql);
    },
    close: () => db.close(),
    // Exposed for the test harness, which clones one migrated instance per test file.
    dump: () => db.dumpDataDir('none'),
  } as Db & { dump: () => Promise<Blob> };
}

const typeParsers = (types: typeof pg.types): pg.CustomTypesConfig => ({
  getTypeParser: ((oid: number, format?: 'text' | 'binary') => {
    if (oid === 1082) return asString;
    if (oid === 1700 || oid === 20) return asNumber;
    // Results are always requested as text; other types keep node-postgres's own parsers.
    const parser: unknown = types.getTypeParser(oid, format);
    return parser as (value: string) => unknown;
  }) as pg.CustomTypesConfig['getTypeParser'],
});

// Named prepared statements (node-postgres): a statement sent with a name is parsed and planned once
// per connection and then only bound and executed, instead of being re-parsed on every call. The
// name is a hash of the SQL text, so the same text always maps to the same name. Only statements
// with parameters are named: parameterless ones are migrations, scripts and other one-offs (DDL
// must not sit in a connection's cache across schema changes). The map is capped so that SQL built
// at run time (dynamic column lists) cannot grow it, or the server's per-connection cache, without
// bound; past the cap statements simply go unnamed.
const STATEMENT_NAMES = new Map<string, string>();
const MAX_NAMED_STATEMENTS = 2000;

export function statementName(sql: string): string | undefined {
  let name = STATEMENT_NAMES.get(sql);
  if (name === undefined && STATEMENT_NAMES.size < MAX_NAMED_STATEMENTS) {
    name = `s_${createHash('sha1').update(sql).digest('base64url')}`;
    STATEMENT_NAMES.set(sql, name);
  }
  return name;
}

function pgQuery(sql: string, params: unknown[]): string | pg.QueryConfig {
  const name = params.length > 0 ? statementName(sql) : undefined;
  return name ? { name, text: sql, values: params } : sql;
}

/** One statement on a pool or a client: named when it has parameters, errors scrubbed. */
async function runPg(on: pg.Pool | pg.PoolClient, sql: string, params: readonly unknown[]) {
  try {
    const config = pgQuery(sql, params as unknown[]);
    const result = typeof config === 'string' ? await on.query(config) : await on.query(config);
    return { rows: result.rows as unknown[], rowCount: result.rowCount ?? 0 };
  } catch (err) {
    throw scrubDbError(err, sql);
  }
}

function pgQueryable(on: pg.Pool | pg.PoolClient): Queryable {
  return {
    async query<T = Row>(sql: string, params: unknown[] = []) {
      return (await runPg(on, sql, params)).rows as T[];
    },
    execute: (sql: string, params: readonly unknown[] = []) => runPg(on, sql, params),
  };
}

export async function openPostgres(url: string, max = 10): Promise<Db> {
  // node-postgres is loaded only with DATABASE_URL: the embedded database's start does not pay for it.
  const { default: pg } = await import('pg');
  const pool = new pg.Pool({ connectionString: url, max, types: typeParsers(pg.types) });
  pool.on('error', () => {
    /* an idle client died; the pool replaces it */
  });
  await pool.query('select 1');
  return {
    kind: 'pg',
    ...pgQueryable(pool),
    async tx(fn) {
      const client = await pool.connect();
      try {
        await client.query('begin');
        const result = await fn(pgQueryable(client));
        await client.query('commit');
        return result;
      } catch (err) {
        await client.query('rollback').catch(() => undefined);
        throw err;
      } finally {
        client.release();
      }
    },
    exec: async (sql) => {
      await pool.query(sql);
    },
    close: () => pool.end(),
    poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount, max }),
  };
}

/** Postgres error code of a unique violation: callers turn it into a domain outcome. */
export function isUniqueViolation(err: unknown, constraint?: string): boolean {
  if (typeof err !== 'object' || err === null) return false;
  const e = err as Record<string, unknown>;
  return e.code === '23505' && (constraint === undefined || e.constraint === constraint || String(e.message).includes(constraint));
}
