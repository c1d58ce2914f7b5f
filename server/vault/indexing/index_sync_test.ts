/**
 * IndexSync's batching: changes that stream in are applied together, and a search (`settled`) never
 * waits for a batch to gather.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { KyselyPlugin, RootOperationNode } from "kysely";
import type { Database } from "../../../internal/db/mod.ts";
import { NoteStore } from "../notes/mod.ts";
import { openSearchDb } from "../search/_test_search_db.ts";
import { indexedVersions, type SearchTables } from "../search/mod.ts";
import { IndexSync } from "./index_sync.ts";

const USER = "u1";

/** Counts the statements that write notes' rows (one per batch: upsertNote or upsertNotes). */
function noteWrites(): KyselyPlugin & { count: number } {
  const plugin = {
    count: 0,
    transformQuery({ node }: { node: RootOperationNode }) {
      const text = node.kind === "RawNode" ? node.sqlFragments.join("?") : "";
      if (/insert into note_index/i.test(text)) plugin.count++;
      return node;
    },
    transformResult: <T>({ result }: { result: T }) => Promise.resolve(result),
  };
  return plugin;
}

describe("IndexSync batches", () => {
  let database: Database<SearchTables>;
  let dir: string;
  before(async () => {
    database = await openSearchDb();
    dir = await mkdtemp(join(tmpdir(), "index-sync-"));
  });
  after(async () => {
    await database.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("gathers changes that stream in into one batch, and a search starts it at once", async () => {
    const writes = noteWrites();
    const store = new NoteStore({ dataDir: join(dir, "a"), onChange: (c) => sync.handle(c) });
    // A gathering batch would wait 10 s: the test would time out if a search waited for it.
    const sync = new IndexSync(database.db.withPlugin(writes), store, undefined, { gatherMs: 10_000 });

    await store.create(USER, "first.md", "# First");
    await sync.settled(USER);
    assert.equal(writes.count, 1);

    // The last batch ended moments ago: these wait for company instead of one batch each.
    for (const name of ["b", "c", "d"]) await store.create(USER, `${name}.md`, `# ${name} [[first]]`);
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(writes.count, 1, "nothing applied while the batch gathers");

    const asked = performance.now();
    await sync.settled(USER);
    assert.ok(performance.now() - asked < 5_000, "settled starts the gathering batch at once");
    assert.equal(writes.count, 2, "b, c and d in one batch");
    const known = await indexedVersions(database.db, USER, ["b.md", "c.md", "d.md"]);
    assert.deepEqual([...known.keys()].sort(), ["b.md", "c.md", "d.md"]);
  });

  it("applies a change at once when none came just before", async () => {
    const writes = noteWrites();
    const store = new NoteStore({ dataDir: join(dir, "b"), onChange: (c) => sync.handle(c) });
    const sync = new IndexSync(database.db.withPlugin(writes), store, undefined, { gatherMs: 10_000 });

    await store.create(USER, "lone.md", "# Lone");
    // No search asks: the batch runs by itself, long before a gathering one would.
    const began = performance.now();
    while (writes.count === 0 && performance.now() - began < 5_000) {
      await new Promise((r) => setTimeout(r, 10));
    }
    assert.equal(writes.count, 1);
  });
});
