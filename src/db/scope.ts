// Account scoping by construction (issue 29): the one way into a table whose rows belong to one
// account. `forAccount(q, userId)` hands out Kysely builders already filtered on the table's owner
// column (`user_id`), in the spirit of Medplum's addSecurityFilters: a repository function cannot
// forget the filter, because it never writes it.
//
//   forAccount(q, userId).selectFrom('prescriptions as r').selectAll('r').where('r.id', '=', id)
//   forAccount(q, userId).updateTable('orders').set({ ... }).where('id', '=', id)
//   forAccount(q, userId).deleteFrom('journal_notes').where('id', '=', id)
//
// The deliberately unscoped queries (the clinician's queue, the scheduler's sweeps, the back office,
// the pharmacy desk, the payment provider's webhooks) are in functions named `...ForClinician`,
// `...ForScheduler`, `...ForBackoffice`, `...ForPharmacy` or `...ForProvider`;
// test/structure.test.ts fails on any other query of an account table that does not start here.
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

/** Builders over the account's own rows: each statement starts filtered on `<table>.user_id = userId`. */
export function forAccount(q: Queryable, userId: string) {
  const db = sqlOf(q);
  return {
    selectFrom<TE extends AccountTableExpression>(from: TE): SelectOf<TE> {
      const owner = sql.ref(`${nameOf(from)}.user_id`);
      return db.selectFrom(from as AccountTable).where(owner, '=', userId) as unknown as SelectOf<TE>;
    },
    updateTable<TE extends AccountTableExpression>(table: TE): UpdateOf<TE> {
      const owner = sql.ref(`${nameOf(table)}.user_id`);
      return db.updateTable(table as AccountTable).where(owner, '=', userId) as unknown as UpdateOf<TE>;
    },
    deleteFrom<TE extends AccountTableExpression>(table: TE): DeleteOf<TE> {
      const owner = sql.ref(`${nameOf(table)}.user_id`);
      return db.deleteFrom(table as AccountTable).where(owner, '=', userId) as unknown as DeleteOf<TE>;
    },
  };
}
