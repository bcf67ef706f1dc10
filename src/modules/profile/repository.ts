// SQL of the profile module: every statement is scoped by the authenticated account id.
import type { Queryable } from '../../db/index.ts';

export async function profileRow(q: Queryable, userId: string) {
  const [row] = await q.query(
    `select id, email, first_name, last_name, date_of_birth, gender, country_of_residence, timezone, locale, city, postal_code,
            issuing_state, document_number_enc, document_type, addresses, is_doctor, is_backoffice_admin, is_marketer, is_referrer
       from users where id = $1`,
    [userId],
  );
  return row;
}

export async function submittedCategories(q: Queryable, userId: string): Promise<Set<string>> {
  const rows = await q.query<{ category: string }>('select distinct category from questionnaire_submissions where user_id = $1', [userId]);
  return new Set(rows.map((r) => r.category));
}

export async function updateProfile(q: Queryable, userId: string, columns: Record<string, unknown>): Promise<void> {
  const keys = Object.keys(columns);
  if (keys.length === 0) return;
  const sets = keys.map((k, i) => `${k} = $${i + 2}`).join(', ');
  await q.query(`update users set ${sets}, updated_at = now() where id = $1`, [userId, ...keys.map((k) => columns[k])]);
}
