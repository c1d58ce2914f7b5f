/** The audit log shared by the servers: one table, one writer, one reader. */
export {
  type AuditEntry,
  type AuditInput,
  type AuditLogTable,
  type AuditTables,
  createAuditLogTable,
  type JsonValue,
  listAudit,
  writeAudit,
} from "./audit_log.ts";
