/**
 * Sharing: a user shares a note, or a folder (path ending in "/", matched by prefix so "Work/"
 * never covers "Worklog/"), with another user, read or read-write; and access requests, which
 * the owner approves (with a permission) or denies. Removing either user removes their rows.
 */
import { sql } from "kysely";
import type { Migration } from "../../../../internal/db/mod.ts";

export const shares: Migration = {
  async up(db) {
    const now = sql`CURRENT_TIMESTAMP`;
    await db.schema.createTable("note_shares")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("owner_id", "text", (c) => c.notNull().references("user.id").onDelete("cascade"))
      .addColumn("path", "text", (c) => c.notNull())
      .addColumn("grantee_id", "text", (c) => c.notNull().references("user.id").onDelete("cascade"))
      .addColumn("permission", "text", (c) => c.notNull().check(sql`permission in ('read', 'read-write')`))
      .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(now))
      .addUniqueConstraint("note_shares_owner_path_grantee", ["owner_id", "path", "grantee_id"])
      .execute();
    await db.schema.createIndex("note_shares_grantee_idx").on("note_shares").column("grantee_id").execute();

    await db.schema.createTable("access_requests")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("requester_id", "text", (c) => c.notNull().references("user.id").onDelete("cascade"))
      .addColumn("owner_id", "text", (c) => c.notNull().references("user.id").onDelete("cascade"))
      .addColumn("path", "text", (c) => c.notNull())
      .addColumn("permission", "text", (c) => c.notNull().check(sql`permission in ('read', 'read-write')`))
      .addColumn("message", "text")
      .addColumn(
        "status",
        "text",
        (c) => c.notNull().defaultTo("pending").check(sql`status in ('pending', 'approved', 'denied')`),
      )
      .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(now))
      .addColumn("decided_at", "timestamptz")
      .execute();
    await db.schema.createIndex("access_requests_owner_idx").on("access_requests")
      .columns(["owner_id", "status"]).execute();
  },
};
