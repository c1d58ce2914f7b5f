/**
 * The identity library's tables (internal/auth: user, session, account, verification), plus our
 * own user_tokens (API tokens, stored only as SHA-256) and audit_log (internal/audit).
 */
import { sql } from "kysely";
import { createAuditLogTable } from "../../../../internal/audit/mod.ts";
import { createIdentityTables } from "../../../../internal/auth/identity_tables.ts";
import type { Migration } from "../../../../internal/db/mod.ts";

export const identity: Migration = {
  async up(db) {
    const now = sql`CURRENT_TIMESTAMP`;
    await createIdentityTables(db);

    await db.schema.createTable("user_tokens")
      .addColumn("token_hash", "text", (c) => c.primaryKey())
      .addColumn("user_id", "text", (c) => c.notNull().references("user.id").onDelete("cascade"))
      .addColumn("label", "text", (c) => c.notNull())
      .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(now))
      .addColumn("last_used_at", "timestamptz")
      .execute();
    await db.schema.createIndex("user_tokens_user_id_idx").on("user_tokens").column("user_id").execute();

    await createAuditLogTable(db);
  },
};
