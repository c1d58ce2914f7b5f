/**
 * The backlog's batch path: one pass over a partition for many queries (scanMany, nearestMany), and
 * vectors handed to the index after their commit instead of being read back (hold).
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { sql } from "kysely";
import { silentLogger } from "../../../internal/log/mod.ts";
import { insertUser, openTestStore, type TestStore } from "../_test_store.ts";
import { BuiltinEmbedder } from "../embeddings/builtin.ts";
import { normalize, toBytes } from "../embeddings/mod.ts";
import { contentHash, newEntryId } from "./entry.ts";
import { PackedVectors, TopK } from "./packed_vectors.ts";
import { partitionKey } from "./scope.ts";
import { VectorBacklog } from "./vector_backlog.ts";
import { VectorIndex } from "./vector_index.ts";

const WORDS = "billing search deploy cluster retries webhook postgres cache queue tabs spaces freeze".split(
  " ",
);
const text = (i: number) =>
  `${WORDS[i % 12]} ${WORDS[(i * 7) % 12]} ${WORDS[(i * 5 + 3) % 12]} note ${i % 37} for team ${i % 11}`;

function denseVector(seed: number, dim: number): Float32Array {
  let x = seed;
  const v = Float32Array.from({ length: dim }, () => {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    return x / 2 ** 31 - 0.5;
  });
  normalize(v);
  return v;
}

/** scanMany must give each query exactly what scan gives it alone: ids, scores and error bounds. */
function assertSameAsScan(packed: PackedVectors, queries: Float32Array[], excludes: (string | undefined)[]) {
  const many = queries.map(() => new TopK(5));
  packed.scanMany(queries, many, excludes);
  queries.forEach((q, i) => {
    const one = new TopK(5);
    packed.scan(q, one, excludes[i]);
    assert.deepEqual(many[i]!.items, one.items, `query ${i}`);
  });
}

test("scanMany finds for each query what scan finds alone, sparse and dense, with deletes and excludes", async () => {
  const embedder = new BuiltinEmbedder();
  const stored = await embedder.embed(Array.from({ length: 1_500 }, (_, i) => text(i)));
  const sparse = new PackedVectors(embedder.dimensions);
  stored.forEach((v, i) => sparse.put(`t${i}`, v));
  for (let i = 0; i < 300; i += 3) sparse.delete(`t${i}`);
  const queries = await embedder.embed([
    "billing webhook retries",
    "deploy cluster freeze",
    text(7),
    text(8),
  ]);
  assertSameAsScan(sparse, queries, [undefined, "t1", "t7", undefined]);
  // The best match of text(7) is itself unless excluded.
  const top = [new TopK(1)];
  sparse.scanMany([queries[2]!], top);
  assert.equal(top[0]!.items[0]!.id, "t7");

  const dim = 64;
  const dense = new PackedVectors(dim);
  for (let i = 0; i < 400; i++) dense.put(`d${i}`, denseVector(i + 1, dim));
  assertSameAsScan(dense, [denseVector(1_001, dim), denseVector(1_002, dim), denseVector(5, dim)], [
    undefined,
    undefined,
    "d4",
  ]);
  sparse.scanMany([], []);
  assert.throws(() => dense.scanMany([new Float32Array(3)], [new TopK(1)]), RangeError);
});

let store: TestStore;
before(async () => {
  store = await openTestStore();
  await insertUser(store.db, { id: "u1" });
});
after(() => store?.close());

async function insertEntries(namespace: string, n: number, from: number) {
  const rows = await Promise.all(Array.from({ length: n }, async (_, i) => {
    const content = text(from + i);
    return {
      id: newEntryId(),
      user_id: "u1",
      project_id: null,
      namespace,
      content,
      content_hash: await contentHash(content),
    };
  }));
  await store.db.insertInto("memory_entries").values(rows).execute();
  return rows.map((r) => ({
    id: r.id,
    content: r.content,
    contentHash: r.content_hash,
    partition: partitionKey(r),
  }));
}

/** Vectors the index has read or been given: one count per vector, so a read-back shows. */
const taken = (index: VectorIndex) => index.unsaved;

test("the backlog hands its committed vectors to the index, which does not read them back", async () => {
  const embedder = new BuiltinEmbedder();
  const index = new VectorIndex(store.db, embedder);
  const backlog = new VectorBacklog({ db: store.db, embedder, index, log: silentLogger });
  await index.sync();
  const first = await insertEntries("hold", 40, 0);
  backlog.add(first);
  await backlog.settled();
  assert.equal(index.size, 40);
  assert.equal(taken(index), 40);
  await index.sync();
  assert.equal(taken(index), 40, "nothing read back");
  // The batch's edges link each entry to its nearest earlier ones, as when stored one by one.
  const { rows: [edges] } = await sql<{ n: string }>`select count(*)::text as n from memory_edges e
    join memory_entries m on m.id = e.from_id where m.namespace = 'hold'`.execute(store.db);
  assert.equal(Number(edges!.n), 39 * 3 - 3, "3 per entry, fewer for the first three");

  // Another writer's vector (an update, another process) is still read by the next sync.
  const other = await insertEntries("hold", 1, 100);
  const [v] = await embedder.embed([other[0]!.content]);
  await store.db.insertInto("memory_vectors").values({
    entry_id: other[0]!.id,
    model: embedder.id,
    vector: toBytes(v!),
  })
    .execute();
  await index.sync();
  assert.equal(index.size, 41);
  assert.equal(taken(index), 41);

  // A gap in the sequence (a number taken and never stored): the held vectors wait for the next read,
  // which skips them and moves past them; a vector stored after that is read as usual.
  await sql`select nextval('memory_vectors_seq')`.execute(store.db);
  const second = await insertEntries("hold", 10, 200);
  backlog.add(second);
  await backlog.settled();
  assert.equal(index.size, 51);
  await index.sync();
  assert.equal(taken(index), 51, "held vectors are skipped by the read");
  const late = await insertEntries("hold", 1, 300);
  const [w] = await embedder.embed([late[0]!.content]);
  await store.db.insertInto("memory_vectors").values({
    entry_id: late[0]!.id,
    model: embedder.id,
    vector: toBytes(w!),
  })
    .execute();
  await index.sync();
  assert.equal(index.size, 52);
  assert.equal(taken(index), 52);
  assert.ok(index.vectorOf(late[0]!.id), "the late vector is in the index");
  await backlog.stop();
});

test("a vector held after a newer one of the same entry was read does not replace it", async () => {
  const embedder = new BuiltinEmbedder();
  const index = new VectorIndex(store.db, embedder);
  const [entry] = await insertEntries("stale", 1, 400);
  const [oldVector, newVector] = await embedder.embed([
    "an old text about billing",
    "a new text about freeze",
  ]);
  const { rows: [stale] } = await sql<{ seq: string }>`insert into memory_vectors (entry_id, model, vector)
    values (${entry!.id}, ${embedder.id}, ${toBytes(oldVector!)}) returning seq::text`.execute(store.db);
  await store.db.updateTable("memory_vectors").set({
    vector: toBytes(newVector!),
    seq: sql`nextval('memory_vectors_seq')`,
  }).where("entry_id", "=", entry!.id).execute();
  await index.sync();
  index.hold([{ id: entry!.id, partition: entry!.partition, vector: oldVector!, seq: BigInt(stale!.seq) }]);
  const [best] = index.nearest(newVector!, [entry!.partition], 1);
  assert.ok(best && best.score > 0.99, "the newer vector stays");
});
