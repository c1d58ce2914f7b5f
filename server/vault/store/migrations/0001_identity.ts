/**
 * The vault's identity: the identity library's tables (internal/auth), the registration settings
 * (seeded invite-only), invite codes, API keys (stored as SHA-256, with their rate window) and the
 * audit log (internal/audit).
 */
import { sql } from "kysely";
import { createAuditLogTable } from "../../../../internal/audit/mod.ts";
import { createIdentityTables } from "../../../../internal/auth/mod.ts";
import type { Migration } from "../../../../internal/db/mod.ts";

export const identity: Migration = {
  async up(db) {
    const now = sql`CURRENT_TIMESTAMP`;
    await createIdentityTables(db);

    await db.schema.createTable("settings")
      .addColumn("key", "text", (c) => c.primaryKey())
      .addColumn("value", "text", (c) => c.notNull())
      .addColumn("updated_at", "timestamptz", (c) => c.notNull().defaultTo(now))
      .execute();
    // Invite-only from the first start (the reference's default since 3.1.0).
    await db.insertInto("settings").values({ key: "registration_mode", value: "invite-only" }).execute();

    await db.schema.createTable("invite_codes")
      // Invites are named by id in URLs and logs; the code itself is a secret until claimed.
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("code", "text", (c) => c.notNull().unique())
      .addColumn("created_by", "text", (c) => c.references("user.id").onDelete("set null"))
      .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(now))
      .addColumn("expires_at", "timestamptz")
      // used_at marks the claim for good; used_by is cleared if that user is removed. Checked at
      // commit: registration claims the code before it inserts the user, in one transaction.
      .addColumn("used_by", "text")
      .addColumn("used_at", "timestamptz")
      .addColumn("revoked_at", "timestamptz")
      .addForeignKeyConstraint(
        "invite_codes_used_by_fk",
        ["used_by"],
        "user",
        ["id"],
        (fk) => fk.onDelete("set null").deferrable().initiallyDeferred(),
      )
      .execute();

    await db.schema.createTable("api_keys")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("user_id", "text", (c) => c.notNull().references("user.id").onDelete("cascade"))
      .addColumn("name", "text", (c) => c.notNull())
      .addColumn("prefix", "text", (c) => c.notNull())
      .addColumn("key_hash", "text", (c) => c.notNull().unique())
      .addColumn("scope", "text", (c) => c.notNull().check(sql`scope in ('read', 'read-write')`))
      .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(now))
      .addColumn("expires_at", "timestamptz")
      .addColumn("last_used_at", "timestamptz")
      // The per-key rate limit lives here, so every replica counts the same requests.
      .addColumn("window_start", "timestamptz", (c) => c.notNull().defaultTo(now))
      .addColumn("window_count", "integer", (c) => c.notNull().defaultTo(0))
      .execute();
    await db.schema.createIndex("api_keys_user_id_idx").on("api_keys").column("user_id").execute();

    await createAuditLogTable(db);
  },
};
