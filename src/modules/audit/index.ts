// Other modules record audit entries through this, inside their own transaction; staff reads of a
// patient's record are logged with logStaffRead (one line in the route that answered them).
export {
  recordAudit,
  logStaffRead,
  logShareLinkAccess,
  countAccessForPatient,
  pageAccessForPatient,
  allAccessForPatient,
  deleteAccessLogBefore,
  ACCESS_LOG_ORDERING,
} from './service.ts';
export type { AuditEntry, AccessEntry, AccessResource, AccessLogRow, StaffRole } from './repository.ts';
