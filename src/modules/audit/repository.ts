// The audit trail: who did what to which record, never the record's content. Owner of audit_log
// and access_log (the patient-facing "who read my record", append-only in the database).
import { listOrdering, orderBy, type Order } from '../../http/pagination.ts';
import type { Queryable } from '../../db/index.ts';
import { sql, sqlOf } from '../../db/kysely.ts';

export interface AuditEntry {
  actorId: string | null;
  action: string;
  subjectType: string;
  subjectId: string;
  details?: Record<string, unknown>;
}

/** What a staff member can read or write of a patient's record (access_log.resource_type). */
export const ACCESS_RESOURCES = ['consultation', 'conversation', 'message_file', 'journal', 'prescription', 'profile', 'payment', 'order', 'verification', 'clinical_photo', 'red_flag', 'share_link'] as const;
export type AccessResource = (typeof ACCESS_RESOURCES)[number];
export type StaffRole = 'doctor' | 'backoffice_admin' | 'pharmacist';

// The patient a resource belongs to, for each resource type ($1: the resource ids). `profile` and
// `journal` are named by the patient's own id. Deliberately unscoped: it finds the owner of whatever a
// staff member (doctor, pharmacist or back office) read or wrote, to write the access log.
function resourceOwnersSqlForStaff(resource: AccessResource): string {
  switch (resource) {
    case 'consultation':
      return 'select id, user_id from consultations where id = any($1::uuid[])';
    case 'conversation':
      return 'select id, user_id from conversations where id = any($1::uuid[])';
    case 'message_file':
      return 'select m.id, c.user_id from messages m join conversations c on c.id = m.conversation_id where m.id = any($1::uuid[])';
    case 'journal':
    case 'profile':
      return 'select id, id as user_id from users where id = any($1::uuid[])';
    case 'prescription':
      return 'select id, user_id from prescriptions where id = any($1::uuid[])';
    case 'payment':
      return 'select id, user_id from payments where id = any($1::uuid[])';
    case 'order':
      return 'select id, user_id from orders where id = any($1::uuid[])';
    case 'verification':
      return 'select id, user_id from identity_verifications where id = any($1::uuid[]) union all select id, user_id from weight_verifications where id = any($1::uuid[])';
    case 'clinical_photo':
      return 'select id, user_id from clinical_photos where id = any($1::uuid[])';
    case 'red_flag':
      return 'select id, user_id from red_flags where id = any($1::uuid[])';
    case 'share_link':
      return 'select id, user_id from share_links where id = any($1::uuid[])';
  }
}

// audit_log subject types that are part of a patient's record, as access-log resources.
const AUDIT_SUBJECTS: Record<string, AccessResource> = { consultation: 'consultation', conversation: 'conversation', payment: 'payment', user: 'profile' };

export interface AccessEntry {
  actorId: string;
  /** null: the actor's role is read from the account (the staff flag it holds). */
  actorRole: StaffRole | null;
  action: 'read' | 'write';
  resourceType: AccessResource;
  resourceIds: readonly string[];
}

/**
 * One access-log row per resource, for the patient each belongs to, in one statement: the actor's
 * name is copied (the log reads the same after a rename). Nothing is written for an actor that holds
 * no staff role, nor for a resource id that names nothing.
 */
export async function insertAccess(q: Queryable, e: AccessEntry): Promise<void> {
  const ids = [...new Set(e.resourceIds)];
  if (ids.length === 0) return;
  await q.query(
    `insert into access_log (patient_id, actor_id, actor_role, actor_name, action, resource_type, resource_id)
     select o.user_id, a.id, coalesce($3::text, case when a.is_doctor then 'doctor' when a.is_backoffice_admin then 'backoffice_admin' else 'pharmacist' end),
            trim(a.first_name || ' ' || a.last_name), $4, $5, o.id::text
       from users a, (${resourceOwnersSqlForStaff(e.resourceType)}) o
      where a.id = $2 and (a.is_doctor or a.is_backoffice_admin or a.is_pharmacist)`,
    [ids, e.actorId, e.actorRole, e.action, e.resourceType],
  );
}

/**
 * A use of the patient's share link (docs/interoperability.md) in their access log: the actor holds
 * the link, not an account (actor role `link_recipient`, named by the recipient text it gave).
 */
