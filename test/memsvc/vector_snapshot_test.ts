/**
 * Black-box: the vector index snapshot. A clean stop saves it to the data directory, the next start
 * loads it instead of reading every vector, entries deleted while it sat on disk are dropped, and a
 * damaged file is ignored (the vectors are read from the database as before).
 */
import { after, describe, it } from "node:test";
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { sql } from "kysely";
import { openDatabase } from "../../internal/db/mod.ts";
import type { RunningBinary } from "../harness/binary.ts";
import { Client } from "../harness/http_client.ts";
import { restartableMemsvc } from "../harness/memsvc.ts";

const FACTS = Array.from(
  { length: 30 },
  (_, i) => `Service ${i} of the fleet keeps its nightly backups in bucket backups-${i} for ${i + 7} days.`,
);

describe("memsvc vector index snapshot", () => {
  const cleanup: (() => Promise<void>)[] = [];
  after(async () => {
    for (const fn of cleanup.reverse()) await fn().catch(() => {});
  });

  it("is saved at a clean stop, loaded at the next start, and drops what was deleted meanwhile", async () => {
    const { dataDir, start } = await restartableMemsvc("memsvc-snapshot-", cleanup);
    const vectorSearch = async (server: RunningBinary, query: string) => {
      const r = await new Client(server.url).post("/v1/search", { query, mode: "vector", limit: 3 });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      return (r.body.results as { id: string }[]).map((x) => x.id);
    };

    let server = await start();
    const client = new Client(server.url);
    const ids: string[] = [];
    for (const content of FACTS) {
      const r = await client.post("/v1/remember", { content });
      assert.equal(r.status, 201, JSON.stringify(r.body));
      ids.push(r.body.id);
    }
    assert.equal((await vectorSearch(server, FACTS[3]!))[0], ids[3]);
    assert.equal(await server.stop("SIGTERM"), 0);
    const saved = server.records().find((r) => r.msg === "vector index snapshot saved");
    assert.equal(saved?.vectors, FACTS.length);
    assert.ok(existsSync(join(dataDir, "vector-index.bin")));
    // builtin-static (the default) kept its decompressed table there to be mapped at the next start.
    const tableFile = join(dataDir, "embedder-static-table.bin");
    const table = await readFile(tableFile);

    // Deleted while no server runs (as `memsvc restore` or another process could): the snapshot
    // still holds its vector.
    const database = await openDatabase({ dataDir });
    await sql`delete from memory_entries where id = ${ids[5]!}`.execute(database.db);
    await database.close();

    server = await start();
    const loaded = server.records().find((r) => r.msg === "vector index snapshot loaded");
    assert.equal(loaded?.vectors, FACTS.length, "the start loads the snapshot");
    assert.equal((await vectorSearch(server, FACTS[7]!))[0], ids[7]);
    const deadline = Date.now() + 30_000;
    while (
      !server.records().some((r) => r.msg === "vector index: dropped entries deleted since the snapshot")
    ) {
      assert.ok(Date.now() < deadline, "the deleted entry is reconciled away");
      await new Promise((r) => setTimeout(r, 100));
    }
    const health = await new Client(server.url).get("/v1/admin/health/deep");
    assert.equal(health.body.vectorIndex.size, FACTS.length - 1);
    assert.ok(!(await vectorSearch(server, FACTS[5]!)).includes(ids[5]!));
    assert.equal(await server.stop("SIGTERM"), 0);

    // A damaged snapshot is ignored: the vectors come from the database. A damaged table is replaced.
    await writeFile(join(dataDir, "vector-index.bin"), "memsvc-vectors-1\nnot a snapshot");
    const damaged = Buffer.from(table); // a copy (Buffer.slice would be a view)
    damaged[damaged.length - 1]! ^= 0xff;
    await writeFile(tableFile, damaged);
    server = await start();
    assert.ok(!server.records().some((r) => r.msg === "vector index snapshot loaded"));
    assert.equal((await vectorSearch(server, FACTS[9]!))[0], ids[9]);
    assert.equal(await server.stop("SIGTERM"), 0);
    assert.ok((await readFile(tableFile)).equals(table), "the damaged table file is written again");
  });
});
