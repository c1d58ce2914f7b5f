/**
 * The audit log: the one writer every service-owned route uses to record token, project, membership
 * and admin actions. Each row carries the request id in its metadata, so an entry leads to the
 * request's log lines. Metadata must never hold a secret: a token hash identifies a token, a
 * plaintext token or a password never goes in.
 */
import type { Kysely } from "kysely";
import type { JsonValue, MemsvcDatabase } from "../store/db.ts";

/** Dotted action names: `<subject>.<verb>`, and `admin.<route>` for admin routes. */
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

export interface AuditInput {
  /** The user who acted; null for the service itself. */
  actorId: string | null;
  action: AuditAction;
  /** What was acted on, e.g. a token hash. */
  target?: string | null;
  requestId: string;
  metadata?: Record<string, JsonValue>;
}

export interface AuditEntry {
  id: string;
  /** ISO 8601. */
  at: string;
  actorId: string | null;
  action: string;
  target: string | null;
  metadata: Record<string, JsonValue>;
}

/** Appends one entry; `requestId` is stored inside metadata. */
export async function writeAudit(db: Kysely<MemsvcDatabase>, entry: AuditInput): Promise<void> {
  await db.insertInto("audit_log").values({
    actor_id: entry.actorId,
    action: entry.action,
    target: entry.target ?? null,
    metadata: { ...entry.metadata, requestId: entry.requestId },
  }).execute();
}

/** The `limit` most recent entries, newest first. */
export async function listAudit(db: Kysely<MemsvcDatabase>, limit: number): Promise<AuditEntry[]> {
  const rows = await db.selectFrom("audit_log").selectAll().orderBy("id", "desc").limit(limit).execute();
  return rows.map((row) => ({
    id: row.id,
    at: row.at.toISOString(),
    actorId: row.actor_id,
    action: row.action,
    target: row.target,
    metadata: row.metadata as Record<string, JsonValue>,
  }));
}
