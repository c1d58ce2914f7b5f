/**
 * engine_state: small named values the engine keeps across restarts, such as the instance id and
 * the cursors of background loops, so a restart resumes where the last run stopped.
 */
import { sql } from "kysely";
import type { Migration } from "../../../../internal/db/mod.ts";

export const engineState: Migration = {
  async up(db) {
    await db.schema.createTable("engine_state")
      .addColumn("key", "text", (c) => c.primaryKey())
      .addColumn("value", "jsonb", (c) => c.notNull())
      .addColumn("updated_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
      .execute();
  },
};
