import { after, describe, it } from "node:test";
import assert from "node:assert/strict";
import { sql } from "kysely";
import { freshDataDir, removeDataDirs } from "../../../../internal/db/_test_data_dir.ts";
import { migrate, openDatabase } from "../../../../internal/db/mod.ts";
import { bumpHits } from "../../memory/hit_counts.ts";
import type { MemsvcDatabase } from "../db.ts";
import { migrations } from "./mod.ts";

describe("migration 0007_hot_hits", () => {
  after(() => removeDataDirs());

  it("makes a hit bump a heap-only update, and keeps what was there", async () => {
    const database = await openDatabase<MemsvcDatabase>({ dataDir: await freshDataDir() });
    const { db } = database;
    try {
      const before = Object.fromEntries(Object.entries(migrations).filter(([name]) => name < "0007"));
      await migrate(db, before);
      await sql`insert into "user" (id, name, email, "emailVerified", role)
        values ('ada', 'Ada', 'ada@example.test', false, 'user')`.execute(db);
      const insert = (from: number, to: number) =>
        sql`insert into memory_entries (id, user_id, namespace, content, content_hash)
          select 'm' || g, 'ada', 'default', 'entry ' || g, 'h' || g from generate_series(${from}::int, ${to}::int) g`
          .execute(db);
      await insert(1, 50);
      await migrate(db, migrations);
      await insert(51, 100);

      const hotUpdates = async () => {
        await sql`select pg_stat_force_next_flush()`.execute(db);
        const { rows } = await sql<{ upd: string; hot: string }>`
          select n_tup_upd::text as upd, n_tup_hot_upd::text as hot from pg_stat_user_tables
           where relname = 'memory_entries'`.execute(db);
        return { updates: Number(rows[0]!.upd), hot: Number(rows[0]!.hot) };
      };
      const start = await hotUpdates();
      // Rows written after the migration: pages with room, no index on the bumped columns.
      await bumpHits(db, 7, new Map(Array.from({ length: 20 }, (_, i) => [`m${61 + i}`, 2])));
      const end = await hotUpdates();
      assert.equal(end.updates - start.updates, 20);
      assert.equal(end.hot - start.hot, 20, "every bump is a heap-only update");

      const rows = await db.selectFrom("memory_entries").select(["id", "hit_count"])
        .where("id", "in", ["m1", "m61", "m100"]).orderBy("id").execute();
      assert.deepEqual(rows.map((r) => [r.id, r.hit_count]), [["m1", 0], ["m100", 0], ["m61", 2]]);
      const { rows: indexes } = await sql<{ indexname: string }>`
        select indexname from pg_indexes where tablename = 'memory_entries' and indexname = 'memory_entries_warm_idx'`
        .execute(db);
      assert.deepEqual(indexes, []);
    } finally {
      await database.close();
    }
  });
});
