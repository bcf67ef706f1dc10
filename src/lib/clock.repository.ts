// SQL of the clock, owner of app_settings (docs/architecture.md).
import type { Queryable } from '../db/index.ts';
import { sql, sqlOf } from '../db/kysely.ts';

const KEY = 'clock_offset_ms';

/** The persisted test-clock offset in milliseconds (0 when never set). */
export async function readClockOffset(q: Queryable): Promise<number> {
  const row = await sqlOf(q).selectFrom('app_settings').select('value').where('key', '=', KEY).executeTakeFirst();
  const value = row ? Number(row.value) : 0;
  return Number.isFinite(value) ? value : 0;
}

export async function writeClockOffset(q: Queryable, offsetMs: number): Promise<void> {
  await sqlOf(q)
    .insertInto('app_settings')
    .values({ key: KEY, value: JSON.stringify(offsetMs), updated_at: sql<Date>`now()` })
    .onConflict((oc) => oc.column('key').doUpdateSet((eb) => ({ value: eb.ref('excluded.value'), updated_at: sql<Date>`now()` })))
    .execute();
}
