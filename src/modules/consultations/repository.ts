// Consultation SQL and serialisation (spec 2.3). Patient-scoped reads take the account id.
import type { Queryable } from '../../db/index.ts';
import { sql, sqlOf } from '../../db/kysely.ts';
import { accountSql, forAccount } from '../../db/scope.ts';
import { readJson, readText } from '../../lib/sealed.ts';
import type { ConsultationsRow, PaymentsRow, QuestionnaireSubmissionsRow, UsersRow } from '../../db/schema.ts';
import type { Deps } from '../../deps.ts';
import { decrypt } from '../../lib/crypto.ts';
import { ISO_SQL, iso } from '../../lib/iso.ts';
import { patientImageUrl } from './images.ts';
import { listOrdering, orderBy, type Order } from '../../http/pagination.ts';
import { toPrescription, type PrescriptionWithDoctor } from '../fulfilment/index.ts';
import { toPayment } from '../payments/index.ts';
import { openConsultation, type ConsultationRow } from './records.repository.ts';
import type { Consultation } from './schemas.ts';
import { isConsultationStatus } from './status.ts';

/** A row's timestamps as the list's json_build_object sends them: PostgreSQL's JSON text, which `iso` formats. */
type Iso<T> = { [K in keyof T]: T[K] extends Date ? string : T[K] extends Date | null ? string | null : T[K] };
/** A row read either way: Date from a column, ISO text from the list's JSON (`iso` takes both). */
type DateOrIso<T> = { [K in keyof T]: T[K] extends Date ? Date | string : T[K] extends Date | null ? Date | string | null : T[K] };

/** The account's consultation count: a counter kept by triggers (migration 0700), not a scan. */
export async function countForUser(q: Queryable, userId: string): Promise<number> {
  const r = await forAccount(q, userId).selectFrom('account_totals').select('consultation_count as n').executeTakeFirst();
  return r?.n ?? 0;
}

export async function pageForUser(q: Queryable, userId: string, limit: number, offset: number): Promise<ConsultationRow[]> {
  const rows = await forAccount(q, userId)
    .selectFrom('consultations')
    .selectAll()
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .offset(offset)
    .execute();
  return rows.map((r) => openConsultation(q, r));
}

function documentNumber(deps: Deps, sealed: string | null): string | null {
  if (!sealed) return null;
  try {
    return decrypt(deps.secrets.documentKeys, sealed);
  } catch {
    return null;
  }
}

// The user summary's figures. Counts and money come from account_totals (kept by triggers in the
// writers' transactions, migration 0700) and the latest plan and prescription from indexes, so the
// cost does not grow with the account's history.
const SUMMARY_COLUMNS = `
       coalesce(t.consultation_count, 0) as consultation_count,
       coalesce(t.spent_cents, 0) as total_spent_cents,
       coalesce(t.refunded_cents, 0) as total_refunded_cents,
       (select s.status from subscriptions s where s.user_id = u.id order by s.created_at desc limit 1) as subscription_status,
       ${ISO_SQL('(select s.created_at from subscriptions s where s.user_id = u.id order by s.created_at desc limit 1)')} as last_subscription_at,
       ${ISO_SQL('(select r.issued_at from prescriptions r where r.user_id = u.id order by r.issued_at desc limit 1)')} as last_prescription_at`;

const USER_COLUMNS = `u.id, u.first_name, u.last_name, u.email, u.locale, u.date_of_birth, u.country_of_residence, u.timezone, u.city,
       u.postal_code, u.issuing_state, u.document_number_enc, u.document_type`;

type UserColumns = Pick<
  UsersRow,
  'id' | 'first_name' | 'last_name' | 'email' | 'locale' | 'date_of_birth' | 'country_of_residence' | 'timezone' | 'city' | 'postal_code' | 'issuing_state' | 'document_number_enc' | 'document_type'
>;

/** A row of USER_COLUMNS and SUMMARY_COLUMNS (timestamps formatted by ISO_SQL). */
type UserSummaryRow = UserColumns & {
  consultation_count: number;
  total_spent_cents: number;
  total_refunded_cents: number;
  subscription_status: string | null;
  last_subscription_at: string | null;
  last_prescription_at: string | null;
};

