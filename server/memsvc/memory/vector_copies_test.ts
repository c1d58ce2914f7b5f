import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { sql } from "kysely";
import { normalize, toBytes } from "../embeddings/mod.ts";
import { insertEntry, insertUser, openTestStore, type TestStore } from "../_test_store.ts";
import { KEEPS_COPIES } from "../../../internal/db/mod.ts";
import { ChangeMarksWatch } from "./change_marks.ts";
import { VectorCopies } from "./vector_copies.ts";

const MODEL = "test-model";
const vector = (...xs: number[]) => {
  const v = Float32Array.from(xs);
  normalize(v);
  return v;
};

describe("VectorCopies on the embedded database", () => {
  let store: TestStore;
  before(async () => {
    store = await openTestStore();
    await insertUser(store.db, { id: "ada" });
  });
  after(async () => await store.close());

  async function entry(content: string, v: Float32Array) {
    const id = await insertEntry(store.db, "ada", content);
    await store.db.insertInto("memory_vectors").values({ entry_id: id, model: MODEL, vector: toBytes(v) })
      .execute();
    return id;
  }
  const restore = (id: string, v: Float32Array) =>
    sql`update memory_vectors set vector = ${toBytes(v)}, seq = nextval('memory_vectors_seq')
         where entry_id = ${id}`.execute(store.db);
  const candidates = (...ids: string[]) => ids.map((id) => ({ id, score: 0 }));

  it("rescores from copies while nothing writes, and never from a stale copy", async () => {
    const copies = new VectorCopies(store.db, MODEL);
    const a = await entry("first", vector(1, 0, 0));
    const b = await entry("second", vector(0, 1, 0));
    const query = vector(1, 1, 0);

    const first = await copies.rescore(query, candidates(a, b));
    assert.deepEqual(first.map((n) => n.id).sort(), [a, b].sort());
    assert.ok(Math.abs(first[0]!.score - Math.SQRT1_2) < 1e-6);
    assert.deepEqual(copies.counts, { copied: 0, read: 2 });
    const again = await copies.rescore(query, candidates(a, b));
    assert.deepEqual(again, first, "the same answer");
    assert.deepEqual(copies.counts, { copied: 2, read: 2 }, "from the copies");

    // A's vector stored again (an update of its content): the next search must see the new one.
    await restore(a, vector(-1, 0, 0));
    const changed = await copies.rescore(query, candidates(a, b));
    assert.equal(changed[0]!.id, b);
    assert.ok(Math.abs(changed.find((n) => n.id === a)!.score + Math.SQRT1_2) < 1e-6, "A's new cosine");
    assert.deepEqual(copies.counts, { copied: 2, read: 4 }, "every copy dropped");

    // A deleted (by any path): its copy goes, and so does the candidate.
    await copies.rescore(query, candidates(a, b));
    await store.db.deleteFrom("memory_entries").where("id", "=", a).execute();
    const gone = await copies.rescore(query, candidates(a, b));
    assert.deepEqual(gone.map((n) => n.id), [b]);
  });

  it("keeps nothing off the embedded database", async () => {
    const a = await entry("third", vector(0, 0, 1));
    await store.db.transaction().execute(async (trx) => {
      // A handle without a write count (as PostgreSQL's): every candidate is read, none kept.
      const other = new VectorCopies(trx, MODEL);
      await other.rescore(vector(0, 0, 1), candidates(a));
      other.stored([{ id: a, vector: vector(0, 0, 1) }], other.since());
      await other.rescore(vector(0, 0, 1), candidates(a));
      assert.deepEqual(other.counts, { copied: 0, read: 2 });
      assert.equal(other.size, 0);
    });
  });

  it("takes handed-over vectors, and drops what a read in flight met before a hand-over", async () => {
    const copies = new VectorCopies(store.db, MODEL);
    const a = await entry("fifth", vector(1, 0, 0));
    // A read of the old vector starts; the backlog stores a new one and hands it over meanwhile.
    const since = copies.since();
    const reading = copies.rescore(vector(1, 0, 0), candidates(a));
    await sql`${sql.raw(KEEPS_COPIES)} update memory_vectors set vector = ${toBytes(vector(0, 1, 0))}
      where entry_id = ${a}`.execute(store.db);
    copies.stored([{ id: a, vector: vector(0, 1, 0) }], since);
    await reading;
    const [now] = await copies.rescore(vector(0, 1, 0), candidates(a));
    assert.ok(Math.abs(now!.score - 1) < 1e-6, "the handed-over vector, not the one read before it");
    assert.equal(copies.counts.copied, 1);

    // A hand-over after another write (here a delete) is not taken: that write may have changed it.
    const b = await entry("sixth", vector(0, 0, 1));
    const before = copies.since();
    await store.db.deleteFrom("memory_entries").where("id", "=", a).execute();
    copies.stored([{ id: b, vector: vector(0, 0, 1) }], before);
    assert.equal(copies.size, 0);
  });

  it("ChangeMarksWatch reads again after any statement that may write, and only then", async () => {
    const watch = new ChangeMarksWatch(store.db);
    const before = await watch.read();
    assert.deepEqual(await watch.read(), before);
    const id = await entry("fourth", vector(1, 1, 1));
    const after = await watch.read();
    assert.ok(after.entries > before.entries && after.vectors > before.vectors);
    await store.db.deleteFrom("memory_entries").where("id", "=", id).execute();
    assert.ok((await watch.read()).entries > after.entries, "a delete's number is seen");
  });
});
