import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { sql } from "kysely";
import { silentLogger } from "../../../internal/log/mod.ts";
import { MemsvcMetrics } from "../metrics/registry.ts";
import { insertEntry, insertUser, openTestStore, type TestStore } from "../_test_store.ts";
import { HIT_BATCH, HitCounts } from "./hit_counts.ts";
import { PAUSE_IDLE_MS, RequestPauses } from "./request_pauses.ts";

describe("HitCounts on the database", () => {
  let store: TestStore;
  before(async () => {
    store = await openTestStore();
    await insertUser(store.db, { id: "ada" });
  });
  after(async () => await store.close());

  async function write(content: string) {
    return await insertEntry(store.db, "ada", content);
  }
  const stored = async (id: string) =>
    await store.db.selectFrom("memory_entries").select(["hit_count", "last_accessed_at", "cold"])
      .where("id", "=", id).executeTakeFirstOrThrow();

  it("counts hits in process and writes them in one batch after the delay", async () => {
    const hits = new HitCounts({
      db: store.db,
      decayDays: 7,
      log: silentLogger,
      metrics: new MemsvcMetrics(),
    }, 50);
    const a = await write("The staging cluster runs three control-plane nodes.");
    const b = await write("Backups of the staging cluster go to the cold bucket.");
    hits.add([a, b]);
    hits.add([a]);
    assert.equal(hits.pending(a), 2);
    assert.equal(hits.pending(b), 1);
    assert.equal((await stored(a)).hit_count, 0, "nothing written on the request path");
    await new Promise((r) => setTimeout(r, 200));
    assert.equal((await stored(a)).hit_count, 2);
    assert.equal((await stored(b)).hit_count, 1);
    assert.ok((await stored(a)).last_accessed_at, "last access stamped");
    assert.equal(hits.pending(a), 0, "written counts are no longer pending");
    hits.add([b]);
    await hits.stop();
    assert.equal((await stored(b)).hit_count, 2, "stop writes what is left");
  });

  it("writes a large flush in batches, each no longer pending once written", async () => {
    const hits = new HitCounts({
      db: store.db,
      decayDays: 7,
      log: silentLogger,
      metrics: new MemsvcMetrics(),
    }, 10_000);
    const ids: string[] = [];
    for (let i = 0; i < HIT_BATCH * 2 + 3; i++) {
      ids.push(await write(`Runbook step ${i} of the failover drill.`));
    }
    hits.add(ids);
    hits.add(ids.slice(0, 5));
    const flushing = hits.flush();
    // Between batches a reader sees each entry's hits once: stored, or pending, never both.
    let seenBetween = 0;
    while (hits.pending(ids.at(-1)!) > 0) {
      const row = await stored(ids[0]!);
      assert.equal(row.hit_count + hits.pending(ids[0]!), 2);
      seenBetween++;
    }
    await flushing;
    assert.ok(seenBetween > 0, "reads ran between the batches");
    for (const [i, id] of ids.entries()) assert.equal((await stored(id)).hit_count, i < 5 ? 2 : 1);
    assert.equal(hits.pending(ids[0]!), 0);
  });

  it("with pauses, writes in a pause between requests, or once maxMs passed, or at stop", async () => {
    const pauses = new RequestPauses();
    const metrics = new MemsvcMetrics();
    const hits = new HitCounts(
      { db: store.db, decayDays: 7, log: silentLogger, metrics, pauses: { pauses, maxMs: 1_500 } },
      20,
    );
    const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
    const a = await write("The release train leaves every second Tuesday.");
    let end = pauses.begin();
    hits.add([a]);
    await sleep(400);
    assert.equal((await stored(a)).hit_count, 0, "a request is in flight: the flush waits");
    assert.equal(hits.pending(a), 1);
    end();
    await sleep(PAUSE_IDLE_MS + 300);
    assert.equal((await stored(a)).hit_count, 1, "written in the pause");

    // A request that never ends (a steady stream): written at maxMs after the first hit anyway.
    end = pauses.begin();
    const started = performance.now();
    hits.add([a]);
    while ((await stored(a)).hit_count < 2) {
      assert.ok(performance.now() - started < 5_000, "written by the deadline");
      await sleep(50);
    }
    assert.ok(performance.now() - started >= 1_400, "not before the deadline");

    hits.add([a]);
    await sleep(100);
    await hits.stop();
    assert.equal((await stored(a)).hit_count, 3, "stop writes at once, without a pause");
    end();
  });

  it("a batch promotes a cold entry by the decay rule, counting all its hits", async () => {
    const metrics = new MemsvcMetrics();
    const hits = new HitCounts({ db: store.db, decayDays: 7, log: silentLogger, metrics }, 10_000);
    const id = await write("The legacy FTP mirror was retired in favour of object storage.");
    // 20 days idle: lifespan 7 × (1 + log2(1 + 1)) = 14 days with one hit, 7 × (1 + log2(3 + 1)) = 21 with three.
    await sql`update memory_entries set cold = true, updated_at = now() - interval '20 days' where id = ${id}`
      .execute(store.db);
    const one = await write("The FTP mirror's DNS name now points at the object storage bucket.");
    await sql`update memory_entries set cold = true, updated_at = now() - interval '20 days' where id = ${one}`
      .execute(store.db);
    hits.add([id, one]);
    hits.add([id]);
    hits.add([id]);
    await hits.flush();
    const row = await stored(id);
    assert.equal(row.hit_count, 3);
    assert.equal(row.cold, false, "three hits promote");
    assert.equal((await stored(one)).cold, true, "one hit does not");
  });
});
