/**
 * The backlog's batch path: vectors handed to the index after their commit instead of being read back (hold).
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { sql } from "kysely";
import { silentLogger } from "../../../internal/log/mod.ts";
import { insertUser, openTestStore, type TestStore } from "../_test_store.ts";
import { BuiltinEmbedder } from "../embeddings/builtin.ts";
import { cosine, StaticEmbedder, toBytes } from "../embeddings/mod.ts";
import { LIMITS } from "./limits.ts";
import { contentHash, newEntryId } from "./entry.ts";
import { partitionKey } from "./scope.ts";
import { VectorBacklog } from "./vector_backlog.ts";
import { VectorIndex } from "./vector_index.ts";

const WORDS = "billing search deploy cluster retries webhook postgres cache queue tabs spaces freeze".split(
  " ",
);
const text = (i: number) =>
  `${WORDS[i % 12]} ${WORDS[(i * 7) % 12]} ${WORDS[(i * 5 + 3) % 12]} note ${i % 37} for team ${i % 11}`;

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

test("the start-up scan gives the event loop a turn between batches: timers (and requests) run during it", async () => {
  const embedder = new BuiltinEmbedder();
  const index = new VectorIndex(store.db, embedder);
  const embedded = Promise.withResolvers<void>();
  const log = { ...silentLogger, info: (msg: string) => msg === "entries embedded" && embedded.resolve() };
  const backlog = new VectorBacklog({ db: store.db, embedder, index, log: log as typeof silentLogger });
  await index.sync();
  await insertEntries("scan", 640, 2_000); // five batches without a vector
  let ticks = 0;
  const timer = setInterval(() => ticks++, 1);
  try {
    await backlog.recover();
    await embedded.promise;
  } finally {
    clearInterval(timer);
    await backlog.stop();
  }
  // PGlite's statements resolve as microtasks: without a turn between batches no timer fired until the end.
  assert.ok(ticks >= 4, `timers ran ${ticks} times during the scan`);
});

test("a batch's edges are the ones a neighbour scan per entry finds, with the same weights", async () => {
  // Dense vectors (the default embedder's): past ~160 rows a partition is scanned by the SIMD kernel,
  // which the batched scan runs four queries at a time.
  const embedder = new StaticEmbedder();
  const index = new VectorIndex(store.db, embedder);
  const backlog = new VectorBacklog({ db: store.db, embedder, index, log: silentLogger });
  await index.sync();
  backlog.add(await insertEntries("many", 300, 5_000));
  await backlog.settled();
  // Another partition in the same batch, so the batch's queries go to two partitions.
  backlog.add(await insertEntries("other", 200, 9_000));
  await backlog.settled();
  const batch = [...await insertEntries("many", 70, 6_000), ...await insertEntries("other", 30, 9_500)];
  // What storing them one by one would link: each entry's nearest among the indexed entries (a scan
  // of its own) and the batch's earlier entries of its partition.
  const vectors = await embedder.embed(batch.map((b) => b.content));
  const expected = batch.flatMap((item, i) => {
    const near = index.nearest(vectors[i]!, [item.partition], LIMITS.coOccurNeighbors, item.id);
    for (let j = 0; j < i; j++) {
      if (batch[j]!.partition === item.partition) {
        near.push({ id: batch[j]!.id, score: cosine(vectors[i]!, vectors[j]!) });
      }
    }
    near.sort((a, b) => b.score - a.score);
    return near.slice(0, LIMITS.coOccurNeighbors).map((n) => `${item.id} ${n.id} ${Math.fround(n.score)}`);
  });
  backlog.add(batch);
  await backlog.settled();
  const edges = await store.db.selectFrom("memory_edges").select(["from_id", "to_id", "weight"])
    .where("from_id", "in", batch.map((b) => b.id)).execute();
  assert.equal(edges.length, batch.length * LIMITS.coOccurNeighbors);
  assert.deepEqual(
    edges.map((e) => `${e.from_id} ${e.to_id} ${Math.fround(e.weight)}`).sort(),
    expected.sort(),
  );
  await backlog.stop();
});
