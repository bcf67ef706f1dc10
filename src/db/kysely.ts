// The typed query layer: Kysely's query builder and result types over the project's own Queryable
// (PGlite or node-postgres, in or out of a transaction), so one statement runs unchanged on both
// drivers and every row has the column types generated from the migrations (src/db/schema.ts).
//
//   const user = await sqlOf(q).selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
//
// Transactions stay with Db.tx (one connection, exclusive on PGlite): call sqlOf(tx) inside it.
// Kysely's own db.transaction() is refused, so there is one way to open a transaction.
import {
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type CompiledQuery,
  type DatabaseConnection,
  type Driver,
  type QueryResult,
} from 'kysely';
import type { Queryable } from './index.ts';
import type { Database } from './schema.ts';

export type { Database } from './schema.ts';
export { sql } from 'kysely';
export type Sql = Kysely<Database>;

class QueryableConnection implements DatabaseConnection {
  constructor(private readonly q: Queryable) {}

  async executeQuery<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
    const { rows, rowCount } = await this.q.execute(compiled.sql, compiled.parameters);
    const kind = compiled.query.kind;
    const isWrite =
      kind === 'InsertQueryNode' || kind === 'UpdateQueryNode' || kind === 'DeleteQueryNode' || kind === 'MergeQueryNode';
    return { rows: rows as R[], ...(isWrite ? { numAffectedRows: BigInt(rowCount) } : {}) };
  }

  streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('streaming queries are not supported: page with limit/offset instead');
  }
}

class QueryableDriver implements Driver {
  private readonly connection: QueryableConnection;
  constructor(q: Queryable) {
    this.connection = new QueryableConnection(q);
  }
  init() {
    return Promise.resolve();
  }
  acquireConnection() {
    return Promise.resolve(this.connection);
  }
  beginTransaction(): Promise<void> {
    return Promise.reject(new Error('open transactions with Db.tx, then use sqlOf(tx)'));
  }
  commitTransaction(): Promise<void> {
    return Promise.reject(new Error('open transactions with Db.tx, then use sqlOf(tx)'));
  }
  rollbackTransaction(): Promise<void> {
    return Promise.reject(new Error('open transactions with Db.tx, then use sqlOf(tx)'));
  }
  releaseConnection() {
    return Promise.resolve();
  }
  destroy() {
    return Promise.resolve();
  }
}

function build(q: Queryable): Sql {
  return new Kysely<Database>({
    dialect: {
      createAdapter: () => new PostgresAdapter(),
      createDriver: () => new QueryableDriver(q),
      createIntrospector: (db) => new PostgresIntrospector(db),
      createQueryCompiler: () => new PostgresQueryCompiler(),
    },
  });
}

// One builder per Queryable: the pool's lives as long as the process, a transaction's as long as
// the transaction (the WeakMap lets it go with the Queryable).
const cache = new WeakMap<Queryable, Sql>();

/** The typed query builder bound to a connection or a transaction. */
export function sqlOf(q: Queryable): Sql {
  let k = cache.get(q);
  if (!k) {
    k = build(q);
    cache.set(q, k);
  }
  return k;
}
