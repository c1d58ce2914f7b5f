/**
 * Each user's web-app preferences (sidebar layout, editor toggles) as one JSON document, so they
 * follow the user from device to device; a row goes with its user.
 */
import { sql } from "kysely";
import type { Migration } from "../../../../internal/db/mod.ts";

export const preferences: Migration = {
  async up(db) {
    await db.schema.createTable("user_preferences")
      .addColumn("user_id", "text", (c) => c.primaryKey().references("user.id").onDelete("cascade"))
      .addColumn("preferences", "jsonb", (c) => c.notNull())
      .addColumn("updated_at", "timestamptz", (c) => c.notNull().defaultTo(sql`CURRENT_TIMESTAMP`))
      .execute();
  },
};