function toUserSummary(deps: Deps, u: UserSummaryRow): Consultation['user'] {
  return {
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
  };
}

async function userSummaries(q: Queryable, deps: Deps, userIds: string[]): Promise<Map<string, Consultation['user']>> {
  const rows = await USER_SUMMARIES.query<UserSummaryRow>(q, userIds);
  return new Map(rows.map((u) => [u.id, toUserSummary(deps, u)]));
}

// The owners are the accounts of the rows being serialised.
const USER_SUMMARIES = accountSql(
  (owner) => `select ${USER_COLUMNS},${SUMMARY_COLUMNS}
     from users u left join account_totals t on t.user_id = u.id where u.id = any(${owner}::uuid[])`,
);

type FormItem = Consultation['form_snapshot'][number];
type Image = Consultation['images'][number];

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isStoredImage = (v: unknown): v is { id: string; created_at: string } => isRecord(v) && typeof v.id === 'string' && typeof v.created_at === 'string';

/** The stored answers in the API's form_snapshot shape; items without a question key are dropped. */
export function toFormSnapshot(answers: unknown): Consultation['form_snapshot'] {
  if (!Array.isArray(answers)) return [];
  const items: FormItem[] = [];
  for (const a of answers as unknown[]) {
    if (!isRecord(a) || typeof a.question_key !== 'string') continue;
    const step = a.step_id;
    const item: FormItem = { step_id: typeof step === 'number' && Number.isInteger(step) ? step : 0, question_key: a.question_key };
    const { value, values } = a;
    if (isRecord(values)) item.values = values;
    else item.value = typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? value : null;
    items.push(item);
  }
  return items;
}

/** Images as stored ({id, created_at}: clinical photos), with the address that serves each; anything else reads as none. */
function toImages(images: unknown, base: string): Image[] {
  if (!Array.isArray(images)) return [];
  const list: unknown[] = images;
  return list.filter(isStoredImage).map((i) => ({ id: i.id, url: patientImageUrl(base, i.id), created_at: iso(i.created_at)! }));
}

type Doctor = Consultation['doctor'];
type Submission = Consultation['questionnaire_submission'];

type DoctorColumns = Pick<UsersRow, 'id' | 'first_name' | 'last_name' | 'email' | 'doctor_license_number'>;
type SubmissionColumns = Pick<QuestionnaireSubmissionsRow, 'id' | 'category' | 'version_id' | 'outcome' | 'result' | 'created_at'>;
type ConsultationColumns = Pick<
  ConsultationsRow,
  | 'id'
  | 'store_order_id'
  | 'status'
  | 'origin'
  | 'category'
  | 'plan'
  | 'supply_days'
  | 'decision_reason'
  | 'decision_reason_enc'
  | 'treatment_id'
  | 'dosage'
  | 'images'
  | 'form_snapshot'
  | 'form_snapshot_enc'
  | 'subscription_id'
  | 'created_at'
  | 'updated_at'
  | 'decided_at'
>;
/** The payment columns toPayment reads (the list's JSON carries exactly these). */
type PaymentColumns = Omit<PaymentsRow, 'checkout_session_id' | 'invoice_number' | 'period_start'>;
/** The prescription columns toPrescription reads (the list's JSON carries exactly these). */
type PrescriptionColumns = Omit<PrescriptionWithDoctor, 'user_id' | 'created_at'>;

const toDoctor = (d: DoctorColumns): NonNullable<Doctor> => ({
  id: d.id,
  first_name: d.first_name,
  last_name: d.last_name,
  email: d.email,
  doctor_license_number: d.doctor_license_number ?? null,
});

const toSubmission = (s: DateOrIso<SubmissionColumns>): NonNullable<Submission> => ({
  id: s.id,
  category: s.category,
  version: s.version_id,
  outcome: s.outcome,
  eligibility: isRecord(s.result) ? s.result : {},
  submitted_at: iso(s.created_at)!,
});

function statusOf(r: { id: string; status: string }): Consultation['status'] {
  // The CHECK constraint on consultations.status keeps the column within CONSULTATION_STATUSES.
  if (!isConsultationStatus(r.status)) throw new Error(`consultation ${r.id} has an unknown status`);
  return r.status;
}

