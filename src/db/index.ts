// One small database interface over two drivers: embedded PGlite (Postgres in WASM, persisted under
// DATA_DIR) and a node-postgres pool (DATABASE_URL). Repositories write plain parameterised SQL
// against `Queryable`, so the same statements run on both.
import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { PGlite, types as pgliteTypes, type PGliteOptions, type Transaction } from '@electric-sql/pglite';
import { preparedStatements } from './pglite-prepared.ts';
import type pg from 'pg';
import { writeCounter } from './until-write.ts';

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
  /**
   * The embedded database only (this process is its one writer): a number that changes before any
   * statement that may write is sent, so a read can be kept until the next write (src/db/until-write.ts).
   */
  writeEpoch?(): number;
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

/** The PGlite constructor options, the same in this thread and in the worker (src/db/pglite-worker-entry.ts). */
export function pgliteOptions(options: { dataDir?: string; loadDataDir?: Blob }): PGliteOptions {
  return {
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
  };
}

export interface PgliteOpenOptions {
  dataDir?: string;
  loadDataDir?: Blob;
  /**
   * Run PGlite in a worker thread (src/db/pglite-worker.ts) so that its statements, which are
   * synchronous WASM work, do not stall this thread's HTTP handling. The server follows
   * PGLITE_WORKER (default on); scripts, backups and the test harness open it in-process unless asked.
   */
  worker?: boolean;
}

export async function openPglite(options: PgliteOpenOptions = {}): Promise<Db> {
  if (options.dataDir) mkdirSync(options.dataDir, { recursive: true });
  if (options.worker) {
    // Loaded only when used: an in-process open (CLI backups, scripts) does not pay for it.
    const { openPgliteWorker } = await import('./pglite-worker.ts');
    return openPgliteWorker(options);
  }
  const db = new PGlite(pgliteOptions(options));
  await db.waitReady;
  // Writes are counted as they finish (src/db/until-write.ts).
  const writes = writeCounter();
  const affected = (result: { affectedRows?: number }) => result.affectedRows;
  // Statements with parameters go as named prepared statements (./pglite-prepared.ts).
  const statements = preparedStatements(db);
  const wrap = (tx?: Transaction): Queryable => ({
    async query<T = Row>(sql: string, params: unknown[] = []) {
      try {
        return (await writes.around(sql, () => statements.query<T>(sql, params, tx), affected)).rows;
      } catch (err) {
        throw scrubDbError(err, sql);
      }
    },
    async execute(sql: string, params: readonly unknown[] = []) {
      try {
        const result = await writes.around(sql, () => statements.query(sql, params as unknown[], tx), affected);
        return { rows: result.rows, rowCount: result.affectedRows ?? 0 };
      } catch (err) {
        throw scrubDbError(err, sql);
      }
    },
  });
  return {
    kind: 'pglite',
    ...wrap(),
    // PGlite has one connection: its transactions are exclusive, so they also serialise.
    tx: (fn) => db.transaction((t) => fn(wrap(t))),
    exec: async (sql) => {
      await writes.around(sql, () => db.exec(sql));
    },
    writeEpoch: writes.writeEpoch,
    close: () => db.close(),
    // Exposed for the test harness, which clones one migrated instance per test file, and for
    // the embedded database's backups (db/backup.ts).
    dump: (compression: 'none' | 'gzip' | 'auto' = 'none') => db.dumpDataDir(compression),
  } as DumpableDb;
}

/** The embedded database with its data-directory dump (test harness clones, db/backup.ts). */
export type DumpableDb = Db & { dump(compression?: 'none' | 'gzip' | 'auto'): Promise<Blob> };

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

/**
 * The node-postgres query for one statement. A statement with parameters carries them whether it has
 * a name or not (past the cap, or with names off); only a parameterless one goes as bare text.
 */
export function pgQuery(sql: string, params: unknown[], name: string | undefined): string | pg.QueryConfig {
  if (name) return { name, text: sql, values: params };
  return params.length > 0 ? { text: sql, values: params } : sql;
}

/** One statement on a pool or a client: named when it has parameters (unless `named` is off), errors scrubbed. */
async function runPg(on: pg.Pool | pg.PoolClient, sql: string, params: readonly unknown[], named: boolean) {
  try {
    const config = pgQuery(sql, params as unknown[], named && params.length > 0 ? statementName(sql) : undefined);
    const result = typeof config === 'string' ? await on.query(config) : await on.query(config);
    return { rows: result.rows as unknown[], rowCount: result.rowCount ?? 0 };
  } catch (err) {
    throw scrubDbError(err, sql);
  }
}

function pgQueryable(on: pg.Pool | pg.PoolClient, named: boolean): Queryable {
  return {
    async query<T = Row>(sql: string, params: unknown[] = []) {
      return (await runPg(on, sql, params, named)).rows as T[];
    },
    execute: (sql: string, params: readonly unknown[] = []) => runPg(on, sql, params, named),
  };
}

/** How long a connection, a statement and an open transaction may wait (docs/operations.md). */
export interface PgTimeouts {
  /** Opening a connection, or waiting for a free one in the pool (ms). */
  connectMs: number;
  /** `statement_timeout`: the server cancels a statement running longer (ms). */
  statementMs: number;
  /** `idle_in_transaction_session_timeout`: the server ends a session idle inside a transaction (ms). */
  idleInTransactionMs: number;
}

