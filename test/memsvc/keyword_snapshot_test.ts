/**
 * Black-box: the keyword index snapshot. A clean stop saves it to the data directory, the next start
 * loads it instead of rebuilding from every row, entries deleted or written while it sat on disk (or
 * acknowledged just before a kill -9) are caught up, and a damaged file is ignored (the index is
 * rebuilt from the database as before).
 */
import { after, describe, it } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { sql } from "kysely";
import { openDatabase } from "../../internal/db/mod.ts";
import type { RunningBinary } from "../harness/binary.ts";
import { Client } from "../harness/http_client.ts";
import { restartableMemsvc } from "../harness/memsvc.ts";

const fact = (i: number) => `Service kw${i}q of the fleet keeps its nightly backups for ${i + 7} days.`;

describe("memsvc keyword index snapshot", () => {
  const cleanup: (() => Promise<void>)[] = [];
  after(async () => {
    for (const fn of cleanup.reverse()) await fn().catch(() => {});
  });

  it("is saved at a clean stop, loaded at the next start, and caught up with deletes and crashed writes", async () => {
    const { dataDir, start } = await restartableMemsvc("memsvc-keywords-", cleanup);
    const find = async (server: RunningBinary, query: string) => {
      const r = await new Client(server.url).post("/v1/search", { query, mode: "keyword", limit: 5 });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      return (r.body.results as { id: string }[]).map((x) => x.id);
    };
    const logged = (server: RunningBinary, msg: string) => server.records().find((r) => r.msg === msg);
    const remember = async (server: RunningBinary, content: string) => {
      const r = await new Client(server.url).post("/v1/remember", { content });
      assert.equal(r.status, 201, JSON.stringify(r.body));
      return r.body.id as string;
    };

    let server = await start();
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) ids.push(await remember(server, fact(i)));
    assert.deepEqual(await find(server, "kw3q"), [ids[3]]);
    assert.equal(await server.stop("SIGTERM"), 0);
    assert.equal(logged(server, "keyword index snapshot saved")?.entries, 20);
    assert.ok(existsSync(join(dataDir, "keyword-index.bin")));

    // Deleted while no server runs (as `memsvc restore` or another process could).
    const database = await openDatabase({ dataDir });
    await sql`delete from memory_entries where id = ${ids[5]!}`.execute(database.db);
    await database.close();

    server = await start();
    assert.deepEqual(await find(server, "kw7q"), [ids[7]]);
    assert.equal(
      logged(server, "keyword index snapshot loaded")?.entries,
      20,
      "the start loads the snapshot",
    );
    assert.deepEqual(await find(server, "kw5q"), [], "the delete is caught up");
    // Acknowledged, then the process dies before any save.
    const crashed = await remember(server, "The kestrel kw99q roosts under the bridge.");
    assert.equal(await server.stop("SIGKILL"), null);

    server = await start();
    assert.deepEqual(await find(server, "kw99q"), [crashed], "a write acknowledged before kill -9 is found");
    assert.ok(logged(server, "keyword index snapshot loaded"));
    assert.equal(await server.stop("SIGTERM"), 0);

    // A damaged snapshot is ignored: the index is rebuilt from the database.
    await writeFile(join(dataDir, "keyword-index.bin"), "memsvc-keywords-1\nnot a snapshot");
    server = await start();
    assert.deepEqual(await find(server, "kw9q"), [ids[9]]);
    assert.deepEqual(await find(server, "kw99q"), [crashed]);
    assert.ok(!logged(server, "keyword index snapshot loaded"));
    assert.equal(await server.stop("SIGTERM"), 0);
  });
});
