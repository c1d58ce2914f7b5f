/**
 * The identity library's tables (better-auth with its admin and bearer plugins: user, session,
 * account, verification), in the column names it expects, plus our own user_tokens (API tokens,
 * stored only as SHA-256) and audit_log. Generated from better-auth's schema for 1.7 and kept here
 * so a binary never runs the library's own migrator.
 */
import { sql } from "kysely";
import { createAuditLogTable } from "../../../../internal/audit/mod.ts";
import type { Migration } from "../../../../internal/db/mod.ts";

export const identity: Migration = {
  async up(db) {
    const now = sql`CURRENT_TIMESTAMP`;
    await db.schema.createTable("user")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("name", "text", (c) => c.notNull())
      .addColumn("email", "text", (c) => c.notNull().unique())
      .addColumn("emailVerified", "boolean", (c) => c.notNull())
      .addColumn("image", "text")
      .addColumn("createdAt", "timestamptz", (c) => c.notNull().defaultTo(now))
      .addColumn("updatedAt", "timestamptz", (c) => c.notNull().defaultTo(now))
      .addColumn("role", "text")
      .addColumn("banned", "boolean")
      .addColumn("banReason", "text")
      .addColumn("banExpires", "timestamptz")
      .execute();
    await db.schema.createTable("session")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("expiresAt", "timestamptz", (c) => c.notNull())
      .addColumn("token", "text", (c) => c.notNull().unique())
      .addColumn("createdAt", "timestamptz", (c) => c.notNull().defaultTo(now))
      .addColumn("updatedAt", "timestamptz", (c) => c.notNull())
      .addColumn("ipAddress", "text")
      .addColumn("userAgent", "text")
      .addColumn("userId", "text", (c) => c.notNull().references("user.id").onDelete("cascade"))
      .addColumn("impersonatedBy", "text")
      .execute();
    await db.schema.createTable("account")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("accountId", "text", (c) => c.notNull())
      .addColumn("providerId", "text", (c) => c.notNull())
      .addColumn("userId", "text", (c) => c.notNull().references("user.id").onDelete("cascade"))
      .addColumn("accessToken", "text")
      .addColumn("refreshToken", "text")
      .addColumn("idToken", "text")
      .addColumn("accessTokenExpiresAt", "timestamptz")
      .addColumn("refreshTokenExpiresAt", "timestamptz")
      .addColumn("scope", "text")
      .addColumn("password", "text")
      .addColumn("createdAt", "timestamptz", (c) => c.notNull().defaultTo(now))
      .addColumn("updatedAt", "timestamptz", (c) => c.notNull())
      .execute();
    await db.schema.createTable("verification")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("identifier", "text", (c) => c.notNull())
      .addColumn("value", "text", (c) => c.notNull())
      .addColumn("expiresAt", "timestamptz", (c) => c.notNull())
      .addColumn("createdAt", "timestamptz", (c) => c.notNull().defaultTo(now))
      .addColumn("updatedAt", "timestamptz", (c) => c.notNull().defaultTo(now))
      .execute();
    await db.schema.createIndex("session_userId_idx").on("session").column("userId").execute();
    await db.schema.createIndex("account_userId_idx").on("account").column("userId").execute();
    await db.schema.createIndex("verification_identifier_idx").on("verification").column("identifier")
      .execute();

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