function planOf(r: { id: string; plan: string }): Consultation['plan'] {
  if (r.plan !== 'one_off' && r.plan !== 'subscription') throw new Error(`consultation ${r.id} has an unknown plan`);
  return r.plan;
}

/** One consultation row with its related records, in the API's shape (list and detail alike). */
function toConsultation(
  q: Queryable,
  r: DateOrIso<ConsultationColumns>,
  user: Consultation['user'],
  doctor: Doctor,
  submission: Submission,
  prescriptions: DateOrIso<PrescriptionColumns>[],
  payments: DateOrIso<PaymentColumns>[],
  base: string,
): Consultation {
  return {
    id: r.id,
    user,
    doctor,
    store_order_id: r.store_order_id ?? null,
    status: statusOf(r),
    origin: r.origin,
    category: r.category,
    plan: planOf(r),
    supply_days: r.supply_days ?? null,
    // The doctor's note is sealed at rest too (migration 1231).
    decision_reason: readText(q, r.decision_reason, r.decision_reason_enc, ''),
    treatment_id: r.treatment_id ?? '',
    dosage: r.dosage ?? '',
    images: toImages(r.images, base),
    // The answers are sealed at rest (src/lib/sealed.ts): opened here, for the list and the detail alike.
    form_snapshot: toFormSnapshot(readJson(q, r.form_snapshot, r.form_snapshot_enc, [])),
    questionnaire_submission: submission,
    subscription_id: r.subscription_id ?? null,
    prescriptions: prescriptions.map((p) => toPrescription(p, base)),
    payments: payments.map((p) => toPayment(p, user.email, base)),
    created_at: iso(r.created_at)!,
    updated_at: iso(r.updated_at)!,
    decided_at: iso(r.decided_at),
  };
}

const anyOf = (ids: string[]) => sql<string>`any(${ids}::uuid[])`;

/**
 * Serialises consultation rows (any accounts) with user summary, doctor, payments, prescriptions.
 * Rows come opened (the module's functions) or as stored (sealed columns opened here).
 */
export async function serialiseConsultations(
  q: Queryable,
  deps: Deps,
  rows: (Omit<ConsultationRow, 'decision_reason'> & Pick<ConsultationsRow, 'decision_reason'> & Partial<Pick<ConsultationsRow, 'form_snapshot_enc' | 'renewal_details_enc' | 'decision_reason_enc'>>)[],
): Promise<Consultation[]> {
  if (rows.length === 0) return [];
  const db = sqlOf(q);
  const base = deps.config.PUBLIC_BASE_URL;
  const ids = rows.map((r) => r.id);
  // The related rows are read from the accounts the consultations belong to, and only from them.
  const owners = [...new Set(rows.map((r) => r.user_id))];
  const users = await userSummaries(q, deps, owners);
  const doctorIds = [...new Set(rows.flatMap((r) => (r.doctor_id ? [r.doctor_id] : [])))];
  const doctors = new Map(
    (doctorIds.length
      ? await db.selectFrom('users').select(['id', 'first_name', 'last_name', 'email', 'doctor_license_number']).where('id', '=', anyOf(doctorIds)).execute()
      : []
    ).map((d) => [d.id, toDoctor(d)]),
  );
  const payments = await forAccount(q, owners).selectFrom('payments').selectAll().where('consultation_id', '=', anyOf(ids)).orderBy('created_at').orderBy('id').execute();
  const prescriptions = await forAccount(q, owners)
    .selectFrom('prescriptions as r')
    .innerJoin('users as d', 'd.id', 'r.doctor_id')
    .selectAll('r')
    .select(['d.first_name as doctor_first_name', 'd.last_name as doctor_last_name', 'd.doctor_license_number'])
    .where('r.consultation_id', '=', anyOf(ids))
    .orderBy('r.issued_at')
    .orderBy('r.id')
    .execute();
  const subIds = [...new Set(rows.flatMap((r) => (r.questionnaire_submission_id ? [r.questionnaire_submission_id] : [])))];
  const submissions = new Map(
    (subIds.length
      ? await forAccount(q, owners).selectFrom('questionnaire_submissions').select(['id', 'category', 'version_id', 'outcome', 'result', 'created_at']).where('id', '=', anyOf(subIds)).execute()
      : []
    ).map((s) => [s.id, toSubmission(s)]),
  );
  return rows.map((r) =>
    toConsultation(
      q,
      { ...r, form_snapshot_enc: r.form_snapshot_enc ?? null, decision_reason_enc: r.decision_reason_enc ?? null },
      users.get(r.user_id)!,
      r.doctor_id ? (doctors.get(r.doctor_id) ?? null) : null,
      r.questionnaire_submission_id ? (submissions.get(r.questionnaire_submission_id) ?? null) : null,
      prescriptions.filter((p) => p.consultation_id === r.id),
      payments.filter((p) => p.consultation_id === r.id),
      base,
    ),
  );
}

