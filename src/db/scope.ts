// Account scoping by construction: the one way into a table whose rows belong to one
// account. `forAccount(q, userId)` hands out Kysely builders already filtered on the table's owner
// column (`user_id`), in the spirit of Medplum's addSecurityFilters: a repository function cannot
// forget the filter, because it never writes it.
//
//   forAccount(q, userId).selectFrom('prescriptions as r').selectAll('r').where('r.id', '=', id)
//   forAccount(q, userId).updateTable('orders').set({ ... }).where('id', '=', id)
//   forAccount(q, userId).deleteFrom('journal_notes').where('id', '=', id)
//
// The deliberately unscoped queries (the clinician's queue, the scheduler's sweeps, the back office,
// the pharmacy desk, the payment provider's webhooks, the access log's owner lookup for any staff
// role, the operator's walks over stored files, a share link found by its unguessable address for
// whoever holds the link) are in functions named `...ForClinician`, `...ForScheduler`,
// `...ForBackoffice`, `...ForPharmacy`, `...ForProvider`, `...ForStaff`, `...ForOperator` or
// `...ForLinkHolder`; test/structure.test.ts fails on any other query of an account table that does not
// start here (or, for raw SQL, at `accountSql` below).
import { sql } from 'kysely';
import type { Queryable } from './index.ts';
import { sqlOf, type Database, type Sql } from './kysely.ts';

/** The tables whose rows belong to one account through their `user_id` column. */
export type AccountTable = { [T in keyof Database]: Database[T] extends { user_id: string } ? T : never }[keyof Database];
type AccountTableExpression = AccountTable | `${AccountTable} as ${string}`;

/** The name a statement refers to the table by: its alias, else the table. */
function nameOf(table: string): string {
  const m = /\s+as\s+(\w+)\s*$/.exec(table);
  return m?.[1] ?? table.trim();
}

// The builder types Kysely gives for the same table expression (its parser types are not exported).
declare const _typed: Sql;
type SelectOf<TE extends AccountTableExpression> = ReturnType<typeof _typed.selectFrom<TE>>;
type UpdateOf<TE extends AccountTableExpression> = ReturnType<typeof _typed.updateTable<TE>>;
type DeleteOf<TE extends AccountTableExpression> = ReturnType<typeof _typed.deleteFrom<TE>>;

/**
 * Builders over the account's own rows: each statement starts filtered on `<table>.user_id = userId`.
 * Several ids (the rows of a page already read, e.g. a clinician's queue) filter on `= any(ids)`, so
 * their related rows are read only from the accounts those rows belong to.
 */
export function forAccount(q: Queryable, userId: string | readonly string[]) {
  const db = sqlOf(q);
  const owners = typeof userId === 'string' ? userId : sql<string>`any(${userId}::uuid[])`;
  return {
    selectFrom<TE extends AccountTableExpression>(from: TE): SelectOf<TE> {
      const owner = sql.ref(`${nameOf(from)}.user_id`);
      return db.selectFrom(from as AccountTable).where(owner, '=', owners) as unknown as SelectOf<TE>;
    },
    updateTable<TE extends AccountTableExpression>(table: TE): UpdateOf<TE> {
      const owner = sql.ref(`${nameOf(table)}.user_id`);
      return db.updateTable(table as AccountTable).where(owner, '=', owners) as unknown as UpdateOf<TE>;
    },
    deleteFrom<TE extends AccountTableExpression>(table: TE): DeleteOf<TE> {
      const owner = sql.ref(`${nameOf(table)}.user_id`);
      return db.deleteFrom(table as AccountTable).where(owner, '=', owners) as unknown as DeleteOf<TE>;
    },
  };
}

// Raw SQL: the statements that stay hand-written (the consultations list, one statement
// on the hot path; recursive, window and insert-select statements) are built by `accountSql`. The
// builder receives the owner's placeholder and must use it: the owner is always bound as `$1`, and a
// statement that does not refer to it, or writes `$1` by hand (a value the helper did not bind), is
// refused when it is built (at module load), so a filter cannot be forgotten or pointed elsewhere.
//
//   const ACTIVE = accountSql((owner) => `select 1 from consultations where user_id = ${owner} and status = $2`);
//   await ACTIVE.query(q, userId, ['approved']);
//
// test/structure.test.ts counts a raw literal as scoped only inside an accountSql callback (or a
// module constant used only there).

/** Stands for the owner while the statement is built; replaced by `$1`. No SQL text contains it. */
const OWNER = '\u0000owner\u0000';

/** A raw statement whose `$1` is the owner: one account's id, or several (`any(${owner}::uuid[])`). */
export interface AccountStatement {
  /** The SQL text, `$1` the owner and `$2`... the other parameters. */
  readonly text: string;
  query<T = Record<string, unknown>>(q: Queryable, owner: string | readonly string[], params?: readonly unknown[]): Promise<T[]>;
  execute(q: Queryable, owner: string | readonly string[], params?: readonly unknown[]): Promise<{ rows: unknown[]; rowCount: number }>;
}

/** Builds a raw statement filtered on its owner; throws when the text does not use `owner`. */
export function accountSql(build: (owner: string) => string): AccountStatement {
  const raw = build(OWNER);
  if (!raw.includes(OWNER)) throw new Error(`accountSql: the statement never refers to its owner: ${raw.slice(0, 80)}`);
  if (/\$1(?!\d)/.test(raw)) throw new Error(`accountSql: $1 is the owner's parameter; write \${owner}: ${raw.slice(0, 80)}`);
  const text = raw.replaceAll(OWNER, '$1');
  return {
    text,
    query: <T>(q: Queryable, owner: string | readonly string[], params: readonly unknown[] = []) => q.query<T>(text, [owner, ...params]),
    execute: (q: Queryable, owner: string | readonly string[], params: readonly unknown[] = []) => q.execute(text, [owner, ...params]),
  };
}
