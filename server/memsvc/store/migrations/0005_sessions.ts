/**
 * Conversations and change tracking for the in-process full-text index.
 *
 * - `session_id`: memories of one user with the same session id, in capture order, are one
 *   conversation. `capture_seq` is that order (a sequence, not created_at: writes committed together
 *   share a timestamp); existing rows are numbered by creation time.
 * - `change_seq` moves on every insert and on every update that changes what the search index holds
 *   (content, metadata, source type, session, scope, cold), not on hit bumps, so an index catches up
 *   by reading rows past the last change it saw, whichever process wrote them.
 * - `memory_deletions` logs deleted ids (a trigger, so cascades from projects and users count too)
 *   for the same catch-up.
 * - The `tsv` column and its GIN index go: nothing reads them since the keyword tier moved in process.
 * Old entries keep every other column as it was.
 */
import { sql } from "kysely";
import type { Migration } from "../../../../internal/db/mod.ts";

export const sessions: Migration = {
  async up(db) {
    await sql`create sequence memory_capture_seq`.execute(db);
    await sql`create sequence memory_change_seq`.execute(db);
    await db.schema.alterTable("memory_entries")
      .addColumn("session_id", "text")
      .addColumn("capture_seq", "bigint")
      .addColumn("change_seq", "bigint")
      .execute();
    await sql`update memory_entries m set capture_seq = o.n, change_seq = o.n
      from (select id, row_number() over (order by created_at, id) as n from memory_entries) o
      where m.id = o.id`.execute(db);
    await sql`select setval('memory_capture_seq', greatest((select count(*) from memory_entries), 1))`
      .execute(db);
    await sql`select setval('memory_change_seq', greatest((select count(*) from memory_entries), 1))`
      .execute(db);
    await sql`alter table memory_entries
      alter column capture_seq set default nextval('memory_capture_seq'),
      alter column capture_seq set not null,
      alter column change_seq set default nextval('memory_change_seq'),
      alter column change_seq set not null`.execute(db);
    await db.schema.createIndex("memory_entries_session_idx").on("memory_entries")
      .columns(["user_id", "session_id", "capture_seq"]).where(sql.ref("session_id"), "is not", null)
      .execute();
    await db.schema.createIndex("memory_entries_change_idx").on("memory_entries").column("change_seq")
      .execute();
    await sql`create function memory_entries_changed() returns trigger language plpgsql as $$
      begin new.change_seq := nextval('memory_change_seq'); return new; end $$`.execute(db);
    await sql`create trigger memory_entries_changed before update on memory_entries for each row
      when (old.content is distinct from new.content or old.metadata is distinct from new.metadata
        or old.source_type is distinct from new.source_type or old.session_id is distinct from new.session_id
        or old.project_id is distinct from new.project_id or old.namespace is distinct from new.namespace
        or old.cold is distinct from new.cold)
      execute function memory_entries_changed()`.execute(db);

    await db.schema.createTable("memory_deletions")
      .addColumn("seq", "bigint", (c) => c.notNull().defaultTo(sql`nextval('memory_change_seq')`))
      .addColumn("entry_id", "text", (c) => c.notNull())
      .addColumn("deleted_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
      .execute();
    await db.schema.createIndex("memory_deletions_seq_idx").on("memory_deletions").column("seq").execute();
    await sql`create function memory_entries_deleted() returns trigger language plpgsql as $$
      begin insert into memory_deletions (entry_id) values (old.id); return old; end $$`.execute(db);
    await sql`create trigger memory_entries_deleted after delete on memory_entries for each row
      execute function memory_entries_deleted()`.execute(db);

    // The keyword tier ranks in process now: the generated text vector and its GIN index only cost
    // every write (a to_tsvector and a GIN insert).
    await sql`drop index memory_entries_tsv_idx`.execute(db);
    await db.schema.alterTable("memory_entries").dropColumn("tsv").execute();
  },
};
