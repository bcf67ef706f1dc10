// Billing SQL for the patient's records. Every function takes the account id and scopes by it.
import type { Queryable } from '../../db/index.ts';
import { orderBy } from '../../http/pagination.ts';
import { PRESCRIPTION_SELECT } from '../consultations/repository.ts';

const PAYMENT_ORDER: Record<string, string> = { created_at: 'created_at', amount_cents: 'amount_cents' };

/** ORDER BY for the payments list: `ordering` from a whitelist, default newest first. */
export function paymentOrder(ordering: unknown): string {
  return orderBy({ ordering }, PAYMENT_ORDER, 'created_at desc, id desc');
}

export async function countPayments(q: Queryable, userId: string): Promise<number> {
  const [r] = await q.query('select count(*)::int as n from payments where user_id = $1', [userId]);
  return r.n;
}

export function pagePayments(q: Queryable, userId: string, order: string, limit: number, offset: number) {
  return q.query(`select * from payments where user_id = $1 order by ${order} limit $2 offset $3`, [userId, limit, offset]);
}

export async function paymentForInvoice(q: Queryable, userId: string, paymentId: string) {
  const [p] = await q.query(
    'select p.*, u.first_name, u.last_name, u.email, u.addresses from payments p join users u on u.id = p.user_id where p.id = $1 and p.user_id = $2',
    [paymentId, userId],
  );
  return p ?? null;
}

export async function countPrescriptions(q: Queryable, userId: string): Promise<number> {
  const [r] = await q.query('select count(*)::int as n from prescriptions where user_id = $1', [userId]);
  return r.n;
}

export function pagePrescriptions(q: Queryable, userId: string, limit: number, offset: number) {
  return q.query(`${PRESCRIPTION_SELECT} where r.user_id = $1 order by r.issued_at desc, r.id desc limit $2 offset $3`, [userId, limit, offset]);
}

export async function prescriptionForPdf(q: Queryable, userId: string, id: string) {
  const [rx] = await q.query(
    `select r.*, d.first_name as doctor_first_name, d.last_name as doctor_last_name, d.doctor_license_number,
            pu.first_name as patient_first_name, pu.last_name as patient_last_name, pu.date_of_birth, pu.email as patient_email
       from prescriptions r join users d on d.id = r.doctor_id join users pu on pu.id = r.user_id
      where r.id = $1 and r.user_id = $2`,
    [id, userId],
  );
  return rx ?? null;
}
