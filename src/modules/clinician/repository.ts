// The review desk's reads (doctors act on any patient by design: the functions say so). The desk
// writes nothing itself: decisions go through the consultations module's status machine.
import type { Queryable } from '../../db/index.ts';
import { sql, sqlOf } from '../../db/kysely.ts';
import type { ConsultationsRow } from '../../db/schema.ts';

export interface QueueFilter {
  status?: string;
  category?: string;
  limit: number;
  offset: number;
}

function queue(q: Queryable, f: Pick<QueueFilter, 'status' | 'category'>) {
  // A renewal still waiting for the patient's choice is not ready for a doctor.
  let query = sqlOf(q).selectFrom('consultations').where(sql<boolean>`coalesce(patient_choice_status, '') <> 'pending'`);
  if (f.status) query = query.where('status', '=', f.status);
  if (f.category) query = query.where('category', '=', f.category);
  return query;
}

export async function countQueueForClinician(q: Queryable, f: Pick<QueueFilter, 'status' | 'category'>): Promise<number> {
  const row = await queue(q, f)
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Time-critical categories first (emergency contraception), then oldest first. */
export async function pageQueueForClinician(q: Queryable, f: QueueFilter, urgentCategories: readonly string[]): Promise<ConsultationsRow[]> {
  return queue(q, f)
    .selectAll()
    .orderBy(sql`(category = any(${[...urgentCategories]}::text[]))`, 'desc')
    .orderBy('created_at', 'asc')
    .orderBy('id', 'asc')
    .limit(f.limit)
    .offset(f.offset)
    .execute();
}
