/**
 * Decay state: a cold entry has gone unused for longer than its lifespan. Cold entries leave the
 * keyword tier (their vectors stay, so meaning-based recall can still find and promote them).
 */
import type { Migration } from "../../../../internal/db/mod.ts";

export const decay: Migration = {
  async up(db) {
    await db.schema.alterTable("memory_entries")
      .addColumn("cold", "boolean", (c) => c.notNull().defaultTo(false))
      .execute();
    await db.schema.createIndex("memory_entries_warm_idx").on("memory_entries")
      .columns(["cold", "last_accessed_at"]).execute();
  },
};
