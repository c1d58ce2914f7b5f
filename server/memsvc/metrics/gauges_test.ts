import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { KyselyPlugin } from "kysely";
import { insertUser, openTestStore, type TestStore } from "../_test_store.ts";
import { GaugeReader, type GaugeSources } from "./gauges.ts";

let store: TestStore;
before(async () => {
  store = await openTestStore();
  await insertUser(store.db, { id: "ada" });
  const entry = (id: string) => ({
    id,
    user_id: "ada",
    project_id: null,
    content: `fact ${id}`,
    content_hash: id,
  });
  await store.db.insertInto("memory_entries").values(["e1", "e2", "e3"].map(entry)).execute();
  await store.db.insertInto("memory_vectors").values([
    { entry_id: "e1", model: "current", vector: new Uint8Array(4) },
    { entry_id: "e2", model: "previous", vector: new Uint8Array(4) },
  ]).execute();
  await store.db.insertInto("memory_edges").values({ from_id: "e1", to_id: "e2", relation: "co_occurs" })
    .execute();
});
after(() => store.close());

/** The store's handle, counting every statement run through it. */
function countingDb() {
  const counter = { statements: 0 };
  const plugin: KyselyPlugin = {
    transformQuery: (args) => {
      counter.statements++;
      return args.node;
    },
    transformResult: (args) => Promise.resolve(args.result),
  };
  return { db: store.db.withPlugin(plugin), counter };
}

function sources(db: GaugeSources["db"]): GaugeSources {
  return {
    db,
    embedderId: "current",
    sessions: { count: (kind) => (kind === "sse" ? 2 : 5) },
    index: { size: 7 },
  };
}

test("gauges: row counts (pending = no vector from the current embedder), sessions and index size", async () => {
  const gauges = await new GaugeReader(sources(store.db)).read();
  assert.deepEqual({ ...gauges, countedAt: undefined }, {
    entries: 3,
    edges: 1,
    pendingEmbeddings: 2,
    countedAt: undefined,
    sseSessions: 2,
    httpSessions: 5,
    vectorIndexSize: 7,
  });
});

test("a second poll within 30 s runs no statement; the first after 30 s counts again", async () => {
  let now = 1_000_000;
  const { db, counter } = countingDb();
  const reader = new GaugeReader(sources(db), () => now);
  await reader.read();
  assert.equal(counter.statements, 1, "one statement for all the counts");
  now += 29_999;
  const cached = await reader.read();
  assert.equal(counter.statements, 1);
  assert.equal(cached.countedAt, new Date(1_000_000).toISOString());
  now += 1;
  await reader.read();
  assert.equal(counter.statements, 2);
});

test("concurrent polls of stale counts share one statement", async () => {
  const { db, counter } = countingDb();
  const reader = new GaugeReader(sources(db));
  await Promise.all([reader.read(), reader.read(), reader.read()]);
  assert.equal(counter.statements, 1);
});
