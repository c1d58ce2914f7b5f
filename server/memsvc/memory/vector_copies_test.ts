import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { sql } from "kysely";
import { normalize, toBytes } from "../embeddings/mod.ts";
import { insertEntry, insertUser, openTestStore, type TestStore } from "../_test_store.ts";
import { ChangeMarksWatch, readChangeMarks } from "./change_marks.ts";
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

  it("rescores from copies while the marks stand still, and never from a stale copy", async () => {
    const copies = new VectorCopies(store.db, MODEL);
    const marks = new ChangeMarksWatch(store.db);
    const a = await entry("first", vector(1, 0, 0));
    const b = await entry("second", vector(0, 1, 0));
    const query = vector(1, 1, 0);

    const first = await copies.rescore(query, candidates(a, b), await marks.read());
    assert.deepEqual(first.map((n) => n.id).sort(), [a, b].sort());
    assert.ok(Math.abs(first[0]!.score - Math.SQRT1_2) < 1e-6);
    assert.deepEqual(copies.counts, { copied: 0, read: 2 });
    const again = await copies.rescore(query, candidates(a, b), await marks.read());
    assert.deepEqual(again, first, "the same answer");
    assert.deepEqual(copies.counts, { copied: 2, read: 2 }, "from the copies");

    // A's vector stored again (an update of its content): the next search must see the new one.
    await restore(a, vector(-1, 0, 0));
    const changed = await copies.rescore(query, candidates(a, b), await marks.read());
    assert.equal(changed[0]!.id, b);
    assert.ok(Math.abs(changed.find((n) => n.id === a)!.score + Math.SQRT1_2) < 1e-6, "A's new cosine");
    assert.deepEqual(copies.counts, { copied: 2, read: 4 }, "every copy dropped");

    // A deleted (by any path): its copy goes with the marks, and so does the candidate.
    await copies.rescore(query, candidates(a, b), await marks.read());
    await store.db.deleteFrom("memory_entries").where("id", "=", a).execute();
    const gone = await copies.rescore(query, candidates(a, b), await marks.read());
    assert.deepEqual(gone.map((n) => n.id), [b]);
  });

  it("keeps nothing without marks (vectors still being stored) or off the embedded database", async () => {
    const copies = new VectorCopies(store.db, MODEL);
    const a = await entry("third", vector(0, 0, 1));
    await copies.rescore(vector(0, 0, 1), candidates(a), undefined);
    assert.equal(copies.size, 0);
    await store.db.transaction().execute(async (trx) => {
      // A handle without a write count (as PostgreSQL's): every candidate is read, none kept.
      const other = new VectorCopies(trx, MODEL);
      const marks = await readChangeMarks(trx);
      await other.rescore(vector(0, 0, 1), candidates(a), marks);
      await other.rescore(vector(0, 0, 1), candidates(a), marks);
      assert.deepEqual(other.counts, { copied: 0, read: 2 });
    });
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
