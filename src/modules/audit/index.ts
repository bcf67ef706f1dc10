// Other modules record audit entries through this, inside their own transaction.
export { insertAudit as recordAudit, type AuditEntry } from './repository.ts';