// One page of an account's consultations in ONE statement (the list took six sequential
// round trips). The page, its doctors, submissions, payments and prescriptions are aggregated with
// json_agg, timestamps left as PostgreSQL's JSON text (`iso` cuts that to milliseconds without a
// Date; to_char in SQL cost a fifth of the statement's time), and
// the count and user summary come from the trigger-kept account_totals. Same shapes as
// serialiseConsultations, which the detail route keeps using; a test compares the two.
const PAYMENT_JSON = `json_build_object(
    'id', p.id, 'user_id', p.user_id, 'consultation_id', p.consultation_id, 'subscription_id', p.subscription_id,
    'provider', p.provider, 'provider_payment_id', p.provider_payment_id, 'provider_checkout_id', p.provider_checkout_id,
    'provider_order_id', p.provider_order_id, 'provider_order_name', p.provider_order_name, 'is_recurring', p.is_recurring,
    'billing_reason', p.billing_reason, 'amount_cents', p.amount_cents, 'refunded_amount_cents', p.refunded_amount_cents,
    'currency', p.currency, 'status', p.status, 'failure_code', p.failure_code, 'failed_at', p.failed_at,
    'description', p.description, 'captured_at', p.captured_at, 'refund', p.refund,
    'created_at', p.created_at, 'updated_at', p.updated_at)`;

const PRESCRIPTION_JSON = `json_build_object(
    'id', r.id, 'consultation_id', r.consultation_id, 'category', r.category, 'treatment_id', r.treatment_id,
    'treatment_name', r.treatment_name, 'dosage', r.dosage, 'instructions', r.instructions, 'supply_days', r.supply_days,
    'issued_at', r.issued_at, 'valid_until', r.valid_until, 'reissued_from', r.reissued_from, 'doctor_id', r.doctor_id,
    'doctor_first_name', rd.first_name, 'doctor_last_name', rd.last_name, 'doctor_license_number', rd.doctor_license_number)`;

const CONSULTATION_JSON = `json_build_object(
    'id', c.id, 'doctor_id', c.doctor_id, 'store_order_id', c.store_order_id, 'status', c.status, 'origin', c.origin,
    'category', c.category, 'plan', c.plan, 'supply_days', c.supply_days, 'decision_reason', c.decision_reason, 'decision_reason_enc', c.decision_reason_enc,
    'treatment_id', c.treatment_id, 'dosage', c.dosage, 'images', c.images, 'form_snapshot', c.form_snapshot, 'form_snapshot_enc', c.form_snapshot_enc,
    'questionnaire_submission_id', c.questionnaire_submission_id, 'subscription_id', c.subscription_id,
    'created_at', c.created_at, 'updated_at', c.updated_at, 'decided_at', c.decided_at,
    'doctor', case when d.id is null then null else json_build_object('id', d.id, 'first_name', d.first_name, 'last_name', d.last_name,
      'email', d.email, 'doctor_license_number', d.doctor_license_number) end,
    'submission', case when qs.id is null then null else json_build_object('id', qs.id, 'category', qs.category,
      'version_id', qs.version_id, 'outcome', qs.outcome, 'result', qs.result, 'created_at', qs.created_at) end,
    'payments', coalesce((select json_agg(${PAYMENT_JSON} order by p.created_at, p.id) from payments p where p.consultation_id = c.id), '[]'::json),
    'prescriptions', coalesce((select json_agg(${PRESCRIPTION_JSON} order by r.issued_at, r.id)
      from prescriptions r join users rd on rd.id = r.doctor_id where r.consultation_id = c.id), '[]'::json))`;

