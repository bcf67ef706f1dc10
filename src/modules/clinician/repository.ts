// The review desk's reads (doctors act on any patient by design: the functions say so). The desk
// writes nothing itself: decisions go through the consultations module's status machine.
import { listOrdering, type Order } from '../../http/pagination.ts';
import type { Queryable } from '../../db/index.ts';
import { sql, sqlOf } from '../../db/kysely.ts';
import type { ConsultationsRow } from '../../db/schema.ts';

/** The review queue's `ordering` whitelist; without one: time-critical categories first, then oldest first. */
export const QUEUE_ORDERING = listOrdering(['updated_at'], 'created_at', 'time-critical categories first, then `created_at`');

export interface QueueFilter {
  status?: string;
  category?: string;
  limit: number;
  offset: number;
  /** An asked order (else the queue order). */
  order?: Order<(typeof QUEUE_ORDERING.fields)[number]>;
}

function queueForClinician(q: Queryable, f: Pick<QueueFilter, 'status' | 'category'>) {
  // A renewal still waiting for the patient's choice is not ready for a doctor.
  let query = sqlOf(q).selectFrom('consultations').where(sql<boolean>`coalesce(patient_choice_status, '') <> 'pending'`);
  if (f.status) query = query.where('status', '=', f.status);
  if (f.category) query = query.where('category', '=', f.category);
  return query;
}

export async function countQueueForClinician(q: Queryable, f: Pick<QueueFilter, 'status' | 'category'>): Promise<number> {
  const row = await queueForClinician(q, f)
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** In the asked order, else time-critical categories first (emergency contraception), then oldest first. */
export async function pageQueueForClinician(q: Queryable, f: QueueFilter, urgentCategories: readonly string[]): Promise<ConsultationsRow[]> {
  const base = queueForClinician(q, f).selectAll();
  const ordered = f.order
    ? base.orderBy(f.order.field, f.order.direction).orderBy('id', f.order.direction)
    : base.orderBy(sql`(category = any(${[...urgentCategories]}::text[]))`, 'desc').orderBy('created_at', 'asc').orderBy('id', 'asc');
  return ordered
    .limit(f.limit)
    .offset(f.offset)
    .execute();
}