export async function insertLinkRecipientAccess(q: Queryable, e: { patientId: string; shareLinkId: string; recipient: string; at: Date }): Promise<void> {
  await sqlOf(q)
    .insertInto('access_log')
    .values({ patient_id: e.patientId, actor_id: null, actor_role: 'link_recipient', actor_name: e.recipient, action: 'read', resource_type: 'share_link', resource_id: e.shareLinkId, at: e.at })
    .execute();
}

export async function insertAudit(q: Queryable, entry: AuditEntry): Promise<void> {
  await sqlOf(q)
    .insertInto('audit_log')
    .values({
      actor_id: entry.actorId,
      action: entry.action,
      subject_type: entry.subjectType,
      subject_id: entry.subjectId,
      details: JSON.stringify(entry.details ?? {}),
    })
    .execute();
  // A staff member's change to a patient's record is shown to the patient (GET /v1/users/me/access-log/).
  const resource = AUDIT_SUBJECTS[entry.subjectType];
  if (entry.actorId && resource && /^[0-9a-f-]{36}$/i.test(entry.subjectId)) {
    await insertAccess(q, { actorId: entry.actorId, actorRole: null, action: 'write', resourceType: resource, resourceIds: [entry.subjectId] });
  }
}

export interface AccessLogRow {
  id: string;
  at: Date;
  actor_role: string;
  actor_name: string;
  action: string;
  resource_type: string;
  resource_id: string;
}

export async function countAccessForPatient(q: Queryable, patientId: string): Promise<number> {
  const row = await sqlOf(q)
    .selectFrom('access_log')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('patient_id', '=', patientId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** The patient's access log, newest first. */
/** The patient's access log: `ordering` whitelist (default newest first; `created_at` is the entry's time). */
export const ACCESS_LOG_ORDERING = listOrdering(['action', 'resource_type'], '-created_at');
const ACCESS_LOG_COLUMNS = { created_at: 'at', action: 'action', resource_type: 'resource_type' } as const;

/** What the access log shows for an actor with no name on record. */
export const UNNAMED_ACTOR = 'Unnamed staff member';

export async function pageAccessForPatient(
  q: Queryable,
  patientId: string,
  limit: number,
  offset: number,
  order: Order<(typeof ACCESS_LOG_ORDERING.fields)[number]> = orderBy({}, ACCESS_LOG_ORDERING),
): Promise<AccessLogRow[]> {
  return sqlOf(q)
    .selectFrom('access_log')
    .select(['id', 'at', 'actor_role', 'action', 'resource_type', 'resource_id'])
    // An entry written while its actor had no name (before migration 1232) shows the actor's name now,
    // else says so: never an empty name.
    .select(
      sql<string>`coalesce(nullif(btrim(access_log.actor_name), ''),
        (select nullif(btrim(u.first_name || ' ' || u.last_name), '') from users u where u.id = access_log.actor_id),
        ${UNNAMED_ACTOR})`.as('actor_name'),
    )
    .where('patient_id', '=', patientId)
    .orderBy(ACCESS_LOG_COLUMNS[order.field], order.direction)
    .orderBy('id', order.direction)
    .limit(limit)
    .offset(offset)
    .execute();
}

/** The whole access log of a patient (the data export), newest first. */
export async function allAccessForPatient(q: Queryable, patientId: string): Promise<AccessLogRow[]> {
  return pageAccessForPatient(q, patientId, 100_000, 0);
}

/**
 * Retention (docs/privacy.md): access-log entries older than `before` are deleted, at most `batch`
 * per call. The table refuses every other change: its trigger (migration 1000) lets a DELETE through
 * only for a row older than 10 years by the database's clock, so the statement also bounds itself by
 * that clock (a sandbox test clock ahead of real time never trips the trigger).
 */
export async function deleteAccessLogBefore(q: Queryable, before: Date, batch: number): Promise<number> {
  const { rowCount } = await q.execute(
    `delete from access_log where id in (
       select id from access_log where at < $1 and at < now() - interval '10 years' order by at limit $2 for update skip locked)`,
    [before, batch],
  );
  return rowCount;
}
