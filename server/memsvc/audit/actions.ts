/** memsvc's audit actions (internal/audit writes them): `<subject>.<verb>`, and `admin.<route>`. */
export type AuditAction =
  | "token.create"
  | "token.rotate"
  | "token.delete"
  | "token.revoke"
  | "project.create"
  | "project.delete"
  | "project.share"
  | "project.unshare"
  | "project.activate"
  | "project.deactivate"
  | `admin.${string}`;
