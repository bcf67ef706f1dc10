// SQL of the journal: every statement is scoped by the account id.
import type { Queryable } from '../../db/index.ts';

export type Table = 'weight_entries' | 'injections' | 'journal_notes' | 'side_effect_reports';

export async function count(q: Queryable, table: Table, userId: string): Promise<number> {
  const [row] = await q.query<{ n: number }>(`select count(*)::int as n from ${table} where user_id = $1`, [userId]);
  return row.n;
}

export async function page(q: Queryable, table: Table, userId: string, order: string, limit: number, offset: number) {
  return q.query(`select * from ${table} where user_id = $1 order by ${order} limit $2 offset $3`, [userId, limit, offset]);
}

export async function findOwn(q: Queryable, table: Table, userId: string, id: string, lock = false) {
  const [row] = await q.query(`select * from ${table} where id = $1 and user_id = $2${lock ? ' for update' : ''}`, [id, userId]);
  return row;
}

export async function insert(q: Queryable, table: Table | 'injection_plans', userId: string, columns: Record<string, unknown>) {
  const keys = Object.keys(columns);
  const [row] = await q.query(
    `insert into ${table} (user_id, ${keys.join(', ')}) values ($1, ${keys.map((_, i) => `$${i + 2}`).join(', ')}) returning *`,
    [userId, ...keys.map((k) => columns[k])],
  );
  return row;
}

export async function updateOwn(q: Queryable, table: Table | 'injection_plans', userId: string, id: string, columns: Record<string, unknown>) {
  const keys = Object.keys(columns);
  const sets = keys.map((k, i) => `${k} = $${i + 3}`);
  const [row] = await q.query(
    `update ${table} set ${[...sets, 'updated_at = now()'].join(', ')} where id = $1 and user_id = $2 returning *`,
    [id, userId, ...keys.map((k) => columns[k])],
  );
  return row;
}

export async function deleteOwn(q: Queryable, table: Table, userId: string, id: string): Promise<boolean> {
  return (await q.query(`delete from ${table} where id = $1 and user_id = $2 returning id`, [id, userId])).length > 0;
}

/** One weight entry per day: a second entry for a day updates the first. */
export async function upsertWeight(q: Queryable, userId: string, weightKg: number, loggedOn: string, note: string | undefined) {
  const [row] = await q.query(
    `insert into weight_entries (user_id, weight_kg, logged_on, note) values ($1, $2, $3, coalesce($4, ''))
     on conflict (user_id, logged_on) do update set weight_kg = excluded.weight_kg,
       note = coalesce($4, weight_entries.note), updated_at = now()
     returning *, (xmax = 0) as inserted`,
    [userId, weightKg, loggedOn, note ?? null],
  );
  return row;
}

export async function planFor(q: Queryable, userId: string) {
  const [row] = await q.query('select * from injection_plans where user_id = $1', [userId]);
  return row;
}

export async function insertDefaultPlan(q: Queryable, userId: string, weekday: number, startsOn: string) {
  await q.query(
    `insert into injection_plans (user_id, anchor_weekday, preferred_time, starts_on) values ($1, $2, '09:00', $3) on conflict (user_id) do nothing`,
    [userId, weekday, startsOn],
  );
}

/** The account's weight entries, newest first (at most `limit`). */
export async function recentWeights(q: Queryable, userId: string, limit: number) {
  return q.query('select weight_kg, logged_on from weight_entries where user_id = $1 order by logged_on desc limit $2', [userId, limit]);
}
