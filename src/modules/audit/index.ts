// Other modules record audit entries through this, inside their own transaction; staff reads of a
// patient's record are logged with logStaffRead (one line in the route that answered them).
import type { FastifyRequest } from 'fastify';
import type { Deps } from '../../deps.ts';
import { currentUser } from '../../http/auth.ts';
import { insertAccess, type AccessResource, type StaffRole } from './repository.ts';

export {
  insertAudit as recordAudit,
  insertAccess as recordAccess,
  countAccessForPatient,
  pageAccessForPatient,
  ACCESS_LOG_ORDERING,
  allAccessForPatient,
  deleteAccessLogBefore,
  ACCESS_RESOURCES,
  type AuditEntry,
  type AccessEntry,
  type AccessResource,
  type AccessLogRow,
  type StaffRole,
} from './repository.ts';

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
  await insertAccess(deps.db, { actorId: currentUser(request).id, actorRole: role, action: 'read', resourceType, resourceIds: list });
}
