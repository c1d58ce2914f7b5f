/**
 * The notes' search index and link graph. The Markdown files are the source of truth; these tables
 * are derived from them and can be rebuilt at any time (server/vault/search/).
 *
 * - note_index: one row per note per user, with a full-text document `tsv` written by the indexer
 *   (not a generated column: it weights title A, tags B and body C, and holds each part twice, once
 *   under the `english` configuration (stems: "running" finds "runs") and once under `simple`
 *   (exact lower-cased words: stop words, code identifiers, non-English words and prefixes of
 *   unstemmed words still match)). `body` keeps the indexed text for highlighted snippets.
 * - tsv also holds lexemes for the owner, the tags and the folder of the note
 *   (server/vault/search/filter_lexemes.ts), so the GIN index alone answers text, user, tag and
 *   folder together; no other index is needed for searching.
 * - tag_keys: lower-cased tags plus their ancestors ("project/alpha" also files under "project"),
 *   the way Obsidian's tag search matches nested tags.
 * - note_links: the outgoing links of each note as the notes library resolved them; a target with
 *   no note_index row is a dangling link. Backlinks read it by (user, target).
 *
 * user_id is the identity library's user id. There is no foreign key to the user table, so this
 * index stays independent of how identity names it; removing a user removes its rows through
 * `removeUserIndex` (server/vault/search/note_index.ts).
 */
import { sql } from "kysely";
import type { Migration } from "../../../../internal/db/mod.ts";

export const notesIndex: Migration = {
  async up(db) {
    await db.schema.createTable("note_index")
      .addColumn("user_id", "text", (c) => c.notNull())
      .addColumn("path", "text", (c) => c.notNull())
      /** The path's folder, "" at the root. */
      .addColumn("folder", "text", (c) => c.notNull())
      .addColumn("title", "text", (c) => c.notNull())
      .addColumn("tags", sql`text[]`, (c) => c.notNull().defaultTo(sql`'{}'::text[]`))
      .addColumn("tag_keys", sql`text[]`, (c) => c.notNull().defaultTo(sql`'{}'::text[]`))
      .addColumn("content_hash", "text", (c) => c.notNull())
      .addColumn("mtime", "timestamptz", (c) => c.notNull())
      .addColumn("size", "integer", (c) => c.notNull())
      .addColumn("body", "text", (c) => c.notNull())
      .addColumn("tsv", sql`tsvector`, (c) => c.notNull())
      .addColumn("indexed_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
      .addPrimaryKeyConstraint("note_index_pkey", ["user_id", "path"])
      .execute();
    // Ranking reads the tsvector of every match: kept in the row (compressed) it is read without
    // a TOAST lookup, which measured 2.5 times faster on PGlite. The body, read only for the page's
    // snippets, goes out of line first, so the rows a search scans stay small.
    await sql`alter table note_index alter column tsv set storage main`.execute(db);
    await sql`alter table note_index alter column body set storage external`.execute(db);
    // New entries wait in the GIN index's pending list, which every search reads through; PGlite
    // has no autovacuum to flush it, so it would grow to the default 4 MB. At 256 kB, searches at
    // 10k notes measured 20% faster, and a bulk build still batches its index inserts.
    await sql`create index note_index_tsv_idx on note_index using gin (tsv)
      with (gin_pending_list_limit = 256)`.execute(db);

    await db.schema.createTable("note_links")
      .addColumn("user_id", "text", (c) => c.notNull())
      .addColumn("source_path", "text", (c) => c.notNull())
      .addColumn("target_path", "text", (c) => c.notNull())
      /** wiki ([[target]]), embed (![[target]]) or markdown ([text](target)). */
      .addColumn("kind", "text", (c) => c.notNull().check(sql`kind in ('wiki', 'embed', 'markdown')`))
      .addPrimaryKeyConstraint("note_links_pkey", ["user_id", "source_path", "target_path", "kind"])
      .execute();
    await db.schema.createIndex("note_links_target_idx").on("note_links")
      .columns(["user_id", "target_path"]).execute();
  },
};
