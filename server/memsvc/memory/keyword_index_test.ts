import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { sql } from "kysely";
import { parseQuery } from "../../../internal/fulltext/mod.ts";
import { insertUser, openTestStore, type TestStore } from "../_test_store.ts";
import { contentHash, newEntryId } from "./entry.ts";
import { KeywordIndex } from "./keyword_index.ts";

describe("KeywordIndex on the database", () => {
  let store: TestStore;
  const ADA = "u:ada|default";
  const PROJECT = "p_kw|default";

  before(async () => {
    store = await openTestStore();
    await insertUser(store.db, { id: "ada" });
    await insertUser(store.db, { id: "bob" });
    await store.db.insertInto("projects").values({ id: "p_kw", name: "kw", name_key: "kw", owner_id: "ada" })
      .execute();
  });
  after(() => store.close());

  /** Writes as another process would: straight into the table. */
  async function write(content: string, extra: { session_id?: string; user_id?: string } = {}) {
    const id = newEntryId();
    await store.db.insertInto("memory_entries").values({
      id,
      user_id: extra.user_id ?? "ada",
      project_id: null,
      namespace: "default",
      content,
      content_hash: await contentHash(content),
      session_id: extra.session_id ?? null,
    }).execute();
    return id;
  }
  const find = async (index: KeywordIndex, query: string, partitions = [ADA], k = 5) => {
    await index.sync();
    return index.search(parseQuery(query), new Set(partitions), k).map((h) => h.id);
  };

  it("finds a turn through its session neighbours, and rebuilds the same from the database", async () => {
    const index = new KeywordIndex(store.db);
    await write("The marina raised the mooring fees for sailboats again.");
    const ask = await write("I finally settled on a name for the sailboat.", { session_id: "s1" });
    await write("Exciting! What did you go with?", { session_id: "s1" });
    const answer = await write("Wandering Heron, after my grandmother's fishing village.", {
      session_id: "s1",
    });
    await write("Unrelated: the heron in the park is back.", { session_id: "s2" });
    const found = await find(index, "What name did I give my sailboat?");
    assert.equal(found[0], ask);
    // Without expansion the third turn holds no query word; with it, it is found.
    assert.ok(found.includes(answer), JSON.stringify(found));
    assert.deepEqual(index.neighbours(answer, 2).length, 2);
    // A new process (a restart after a crash) rebuilds the same answer from the rows alone.
    const fresh = new KeywordIndex(store.db);
    assert.deepEqual(await find(fresh, "What name did I give my sailboat?"), found);
  });

  it("follows deletes, scope moves, cold flags and other users' rows", async () => {
    const index = new KeywordIndex(store.db);
    const a = await write("Backups of the billing database run at 02:00 UTC.");
    const b = await write("The billing database lives on db-prod-3.");
    const bobs = await write("Bob's billing database notes.", { user_id: "bob" });
    assert.deepEqual((await find(index, "billing database")).sort(), [a, b].sort());
    assert.deepEqual(await find(index, "billing database", ["u:bob|default"]), [bobs]);

    await store.db.deleteFrom("memory_entries").where("id", "=", a).execute();
    assert.deepEqual(await find(index, "billing database"), [b]);

    await store.db.updateTable("memory_entries").set({ project_id: "p_kw" }).where("id", "=", b).execute();
    assert.deepEqual(await find(index, "billing database"), []);
    assert.deepEqual(await find(index, "billing database", [ADA, PROJECT]), [b]);

    await store.db.updateTable("memory_entries").set({ cold: true }).where("id", "=", b).execute();
    assert.deepEqual(await find(index, "billing database", [ADA, PROJECT]), []);
    await store.db.updateTable("memory_entries").set({
      cold: false,
      content: "The ledger lives on db-prod-3.",
    })
      .where("id", "=", b).execute();
    assert.deepEqual(await find(index, "billing database", [ADA, PROJECT]), []);
    assert.deepEqual(await find(index, "ledger", [ADA, PROJECT]), [b]);
    // A project's deletion cascades to its entries; the deletion log tells the index.
    await store.db.deleteFrom("projects").where("id", "=", "p_kw").execute();
    assert.deepEqual(await find(index, "ledger", [ADA, PROJECT]), []);
  });

  it("sees a write committed out of order below values it has already read", async () => {
    const index = new KeywordIndex(store.db);
    await find(index, "anything");
    // Take a sequence value, let a later write commit first, then commit the earlier one.
    const { rows } = await sql<{ n: string }>`select nextval('memory_change_seq') as n`.execute(store.db);
    const late = await write("A later write about kestrels.");
    assert.deepEqual(await find(index, "kestrels"), [late]);
    const early = newEntryId();
    await store.db.insertInto("memory_entries").values({
      id: early,
      user_id: "ada",
      project_id: null,
      namespace: "default",
      content: "An earlier write about kestrels, committed last.",
      content_hash: await contentHash("An earlier write about kestrels, committed last."),
      change_seq: rows[0]!.n,
    }).execute();
    assert.deepEqual((await find(index, "kestrels")).sort(), [early, late].sort());
  });
});
