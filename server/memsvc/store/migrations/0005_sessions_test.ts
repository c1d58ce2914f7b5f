import { after, describe, it } from "node:test";
import assert from "node:assert/strict";
import { sql } from "kysely";
import { freshDataDir, removeDataDirs } from "../../../../internal/db/_test_data_dir.ts";
import { migrate, openDatabase } from "../../../../internal/db/mod.ts";
import { runDecay } from "../../maintenance/decay.ts";
import type { MemsvcDatabase } from "../db.ts";
import { migrations } from "./mod.ts";

describe("migration 0005_sessions", () => {
  after(() => removeDataDirs());

  it("moves old data forward: capture order by creation, no sessions; changes and deletes are logged, the log pruned", async () => {
    const database = await openDatabase<MemsvcDatabase>({ dataDir: await freshDataDir() });
    const { db } = database;
    try {
      const before = Object.fromEntries(Object.entries(migrations).filter(([name]) => name < "0005"));
      await migrate(db, before);
      await sql`insert into "user" (id, name, email, "emailVerified", role)
        values ('ada', 'Ada', 'ada@example.test', false, 'user')`.execute(db);
      // Ids out of creation order: capture order must follow created_at.
      for (const [id, at] of [["m_c", "2025-01-01"], ["m_a", "2025-01-03"], ["m_b", "2025-01-02"]]) {
        await sql`insert into memory_entries (id, user_id, namespace, content, content_hash, created_at)
          values (${id}, 'ada', 'default', ${`old entry ${id}`}, ${id}, ${at}::timestamptz)`.execute(db);
      }
      await migrate(db, migrations);

      const rows = await db.selectFrom("memory_entries").select([
        "id",
        "session_id",
        "capture_seq",
        "change_seq",
      ])
        .orderBy("capture_seq").execute();
      assert.deepEqual(rows.map((r) => [r.id, r.session_id]), [["m_c", null], ["m_b", null], ["m_a", null]]);
      const newest = Math.max(...rows.map((r) => Number(r.change_seq)));

      await db.insertInto("memory_entries").values({
        id: "m_new",
        user_id: "ada",
        project_id: null,
        content: "a new entry",
        content_hash: "h",
        session_id: "s1",
      }).execute();
      const seqOf = async (id: string) =>
        await db.selectFrom("memory_entries").select(["capture_seq", "change_seq"]).where("id", "=", id)
          .executeTakeFirstOrThrow();
      const fresh = await seqOf("m_new");
      assert.ok(Number(fresh.capture_seq) > Number(rows.at(-1)!.capture_seq));
      assert.ok(Number(fresh.change_seq) > newest);

      // Hit bumps do not count as changes; content, session and cold do.
      await db.updateTable("memory_entries").set({ hit_count: 5, last_accessed_at: new Date() })
        .where("id", "=", "m_a").execute();
      const bumped = await seqOf("m_a");
      assert.equal(bumped.change_seq, rows.find((r) => r.id === "m_a")!.change_seq);
      for (const set of [{ content: "changed" }, { session_id: "s2" }, { cold: true }]) {
        const prior = (await seqOf("m_a")).change_seq;
        await db.updateTable("memory_entries").set(set).where("id", "=", "m_a").execute();
        const now = await seqOf("m_a");
        assert.ok(Number(now.change_seq) > Number(prior), JSON.stringify(set));
        assert.equal(now.capture_seq, bumped.capture_seq);
      }
      await db.deleteFrom("memory_entries").where("id", "=", "m_b").execute();
      const logged = await db.selectFrom("memory_deletions").select(["entry_id", "seq"]).execute();
      assert.deepEqual(logged.map((d) => d.entry_id), ["m_b"]);
      // Decay's run prunes log rows older than a day, and only those.
      await db.deleteFrom("memory_entries").where("id", "=", "m_c").execute();
      await db.updateTable("memory_deletions").set({ deleted_at: sql`now() - interval '2 days'` })
        .where("entry_id", "=", "m_b").execute();
      await runDecay(db, 7);
      const kept = await db.selectFrom("memory_deletions").select("entry_id").execute();
      assert.deepEqual(kept.map((d) => d.entry_id), ["m_c"]);
    } finally {
      await database.close();
    }
  });
});