// The account's data version (migration 0870): raised in the writer's transaction by every write to a
// table the list reads. Read in the same statement as the page, so a cached page is filed under the
// version of exactly the snapshot it was computed from.
const DATA_VERSION_COLUMNS = `coalesce(t.data_version, 0)::text || '.' || (select e.version from account_data_epoch e)::text as data_version`;

const DATA_VERSION = accountSql((owner) => `select ${DATA_VERSION_COLUMNS} from account_totals t where t.user_id = ${owner}`);
/** The data version statement's text (bench/floor-sql.ts sends exactly this). */
export const DATA_VERSION_SQL = DATA_VERSION.text;

/** The version of what the account's list shows now; undefined for an account without totals. */
export async function dataVersionOf(q: Queryable, userId: string): Promise<string | undefined> {
  const [row] = await DATA_VERSION.query<{ data_version: string }>(q, userId);
  return row?.data_version;
}

/** The consultations list's `ordering` whitelist (default: newest first). */
export const CONSULTATION_ORDERING = listOrdering(['updated_at'], '-created_at');
export type ConsultationOrder = Order<(typeof CONSULTATION_ORDERING.fields)[number]>;

/** The list statement for an order (whitelisted field and direction only; the id breaks ties the same way). */
function consultationListSql(order: ConsultationOrder) {
  const by = `${order.field} ${order.direction}, id ${order.direction}`;
  return accountSql(
    (owner) => `select ${USER_COLUMNS},${SUMMARY_COLUMNS},${DATA_VERSION_COLUMNS},
       (select coalesce(json_agg(${CONSULTATION_JSON} order by ${by.replace(/(\w+) (asc|desc)/g, 'c.$1 $2')}), '[]'::json)
          from (select * from consultations where user_id = ${owner} order by ${by} limit $2 offset $3) c
          left join users d on d.id = c.doctor_id
          left join questionnaire_submissions qs on qs.id = c.questionnaire_submission_id) as page
  from users u left join account_totals t on t.user_id = u.id
 where u.id = ${owner}`,
  );
}

const LIST_SQL = new Map(
  CONSULTATION_ORDERING.fields.flatMap((field) => (['asc', 'desc'] as const).map((direction) => [`${field} ${direction}`, consultationListSql({ field, direction })])),
);

/** The list statement in the default order (newest first). */
const CONSULTATION_LIST = consultationListSql(orderBy({}, CONSULTATION_ORDERING));
/** Its text (bench/floor-sql.ts sends exactly this). */
export const CONSULTATION_LIST_SQL = CONSULTATION_LIST.text;

/** One element of the list statement's `page`: CONSULTATION_JSON, timestamps as ISO text. */
type ConsultationJson = Iso<ConsultationColumns> &
  Pick<ConsultationsRow, 'doctor_id' | 'questionnaire_submission_id'> & {
    doctor: DoctorColumns | null;
    submission: Iso<SubmissionColumns> | null;
    payments: Iso<PaymentColumns>[];
    prescriptions: Iso<PrescriptionColumns>[];
  };

/** The list statement's one row: the account's summary and the page as JSON (drivers parse json). */
type ConsultationListRow = UserSummaryRow & { data_version: string; page: ConsultationJson[] };

/**
 * One page of the account's consultations in the asked order (default newest first), the account's consultation count, and the
 * data version the page was read at (undefined when the account has no row).
 */
export async function listForUser(
  q: Queryable,
  deps: Deps,
  userId: string,
  limit: number,
  offset: number,
  order: ConsultationOrder = orderBy({}, CONSULTATION_ORDERING),
): Promise<{ count: number; results: Consultation[]; dataVersion: string | undefined }> {
  const statement = LIST_SQL.get(`${order.field} ${order.direction}`) ?? CONSULTATION_LIST;
  const [u] = await statement.query<ConsultationListRow>(q, userId, [limit, offset]);
  if (!u) return { count: 0, results: [], dataVersion: undefined };
  const base = deps.config.PUBLIC_BASE_URL;
  const user = toUserSummary(deps, u);
  return {
    dataVersion: u.data_version,
    count: user.consultation_count,
    results: u.page.map((r) =>
      toConsultation(q, r, user, r.doctor ? toDoctor(r.doctor) : null, r.submission ? toSubmission(r.submission) : null, r.prescriptions, r.payments, base),
    ),
  };
}
