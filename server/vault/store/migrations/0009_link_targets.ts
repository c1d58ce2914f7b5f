/**
 * Links resolved by the database, in any order (issue 38): a link written before its target exists
 * is kept unresolved and resolves when the target appears; creating, moving or deleting a file
 * re-resolves exactly the links that may name it (server/vault/search/link_targets.ts).
 *
 * - vault_files: every file of each user's vault (notes, canvases, attachments), with its lower-case
 *   name: what links resolve against, the same on every replica.
 * - note_links: each link as written (`target`, and `dest` for Markdown links) with the lower-case
 *   name it can resolve to (`name`) and what it resolves to now (`target_path`, null when nothing).
 *   The old table held only resolved targets (or the text, resolved never again), so it is rebuilt:
 *   every note's size and hash are marked unknown, which makes the catch-up at the next start re-read each
 *   note and write its links, and list every file.
 */
import { sql } from "kysely";
import type { Migration } from "../../../../internal/db/mod.ts";

export const linkTargets: Migration = {
  async up(db) {
    await db.schema.createTable("vault_files")
      .addColumn("user_id", "text", (c) => c.notNull())
      .addColumn("path", "text", (c) => c.notNull())
      .addColumn("name", "text", (c) => c.notNull())
      .addPrimaryKeyConstraint("vault_files_pkey", ["user_id", "path"])
      .execute();
    await db.schema.createIndex("vault_files_name_idx").on("vault_files").columns(["user_id", "name"])
      .execute();

    await db.schema.dropTable("note_links").execute();
    await db.schema.createTable("note_links")
      .addColumn("user_id", "text", (c) => c.notNull())
      .addColumn("source_path", "text", (c) => c.notNull())
      /** wiki ([[target]]), embed (![[target]], ![](target)) or markdown ([text](target)). */
      .addColumn("kind", "text", (c) => c.notNull().check(sql`kind in ('wiki', 'embed', 'markdown')`))
      .addColumn("target", "text", (c) => c.notNull())
      /** '' for wiki links. */
      .addColumn("dest", "text", (c) => c.notNull().defaultTo(""))
      .addColumn("name", "text", (c) => c.notNull())
      .addColumn("target_path", "text")
      .addPrimaryKeyConstraint("note_links_pkey", ["user_id", "source_path", "kind", "target", "dest"])
      .execute();
    await db.schema.createIndex("note_links_target_idx").on("note_links")
      .columns(["user_id", "target_path"]).execute();
    await db.schema.createIndex("note_links_name_idx").on("note_links").columns(["user_id", "name"])
      .execute();
    await sql`update note_index set size = -1, content_hash = ''`.execute(db);
  },
};
