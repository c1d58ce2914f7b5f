/**
 * Collaborative documents kept across restarts and evictions: every Yjs update appended to a log as it
 * arrives, and a snapshot (the whole state, and the note text last written to or read from the file)
 * that compaction rewrites, deleting the log rows it covers. A document loads from snapshot + log.
 */
import { sql } from "kysely";
import type { Migration } from "../../../../internal/db/mod.ts";

export const collabLog: Migration = {
  async up(db) {
    const now = sql`CURRENT_TIMESTAMP`;
    await db.schema.createTable("collab_updates")
      .addColumn("id", "bigserial", (c) => c.primaryKey())
      .addColumn("owner_id", "text", (c) => c.notNull().references("user.id").onDelete("cascade"))
      .addColumn("path", "text", (c) => c.notNull())
      .addColumn("update", "bytea", (c) => c.notNull())
      .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(now))
      .execute();
    await db.schema.createIndex("collab_updates_doc_idx").on("collab_updates")
      .columns(["owner_id", "path", "id"]).execute();

    await db.schema.createTable("collab_snapshots")
      .addColumn("owner_id", "text", (c) => c.notNull().references("user.id").onDelete("cascade"))
      .addColumn("path", "text", (c) => c.notNull())
      .addColumn("state", "bytea", (c) => c.notNull())
      .addColumn("file_text", "text", (c) => c.notNull())
      .addColumn("updated_at", "timestamptz", (c) => c.notNull().defaultTo(now))
      .addPrimaryKeyConstraint("collab_snapshots_pk", ["owner_id", "path"])
      .execute();
  },
};
