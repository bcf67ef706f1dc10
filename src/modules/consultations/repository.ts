// Consultation SQL and serialisation (spec 2.3). Patient-scoped reads take the account id.
import type { Queryable } from '../../db/index.ts';
import type { Deps } from '../../deps.ts';
import { decrypt } from '../../lib/crypto.ts';
import { iso } from '../../lib/time.ts';
import type { PaymentsRow } from '../../db/schema.ts';
import { toPayment } from '../payments/index.ts';
import type { Consultation } from './schemas.ts';

export async function countForUser(q: Queryable, userId: string): Promise<number> {
  const [r] = await q.query('select count(*)::int as n from consultations where user_id = $1', [userId]);
  return r.n;
}

export async function pageForUser(q: Queryable, userId: string, limit: number, offset: number) {
  return q.query('select * from consultations where user_id = $1 order by created_at desc, id desc limit $2 offset $3', [userId, limit, offset]);
}

function documentNumber(deps: Deps, sealed: string | null): string | null {
  if (!sealed) return null;
  try {
    return decrypt(deps.secrets.documentKeys, sealed);
  } catch {
    return null;
  }
}

async function userSummaries(q: Queryable, deps: Deps, userIds: string[]) {
  const rows = await q.query(
    `select u.*,
       (select count(*)::int from consultations c where c.user_id = u.id) as consultation_count,
       (select coalesce(sum(p.amount_cents), 0)::int from payments p where p.user_id = u.id and p.status <> 'failed') as total_spent_cents,
       (select coalesce(sum(p.refunded_amount_cents), 0)::int from payments p where p.user_id = u.id) as total_refunded_cents,
       (select s.status from subscriptions s where s.user_id = u.id order by s.created_at desc limit 1) as subscription_status,
       (select max(s.created_at) from subscriptions s where s.user_id = u.id) as last_subscription_at,
       (select max(r.issued_at) from prescriptions r where r.user_id = u.id) as last_prescription_at
     from users u where u.id = any($1::uuid[])`,
    [userIds],
  );
  return new Map(
    rows.map((u) => [
      u.id,
      {
        id: u.id,
        first_name: u.first_name,
        last_name: u.last_name,
        email: u.email,
        locale: u.locale,
        date_of_birth: u.date_of_birth ?? null,
        country_of_residence: u.country_of_residence ?? null,
        timezone: u.timezone ?? '',
        city: u.city ?? null,
        postal_code: u.postal_code ?? null,
        issuing_state: u.issuing_state ?? '',
        document_number: documentNumber(deps, u.document_number_enc),
        document_type: u.document_type ?? null,
        consultation_count: u.consultation_count,
        total_spent_cents: u.total_spent_cents,
        total_refunded_cents: u.total_refunded_cents,
        net_spent_cents: u.total_spent_cents - u.total_refunded_cents,
        subscription_status: u.subscription_status ?? 'none',
        last_prescription_at: iso(u.last_prescription_at),
        last_subscription_at: iso(u.last_subscription_at),
      },
    ]),
  );
}

export function toFormSnapshot(answers: unknown): Consultation['form_snapshot'] {
  if (!Array.isArray(answers)) return [];
  return answers
    .filter((a: any) => a && typeof a === 'object' && typeof a.question_key === 'string')
    .map((a: any) => {
      const item: any = { step_id: Number.isInteger(a.step_id) ? a.step_id : 0, question_key: a.question_key };
      if (a.values && typeof a.values === 'object' && !Array.isArray(a.values)) item.values = a.values;
      else item.value = ['string', 'number', 'boolean'].includes(typeof a.value) ? a.value : null;
      return item;
    });
}

export function toPrescription(r: any, baseUrl: string) {
  return {
    id: r.id,
    consultation_id: r.consultation_id,
    category: r.category,
    treatment_id: r.treatment_id,
    treatment_name: r.treatment_name,
    dosage: r.dosage,
    instructions: r.instructions ?? '',
    supply_days: r.supply_days ?? null,
    issued_at: iso(r.issued_at)!,
    valid_until: iso(r.valid_until),
    doctor: { id: r.doctor_id, first_name: r.doctor_first_name ?? '', last_name: r.doctor_last_name ?? '', doctor_license_number: r.doctor_license_number ?? null },
    pdf_url: `${baseUrl}/v1/users/prescriptions/${r.id}/pdf/`,
  };
}

export const PRESCRIPTION_SELECT = `select r.*, d.first_name as doctor_first_name, d.last_name as doctor_last_name, d.doctor_license_number
  from prescriptions r join users d on d.id = r.doctor_id`;

/** Serialises consultation rows (any accounts) with user summary, doctor, payments, prescriptions. */
export async function serialiseConsultations(q: Queryable, deps: Deps, rows: any[]): Promise<Consultation[]> {
  if (rows.length === 0) return [];
  const base = deps.config.PUBLIC_BASE_URL;
  const ids = rows.map((r) => r.id);
  const users = await userSummaries(q, deps, [...new Set(rows.map((r) => r.user_id))]);
  const doctorIds = [...new Set(rows.map((r) => r.doctor_id).filter(Boolean))];
  const doctors = new Map(
    (doctorIds.length ? await q.query('select id, first_name, last_name, email, doctor_license_number from users where id = any($1::uuid[])', [doctorIds]) : []).map((d) => [
      d.id,
      { id: d.id, first_name: d.first_name, last_name: d.last_name, email: d.email, doctor_license_number: d.doctor_license_number ?? null },
    ]),
  );
  const payments = await q.query<PaymentsRow>('select * from payments where consultation_id = any($1::uuid[]) order by created_at, id', [ids]);
  const prescriptions = await q.query(`${PRESCRIPTION_SELECT} where r.consultation_id = any($1::uuid[]) order by r.issued_at, r.id`, [ids]);
  const subIds = [...new Set(rows.map((r) => r.questionnaire_submission_id).filter(Boolean))];
  const submissions = new Map(
    (subIds.length ? await q.query('select id, category, version_id, outcome, result, created_at from questionnaire_submissions where id = any($1::uuid[])', [subIds]) : []).map((s) => [
      s.id,
      { id: s.id, category: s.category, version: s.version_id, outcome: s.outcome, eligibility: s.result ?? {}, submitted_at: iso(s.created_at)! },
    ]),
  );
  return rows.map((r) => {
    const user = users.get(r.user_id)!;
    return {
      id: r.id,
      user,
      doctor: r.doctor_id ? (doctors.get(r.doctor_id) ?? null) : null,
      store_order_id: r.store_order_id ?? null,
      status: r.status,
      origin: r.origin,
      category: r.category,
      plan: r.plan,
      supply_days: r.supply_days ?? null,
      decision_reason: r.decision_reason ?? '',
      treatment_id: r.treatment_id ?? '',
      dosage: r.dosage ?? '',
      images: Array.isArray(r.images) ? r.images : [],
      form_snapshot: toFormSnapshot(r.form_snapshot),
      questionnaire_submission: r.questionnaire_submission_id ? (submissions.get(r.questionnaire_submission_id) ?? null) : null,
      subscription_id: r.subscription_id ?? null,
      prescriptions: prescriptions.filter((p) => p.consultation_id === r.id).map((p) => toPrescription(p, base)),
      payments: payments.filter((p) => p.consultation_id === r.id).map((p) => toPayment(p, user.email, base)),
      created_at: iso(r.created_at)!,
      updated_at: iso(r.updated_at)!,
      decided_at: iso(r.decided_at),
    };
  });
}
