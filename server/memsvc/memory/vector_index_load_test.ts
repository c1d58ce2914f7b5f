/**
 * A vector index loaded from its snapshot (dense rows read into the scan's memory, one id map for all
 * partitions: id_rows.ts) keeps scopes apart and takes moves between partitions and deletes.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { silentLogger } from "../../../internal/log/mod.ts";
import { embedEntries, insertEntry, insertUser, openTestStore, type TestStore } from "../_test_store.ts";
import { StaticEmbedder } from "../embeddings/static_minilm.ts";
import { IdRows, IdSpace } from "./id_rows.ts";
import { PackedVectors, TopK } from "./packed_vectors.ts";
import { VectorBacklog } from "./vector_backlog.ts";
import { VectorIndex } from "./vector_index.ts";

let store: TestStore;
before(async () => {
  store = await openTestStore();
  await insertUser(store.db, { id: "u1" });
});
after(() => store?.close());

const MINE = "u:u1|default";
const WORK = "u:u1|work";

test("a loaded index keeps each id in one partition through moves and deletes", async () => {
  const dir = await mkdtemp(join(tmpdir(), "memsvc-vector-load-"));
  try {
    const embedder = new StaticEmbedder();
    const index = new VectorIndex(store.db, embedder);
    const backlog = new VectorBacklog({ db: store.db, embedder, index, log: silentLogger });
    const contents = Array.from(
      { length: 240 },
      (_, i) => `note ${i}: the ${i % 2 ? "deploy" : "billing"} job ran`,
    );
    const ids: string[] = [];
    for (const content of contents) ids.push(await insertEntry(store.db, "u1", content));
    // Even entries in one namespace, odd in another: two partitions.
    await embedEntries(backlog, ids, contents, (i) => i % 2 ? WORK : MINE);
    await backlog.stop();
    await index.sync();
    assert.equal(index.size, 240);
    const file = join(dir, "vector-index.bin");
    await index.save(file, "instance-1");

    const loaded = new VectorIndex(store.db, embedder);
    assert.equal(await loaded.load(file, "other-instance"), false, "another database's snapshot");
    assert.equal(await loaded.load(file, "instance-1"), true);
    assert.equal(loaded.size, 240);
    assert.deepEqual(loaded.ids().sort(), [...ids].sort());
    const [query] = await embedder.embed(["billing job"]);
    const near = (i: VectorIndex, partitions: string[]) => i.nearest(query!, partitions, 300);
    assert.deepEqual(near(loaded, [MINE]), near(index, [MINE]));
    assert.ok(near(loaded, [MINE]).every((n) => ids.indexOf(n.id) % 2 === 0), "scopes stay apart");
    assert.equal(near(loaded, [MINE, WORK]).length, 240);
    assert.deepEqual(loaded.vectorOf(ids[3]!), index.vectorOf(ids[3]!));

    // Entry 0 moves to the other partition (its vector stored again), entry 5 is deleted.
    const moved = loaded.vectorOf(ids[0]!)!;
    loaded.hold([{ id: ids[0]!, partition: WORK, vector: moved, seq: 10n ** 9n }]);
    loaded.evict([ids[5]!]);
    assert.equal(loaded.size, 239);
    assert.ok(!near(loaded, [MINE]).some((n) => n.id === ids[0]), "gone from its old partition");
    assert.ok(near(loaded, [WORK]).some((n) => n.id === ids[0]), "found in its new one");
    assert.ok(!near(loaded, [MINE, WORK]).some((n) => n.id === ids[5]));
    assert.equal(near(loaded, [MINE, WORK]).length, 239);
    assert.deepEqual(loaded.vectorOf(ids[0]!), moved);
    assert.equal(loaded.vectorOf(ids[5]!), undefined);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test("partitions sharing one id table each see and compact only their own rows", () => {
  const tier = new IdSpace();
  const a = new PackedVectors(4, new IdRows(tier, 0)), b = new PackedVectors(4, new IdRows(tier, 1));
  const v = (i: number) => Float32Array.from([1, i % 3, (i % 5) / 5, 0.5]);
  for (let i = 0; i < 3_000; i++) a.put(`a${i}`, v(i));
  for (let i = 0; i < 10; i++) b.put(`b${i}`, v(i));
  assert.equal(tier.size, 3_010);
  assert.equal(tier.partitionOf("b3"), 1);
  // Enough deletes to compact a (its rows are renumbered); b's entries are untouched.
  for (let i = 0; i < 2_000; i++) a.delete(`a${i}`);
  assert.deepEqual([a.size, b.size, tier.size], [1_000, 10, 1_010]);
  assert.ok(!a.has("b3") && b.has("b3") && a.has("a2500"));
  assert.ok(b.vectorOf("b3")!.every((x, d) => Math.abs(x - v(3)[d]!) <= 1 / 127), "b's rows unmoved");
  const top = new TopK(5);
  a.scan(v(2), top);
  assert.ok(top.items.every((n) => n.id.startsWith("a")));
  assert.deepEqual([...b.ids()], Array.from({ length: 10 }, (_, i) => `b${i}`));
  assert.equal(a.vectorOf("b3"), undefined);
  assert.throws(() => new IdRows(tier, -1), RangeError);
});