export const DEFAULT_PG_TIMEOUTS: PgTimeouts = { connectMs: 3000, statementMs: 15_000, idleInTransactionMs: 30_000 };

/**
 * node-postgres pool settings for these timeouts. `query_timeout` is the client-side guard for a
 * server that went silent (a cut network never answers, so `statement_timeout` never fires): a
 * little longer than the server's own limit so that the server's answer (57014) normally wins.
 * TCP keepalive lets the kernel notice a dead peer on idle connections.
 */
export function pgPoolSettings(t: PgTimeouts) {
  return {
    connectionTimeoutMillis: t.connectMs,
    statement_timeout: t.statementMs,
    idle_in_transaction_session_timeout: t.idleInTransactionMs,
    query_timeout: t.statementMs + 5000,
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
  };
}

// A connection that dies emits 'error' on its client. The pool listens on idle clients only; a
// client checked out for a transaction (or by pool.query between its statements) would have no
// listener, and an unhandled 'error' event ends the process. Every client the pool opens gets this
// listener for its whole life: the failure itself reaches the caller through the rejected query,
// and the pool drops the client when it is released with the error.
const ignoreClientError = () => undefined;
export function guardPool(pool: pg.Pool): void {
  pool.on('connect', (client) => client.on('error', ignoreClientError));
  pool.on('error', () => {
    /* an idle client died; the pool replaces it */
  });
}

/**
 * `namedStatements: false` sends every statement unnamed, parsed and planned by the server on each
 * call, as node-postgres does by default. The service never sets it; the bench's bare floor does
 * (bench/floor.ts, FLOOR_UNNAMED=1), to be the unnamed floor of docs/performance.md.
 */
export async function openPostgres(url: string, max = 10, timeouts: PgTimeouts = DEFAULT_PG_TIMEOUTS, { namedStatements = true } = {}): Promise<Db> {
  // node-postgres is loaded only with DATABASE_URL: the embedded database's start does not pay for it.
  const { default: pg } = await import('pg');
  const pool = new pg.Pool({ connectionString: url, max, types: typeParsers(pg.types), ...pgPoolSettings(timeouts) });
  guardPool(pool);
  await pool.query('select 1');
  return {
    kind: 'pg',
    ...pgQueryable(pool, namedStatements),
    async tx(fn) {
      const client = await pool.connect();
      let failure: unknown;
      try {
        await client.query('begin');
        const result = await fn(pgQueryable(client, namedStatements));
        await client.query('commit');
        return result;
      } catch (err) {
        failure = err;
        await client.query('rollback').catch(() => undefined);
        throw err;
      } finally {
        // A client whose connection failed is discarded rather than handed to the next caller.
        client.release(failure !== undefined && isDatabaseUnavailable(failure) ? (failure as Error) : undefined);
      }
    },
    exec: async (sql) => {
      await pool.query(sql);
    },
    close: () => pool.end(),
    poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount, max }),
  };
}

// Failures that say "the database cannot be reached right now", not "this request is wrong": the
// HTTP layer answers them 503 with Retry-After (src/http/errors.ts), never 500.
const UNAVAILABLE_MESSAGES = [
  'Connection terminated',
  'timeout exceeded when trying to connect',
  'Client has encountered a connection error and is not queryable',
  'Client was closed and is not queryable',
  'Query read timeout',
  'Cannot use a pool after calling end on the pool',
];
const UNAVAILABLE_ERRNO = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN', 'ECONNABORTED']);
// SQLSTATE: class 08 (connection exception); 57P01-57P03 (administrator/crash shutdown, cannot
// connect now); 53300 too many connections; 57014 statement timeout (query_canceled); 25P03 idle
// in transaction timeout.
const UNAVAILABLE_SQLSTATE = new Set(['57P01', '57P02', '57P03', '53300', '57014', '25P03']);

export function isDatabaseUnavailable(err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false;
  const e = err as Record<string, unknown>;
  const code = typeof e.code === 'string' ? e.code : '';
  if (UNAVAILABLE_ERRNO.has(code) || UNAVAILABLE_SQLSTATE.has(code) || /^08[0-9A-Z]{3}$/.test(code)) return true;
  const message = typeof e.message === 'string' ? e.message : '';
  if (UNAVAILABLE_MESSAGES.some((m) => message.startsWith(m))) return true;
  // An AggregateError (a host with several addresses, each refused) or a wrapped cause.
  if (Array.isArray(e.errors) && e.errors.some(isDatabaseUnavailable)) return true;
  return e.cause !== undefined && e.cause !== err && isDatabaseUnavailable(e.cause);
}

/** Postgres error code of a unique violation: callers turn it into a domain outcome. */
export function isUniqueViolation(err: unknown, constraint?: string): boolean {
  if (typeof err !== 'object' || err === null) return false;
  const e = err as Record<string, unknown>;
  return e.code === '23505' && (constraint === undefined || e.constraint === constraint || String(e.message).includes(constraint));
}
