import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { sql } from "kysely";
import { insertEntry, insertUser, openTestStore, type TestStore } from "../_test_store.ts";
import { EntryCopies } from "./entry_copies.ts";
import { bumpHits } from "./hit_counts.ts";

describe("EntryCopies on the embedded database", () => {
  let store: TestStore;
  before(async () => {
    store = await openTestStore();
    await insertUser(store.db, { id: "ada" });
  });
  after(async () => await store.close());

  async function entry(content: string) {
    return await insertEntry(store.db, "ada", content);
  }
  const byId = <R extends { id: string }>(rows: R[]) => new Map(rows.map((r) => [r.id, r]));

  it("answers from copies until anything is written, then reads what the database holds", async () => {
    const copies = new EntryCopies(store.db);
    const a = await entry("The VPN gateway moved to the new data centre.");
    const b = await entry("Certificates renew on the first of the month.");
    assert.equal((await copies.read([a, b])).length, 2);
    assert.deepEqual(copies.counts, { copied: 0, read: 2 });
    assert.equal((await copies.read([a, b, "m_missing"])).length, 2);
    assert.deepEqual(copies.counts, { copied: 2, read: 3 }, "copies, and the unknown id read");

    // Columns no change mark covers: confidence, hit counts, last access.
    await sql`update memory_entries set confidence = 0.25 where id = ${a}`.execute(store.db);
    assert.equal(byId(await copies.read([a, b])).get(a)!.confidence, 0.25);
    await bumpHits(store.db, 7, new Map([[b, 3]]));
    const rows = byId(await copies.read([a, b]));
    assert.equal(rows.get(b)!.hit_count, 3);
    assert.ok(rows.get(b)!.last_accessed_at);
    assert.equal(byId(await copies.read([a, b])).get(b)!.hit_count, 3, "and from the copy after");

    // Moved to another namespace, then deleted: a copy never outlives either.
    await store.db.updateTable("memory_entries").set({ namespace: "work" }).where("id", "=", a).execute();
    assert.equal(byId(await copies.read([a])).get(a)!.namespace, "work");
    await store.db.deleteFrom("memory_entries").where("id", "=", a).execute();
    assert.deepEqual((await copies.read([a, b])).map((r) => r.id), [b]);
  });

  it("keeps copies right through this process's own hit count writes", async () => {
    const copies = new EntryCopies(store.db);
    const a = await entry("The release train leaves every second Tuesday.");
    const b = await entry("Hotfixes skip the release train.");
    await copies.read([a, b]);
    await bumpHits(store.db, 7, new Map([[a, 2]]), copies);
    const before = copies.counts.copied;
    const rows = byId(await copies.read([a, b]));
    assert.equal(copies.counts.copied, before + 2, "both still copies");
    assert.equal(rows.get(a)!.hit_count, 2, "with the hits written");
    assert.ok(rows.get(a)!.last_accessed_at);
    const stored = await store.db.selectFrom("memory_entries").select(["hit_count", "last_accessed_at"])
      .where("id", "=", a).executeTakeFirstOrThrow();
    assert.deepEqual(
      [rows.get(a)!.hit_count, rows.get(a)!.last_accessed_at],
      [stored.hit_count, stored.last_accessed_at],
    );

    // Another write beside the hit count write: nothing is patched, everything read again.
    await Promise.all([
      bumpHits(store.db, 7, new Map([[b, 1]]), copies),
      sql`update memory_entries set confidence = 0.5 where id = ${a}`.execute(store.db),
    ]);
    const read = copies.counts.read;
    const after = byId(await copies.read([a, b]));
    assert.equal(copies.counts.read, read + 2, "read again");
    assert.equal(after.get(a)!.confidence, 0.5);
    assert.equal(after.get(b)!.hit_count, 1);
  });

  it("keeps nothing on a handle without a write count (as on PostgreSQL)", async () => {
    const a = await entry("The on-call rota changes on Mondays.");
    await store.db.transaction().execute(async (trx) => {
      const copies = new EntryCopies(trx);
      await copies.read([a]);
      await copies.read([a]);
      assert.deepEqual(copies.counts, { copied: 0, read: 2 });
      assert.equal(copies.size, 0);
    });
  });
});
