// Named prepared statements on the embedded database (the embedded list against PostgreSQL).
//
// PGlite's `query()` sends Parse, Describe, Bind, Describe, Execute and Sync as six separate calls
// into WASM, and the backend parses and plans the statement on every call: on the list statement
// that was ~0.7 ms of its ~2.5 ms, and 0.2 ms of the session check's 0.26 ms. Like the PostgreSQL path
// (`statementName` in ./index.ts), a statement with parameters is parsed once per database under a
// name and from then on only bound and executed, in one call into WASM. Parameterless statements
// (migrations, scripts, DDL) keep PGlite's own path, so no DDL sits in the statement cache.
//
// The locking is PGlite's own, as `query()` and `Transaction.query()` take it: outside a
// transaction a statement holds the transaction mutex (so it waits for an open transaction to end)
// and the query mutex; inside one, only the query mutex, which the transaction's own statements share.
// Parameters are serialised and rows parsed by the database's own serializers and parsers, exactly as
// `query()` does it.
import { parse, protocol, type PGlite, type Results, type Transaction } from '@electric-sql/pglite';

interface Prepared {
  name: string;
  /** The parameters' type oids, as the backend inferred them at Parse (for the serializers). */
  paramTypes: number[];
}

/** Statement texts past this many are sent unnamed (SQL built at run time must not grow the cache without bound). */
export const MAX_PREPARED_STATEMENTS = 2000;

// SQLSTATEs after which a named statement is dropped from the cache: it does not exist (26000), or the
// tables under it changed its result type (0A000, "cached plan must not change result type").
const STALE_STATEMENT = new Set(['26000', '0A000']);

/**
 * Whether this PGlite offers what the named path uses. `_runExclusiveTransaction` and `_checkReady` are
 * underscore methods (declared in PGlite 0.5's types; the locking `query()` itself takes): a version
 * that renames them would otherwise fail every statement with parameters. Without them every
 * statement takes PGlite's own path: slower, never broken. test/pglite-prepared.test.ts fails on such
 * an upgrade (its statements go unnamed), so it is noticed.
 */
function offersNamedPath(db: PGlite): boolean {
  const methods = db as unknown as Record<string, unknown>;
  return ['execProtocol', 'runExclusive', '_runExclusiveTransaction', '_checkReady'].every((m) => typeof methods[m] === 'function');
}

class PreparedStatements {
  private readonly statements = new Map<string, Prepared>();
  private next = 1;
  private readonly named: boolean;

  constructor(
    private readonly db: PGlite,
    private readonly max: number,
  ) {
    this.named = offersNamedPath(db);
  }

  /** Runs `sql` with `params` (outside a transaction when `tx` is undefined). */
  async query<T>(sql: string, params: unknown[], tx?: Transaction): Promise<Results<T>> {
    if (!this.named || params.length === 0 || (!this.statements.has(sql) && this.statements.size >= this.max)) {
      return tx ? tx.query<T>(sql, params) : this.db.query<T>(sql, params);
    }
    if (tx) {
      if (tx.closed) throw new Error('Transaction is closed');
      return this.db.runExclusive(() => this.run<T>(sql, params, true));
    }
    await this.db._checkReady();
    return this.db._runExclusiveTransaction(() => this.db.runExclusive(() => this.run<T>(sql, params, false)));
  }

  /** Number of named statements (tests). */
  get size(): number {
    return this.statements.size;
  }

  private async run<T>(sql: string, params: unknown[], inTransaction: boolean): Promise<Results<T>> {
    const prepared = this.statements.get(sql) ?? (await this.prepare(sql));
    try {
      return await this.execute<T>(prepared, params, inTransaction);
    } catch (err) {
      if (!STALE_STATEMENT.has(codeOf(err))) throw err;
      this.statements.delete(sql);
      // Nothing ran (the plan is checked before execution). Outside a transaction the statement is
      // prepared again and sent once more; inside one the error has aborted the transaction.
      if (inTransaction) throw err;
      return this.execute<T>(await this.prepare(sql), params, inTransaction);
    }
  }

  private async prepare(sql: string): Promise<Prepared> {
    const name = `pts_${this.next++}`;
    const s = protocol.serialize;
    const { messages } = await this.db.execProtocol(concat([s.parse({ name, text: sql }), s.describe({ type: 'S', name }), s.sync()]), { syncToFs: false });
    const description = messages.find((m): m is InstanceType<typeof protocol.messages.ParameterDescriptionMessage> => m.name === 'parameterDescription');
    const prepared = { name, paramTypes: description?.dataTypeIDs ?? [] };
    this.statements.set(sql, prepared);
    return prepared;
  }

  private async execute<T>(prepared: Prepared, params: unknown[], inTransaction: boolean): Promise<Results<T>> {
    const s = protocol.serialize;
    const values = params.map((value, i) => {
      if (value === null || value === undefined) return null;
      const serializer = this.db.serializers[prepared.paramTypes[i] ?? 0];
      // As query() does: a type without a serializer is sent as its toString().
      return serializer ? serializer(value) : (value as { toString(): string }).toString();
    });
    const { messages } = await this.db.execProtocol(concat([s.bind({ statement: prepared.name, values }), s.describe({ type: 'P' }), s.execute({}), s.sync()]), { syncToFs: false });
    // As query() does after a statement outside a transaction (a no-op on the Node file system).
    if (!inTransaction) await this.db.syncToFs();
    const [result] = parse.parseResults(messages, this.db.parsers);
    return result as Results<T>;
  }
}

function codeOf(err: unknown): string {
  return typeof err === 'object' && err !== null && typeof (err as { code?: unknown }).code === 'string' ? (err as { code: string }).code : '';
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

const byDatabase = new WeakMap<PGlite, PreparedStatements>();

/** The named-statement runner of one PGlite instance (one per instance: names are per backend). */
export function preparedStatements(db: PGlite, max = MAX_PREPARED_STATEMENTS): PreparedStatements {
  let statements = byDatabase.get(db);
  if (!statements) {
    statements = new PreparedStatements(db, max);
    byDatabase.set(db, statements);
  }
  return statements;
}
