/**
 * The post-start reconcile waits for pauses between requests before each read (request_pauses.ts),
 * and still drops what was deleted.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { silentLogger } from "../../../internal/log/mod.ts";
import { embedEntries, insertEntry, insertUser, openTestStore, type TestStore } from "../_test_store.ts";
import { BuiltinEmbedder } from "../embeddings/builtin.ts";
import { PAUSE_IDLE_MS, RequestPauses } from "./request_pauses.ts";
import { partitionKey } from "./scope.ts";
import { VectorBacklog } from "./vector_backlog.ts";
import { VectorIndex } from "./vector_index.ts";

let store: TestStore;
before(async () => {
  store = await openTestStore();
  await insertUser(store.db, { id: "u1" });
});
after(() => store?.close());

test("reconcile reads in a pause between requests and drops deleted entries", async () => {
  const embedder = new BuiltinEmbedder();
  const pauses = new RequestPauses();
  const index = new VectorIndex(store.db, embedder, pauses);
  const backlog = new VectorBacklog({ db: store.db, embedder, index, log: silentLogger, pauses });
  const contents = ["The queue drains every night.", "Search runs on two nodes.", "Retries back off."];
  const ids: string[] = [];
  for (const content of contents) ids.push(await insertEntry(store.db, "u1", content));
  const partition = partitionKey({ user_id: "u1", project_id: null, namespace: "default" });
  await embedEntries(backlog, ids, contents, () => partition);
  await index.sync();
  assert.equal(index.size, 3);
  // Deleted behind the index's back (another process, or while its snapshot sat on disk).
  await store.db.deleteFrom("memory_entries").where("id", "=", ids[1]!).execute();

  const end = pauses.begin();
  let evicted: number | undefined;
  const reconciling = index.reconcile().then((n) => (evicted = n));
  await new Promise((r) => setTimeout(r, PAUSE_IDLE_MS + 300));
  assert.equal(evicted, undefined, "waits while a request is in flight");
  assert.equal(index.size, 3);
  end();
  await reconciling;
  assert.equal(evicted, 1);
  assert.equal(index.size, 2);
  await backlog.stop();
});
