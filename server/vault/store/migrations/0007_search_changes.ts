/**
 * The search moves in process (server/vault/search/note_search_index.ts: internal/fulltext, one index
 * per owner, built from `note_index` on a user's first search). What it needs from the database is
 * how to catch up, after a restart and across replicas, like memsvc's keyword index:
 *
 * - `note_index.change_seq` moves on every insert and update (a trigger: upserts, moves, mtime
 *   refreshes alike); existing rows get values now, so old data is indexed on the first search.
 * - `note_deletions` logs the (user, path) of every row deleted, and of the old path of every row
 *   moved, with a value of the same sequence, so one ordered stream says what changed.
 * - The `tsv` column and its GIN index go: nothing reads them, and they cost every write a
 *   to_tsvector of the whole note and a GIN insert.
 */
import { sql } from "kysely";
import type { Migration } from "../../../../internal/db/mod.ts";

export const searchChanges: Migration = {
  async up(db) {
    await sql`create sequence note_change_seq`.execute(db);
    // A volatile default fills the existing rows, one value each.
    await sql`alter table note_index add column change_seq bigint not null default nextval('note_change_seq')`
      .execute(db);
    await db.schema.createIndex("note_index_change_idx").on("note_index").column("change_seq").execute();
    await sql`create function note_index_changed() returns trigger language plpgsql as $$
      begin new.change_seq := nextval('note_change_seq'); return new; end $$`.execute(db);
    await sql`create trigger note_index_changed before update on note_index for each row
      execute function note_index_changed()`.execute(db);

    await db.schema.createTable("note_deletions")
      .addColumn("seq", "bigint", (c) => c.notNull().defaultTo(sql`nextval('note_change_seq')`))
      .addColumn("user_id", "text", (c) => c.notNull())
      .addColumn("path", "text", (c) => c.notNull())
      .addColumn("deleted_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
      .execute();
    await db.schema.createIndex("note_deletions_seq_idx").on("note_deletions").column("seq").execute();
    await sql`create function note_index_gone() returns trigger language plpgsql as $$
      begin
        if tg_op = 'DELETE' or old.user_id <> new.user_id or old.path <> new.path then
          insert into note_deletions (user_id, path) values (old.user_id, old.path);
        end if;
        return null;
      end $$`.execute(db);
    await sql`create trigger note_index_gone after delete or update on note_index for each row
      execute function note_index_gone()`.execute(db);

    await sql`drop index note_index_tsv_idx`.execute(db);
    await db.schema.alterTable("note_index").dropColumn("tsv").execute();
  },
};
