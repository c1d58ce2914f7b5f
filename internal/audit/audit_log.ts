/**
 * The audit log: the one writer every service-owned route uses to record who changed what (tokens,
 * projects, memberships, users, invites, settings). Each row carries the request id in its
 * metadata, so an entry leads to the request's log lines. Metadata must never hold a secret: a
 * token hash identifies a token, a plaintext token or a password never goes in.
 *
 * @example
 * await writeAudit(db, { actorId: caller.userId, action: "token.create", target: hash, requestId });
 * const latest = await listAudit(db, 50);
 */
import { type Generated, type Kysely, sql } from "kysely";

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

export interface AuditLogTable {
  /** bigserial: postgres.js and our PGlite parsers both return int8 as a string. */
  id: Generated<string>;
  at: Generated<Date>;
  actor_id: string | null;
  action: string;
  target: string | null;
  metadata: Generated<JsonValue>;
}

/** The tables a database needs for the audit log; a tool's table interface extends it. */
export interface AuditTables {
  audit_log: AuditLogTable;
}

/** Creates audit_log and its index; for a tool's migration (the DDL of memsvc's 0002). */
// deno-lint-ignore no-explicit-any
export async function createAuditLogTable(db: Kysely<any>): Promise<void> {
  await db.schema.createTable("audit_log")
    .addColumn("id", "bigserial", (c) => c.primaryKey())
    .addColumn("at", "timestamptz", (c) => c.notNull().defaultTo(sql`CURRENT_TIMESTAMP`))
    .addColumn("actor_id", "text")
    .addColumn("action", "text", (c) => c.notNull())
    .addColumn("target", "text")
    .addColumn("metadata", "jsonb", (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .execute();
  await db.schema.createIndex("audit_log_at_idx").on("audit_log").column("at").execute();
}

export interface AuditInput<A extends string = string> {
  /** The user who acted; null for the service itself. */
  actorId: string | null;
  /** Dotted: `<subject>.<verb>`, and `admin.<route>` for admin routes. */
  action: A;
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
export async function writeAudit(db: Kysely<AuditTables>, entry: AuditInput): Promise<void> {
  await db.insertInto("audit_log").values({
    actor_id: entry.actorId,
    action: entry.action,
    target: entry.target ?? null,
    metadata: { ...entry.metadata, requestId: entry.requestId },
  }).execute();
}

/** The `limit` most recent entries, newest first. */
export async function listAudit(db: Kysely<AuditTables>, limit: number): Promise<AuditEntry[]> {
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
