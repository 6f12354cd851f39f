/** The audit log (`audit_events`, append-only): record in the change's own transaction, list for admins. */
export { recordAudit, type AuditEvent, type AuditActor } from './record';
export { listAuditEvents, type AuditFilter, type AuditRow } from './list';
