/**
 * Passkeys (WebAuthn credentials) of the identity library's passkey plugin: one row per
 * credential, with its public key and signature counter; removed with the user. Column names are
 * the plugin's own field names, as for the library's other tables.
 */
import { sql } from "kysely";
import type { Migration } from "../../../../internal/db/mod.ts";

export const passkeys: Migration = {
  async up(db) {
    await db.schema.createTable("passkey")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("name", "text")
      .addColumn("publicKey", "text", (c) => c.notNull())
      .addColumn("userId", "text", (c) => c.notNull().references("user.id").onDelete("cascade"))
      .addColumn("credentialID", "text", (c) => c.notNull())
      .addColumn("counter", "integer", (c) => c.notNull())
      .addColumn("deviceType", "text", (c) => c.notNull())
      .addColumn("backedUp", "boolean", (c) => c.notNull())
      .addColumn("transports", "text")
      .addColumn("createdAt", "timestamptz", (c) => c.defaultTo(sql`CURRENT_TIMESTAMP`))
      .addColumn("aaguid", "text")
      .execute();
    await db.schema.createIndex("passkey_user_idx").on("passkey").column("userId").execute();
    await db.schema.createIndex("passkey_credential_idx").on("passkey").column("credentialID").execute();
  },
};
