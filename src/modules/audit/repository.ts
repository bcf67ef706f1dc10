// The audit trail: who did what to which record, never the record's content. Owner of audit_log.
import type { Queryable } from '../../db/index.ts';
import { sqlOf } from '../../db/kysely.ts';

export interface AuditEntry {
  actorId: string | null;
  action: string;
  subjectType: string;
  subjectId: string;
  details?: Record<string, unknown>;
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
}
