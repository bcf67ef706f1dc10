// The audit trail's behaviour for other modules: record an audit entry inside the caller's
// transaction, log a staff read of a patient's record, answer a patient's access log, and its
// retention sweep. The statements stay in repository.ts, private to this folder.
import type { FastifyRequest } from 'fastify';
import type { Deps } from '../../deps.ts';
import { currentUser } from '../../http/auth.ts';
import * as repo from './repository.ts';
import type { AccessResource, StaffRole } from './repository.ts';

// The access log's `ordering` whitelist: the list route parses the query with it and hands the
// result to pageAccessForPatient, so the two always agree.
export { ACCESS_LOG_ORDERING } from './repository.ts';

/**
 * Records who did what to which record, inside the caller's transaction `q`; a staff member's change
 * to a patient's record is also shown in that patient's access log.
 */
export function recordAudit(...args: Parameters<typeof repo.insertAudit>) {
  return repo.insertAudit(...args);
}

/** Logs a use of the patient's share link (the recipient holds the link, no account). */
export function logShareLinkAccess(...args: Parameters<typeof repo.insertLinkRecipientAccess>) {
  return repo.insertLinkRecipientAccess(...args);
}

/** How many entries the patient's access log holds. */
export function countAccessForPatient(...args: Parameters<typeof repo.countAccessForPatient>) {
  return repo.countAccessForPatient(...args);
}

/** A page of the patient's access log (default newest first). */
export function pageAccessForPatient(...args: Parameters<typeof repo.pageAccessForPatient>) {
  return repo.pageAccessForPatient(...args);
}

/** The whole access log of a patient (the data export), newest first. */
export function allAccessForPatient(...args: Parameters<typeof repo.allAccessForPatient>) {
  return repo.allAccessForPatient(...args);
}

/** Retention: deletes access-log entries older than `before` (and 10 years), at most `batch` a call. */
export function deleteAccessLogBefore(...args: Parameters<typeof repo.deleteAccessLogBefore>) {
  return repo.deleteAccessLogBefore(...args);
}

/** The staff role a request acts in: the desk its route belongs to. */
function roleOf(request: FastifyRequest): StaffRole | null {
  const url = request.routeOptions.url ?? request.url;
  if (url.startsWith('/v1/clinician/')) return 'doctor';
  if (url.startsWith('/v1/backoffice/')) return 'backoffice_admin';
  if (url.startsWith('/v1/pharmacy/')) return 'pharmacist';
  return null;
}

/**
 * Writes an access-log row (action "read") for each resource a staff request has just read, for the
 * patient each belongs to, before the answer leaves: a read that cannot be logged is not answered.
 * `ids` name the resources (a patient's own id for `profile` and `journal`).
 */
export async function logStaffRead(deps: Deps, request: FastifyRequest, resourceType: AccessResource, ids: string | readonly (string | null | undefined)[]): Promise<void> {
  const list = (typeof ids === 'string' ? [ids] : ids).filter((id): id is string => typeof id === 'string' && id.length > 0);
  const role = roleOf(request);
  if (!role || list.length === 0) return;
  await repo.insertAccess(deps.db, { actorId: currentUser(request).id, actorRole: role, action: 'read', resourceType, resourceIds: list });
}
