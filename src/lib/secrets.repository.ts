// SQL of the generated keys, owner of app_secrets (docs/architecture.md).
import type { Queryable } from '../db/index.ts';
import { sqlOf } from '../db/kysely.ts';

/**
 * The stored value of `name`, stored first as `candidate` when absent. Several processes starting
 * at once all read the one value that won the insert.
 */
export async function getOrCreateSecret(q: Queryable, name: string, candidate: string): Promise<string> {
  await sqlOf(q).insertInto('app_secrets').values({ name, value: candidate }).onConflict((oc) => oc.column('name').doNothing()).execute();
  const row = await sqlOf(q).selectFrom('app_secrets').select('value').where('name', '=', name).executeTakeFirstOrThrow();
  return row.value;
}
