/**
 * Plugins: which installed plugins are enabled (and the generation of that choice, which replicas
 * follow) and their global settings; each user's own settings of
 * a plugin; and every plugin's key-value store, keyed by plugin id first so one plugin never reads
 * another's rows (scope '' is the plugin's global space, otherwise a user's id).
 */
import { sql } from "kysely";
import type { Migration } from "../../../../internal/db/mod.ts";

export const plugins: Migration = {
  async up(db) {
    const now = sql`CURRENT_TIMESTAMP`;
    await db.schema.createTable("plugins")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("enabled", "boolean", (c) => c.notNull().defaultTo(false))
      // Bumped by every enable and disable: replicas act on a generation they have not seen.
      .addColumn("generation", "integer", (c) => c.notNull().defaultTo(0))
      .addColumn("settings", "jsonb", (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
      .addColumn("updated_at", "timestamptz", (c) => c.notNull().defaultTo(now))
      .execute();
    await db.schema.createTable("plugin_user_settings")
      .addColumn("plugin_id", "text", (c) => c.notNull())
      .addColumn("user_id", "text", (c) => c.notNull().references("user.id").onDelete("cascade"))
      .addColumn("settings", "jsonb", (c) => c.notNull())
      .addPrimaryKeyConstraint("plugin_user_settings_pk", ["plugin_id", "user_id"])
      .execute();
    await db.schema.createTable("plugin_storage")
      .addColumn("plugin_id", "text", (c) => c.notNull())
      .addColumn("scope", "text", (c) => c.notNull())
      .addColumn("key", "text", (c) => c.notNull())
      .addColumn("value", "jsonb", (c) => c.notNull())
      .addColumn("updated_at", "timestamptz", (c) => c.notNull().defaultTo(now))
      .addPrimaryKeyConstraint("plugin_storage_pk", ["plugin_id", "scope", "key"])
      .execute();
  },
};
