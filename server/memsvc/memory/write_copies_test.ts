/**
 * Copies filled by the write path (entry_copies.ts, vector_copies.ts): a remember's row and the
 * backlog's vector are served to the next search without a read, and never outlive a change, on
 * the embedded database; on PostgreSQL, where another server writes, nothing is served from a copy.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "kysely";
import { silentLogger } from "../../../internal/log/mod.ts";
import { startPostgres } from "../../../test/harness/postgres.ts";
import { apiTokenCaller, insertUser, openTestStore } from "../_test_store.ts";
import { BuiltinEmbedder } from "../embeddings/builtin.ts";
import { ActivityRecorder } from "../metrics/activity.ts";
import { MemsvcMetrics } from "../metrics/registry.ts";
import { type MemsvcDatabase, openMemsvcStore } from "../store/db.ts";
import type { Kysely } from "kysely";
import { EntryCopies } from "./entry_copies.ts";
import { MemoryService } from "./memory_service.ts";
import { projectLookup } from "./project_lookup.ts";
import { SearchService } from "./search.ts";
import { VectorBacklog } from "./vector_backlog.ts";
import { VectorCopies } from "./vector_copies.ts";
import { VectorIndex } from "./vector_index.ts";

const ADA = apiTokenCaller("ada");

/** What one server process wires: services sharing the copies the write path fills. */
function serverOn(db: Kysely<MemsvcDatabase>) {
  const embedder = new BuiltinEmbedder();
  const index = new VectorIndex(db, embedder);
  const entryCopies = new EntryCopies(db);
  const vectorCopies = new VectorCopies(db, embedder.id);
  const vectors = new VectorBacklog({ db, embedder, index, log: silentLogger, copies: vectorCopies });
  const deps = {
    db,
    embedder,
    index,
    vectors,
    entryCopies,
    vectorCopies,
    projects: projectLookup(db),
    activity: new ActivityRecorder(db, silentLogger),
    log: silentLogger,
    metrics: new MemsvcMetrics(),
    decayDays: 30,
  };
  return {
    deps,
    memory: new MemoryService(deps),
    search: new SearchService(deps),
    entryCopies,
    vectorCopies,
    vectors,
  };
}

const remember = async (s: ReturnType<typeof serverOn>, content: string) => {
  const r = await s.memory.remember(ADA, { content });
  assert.ok(r.id, JSON.stringify(r));
  return r.id;
};
const find = (s: ReturnType<typeof serverOn>, query: string, mode?: "vector" | "keyword" | "hybrid") =>
  s.search.search(ADA, { query, ...(mode ? { mode } : {}) });

describe("copies filled by the write path, embedded database", () => {
  const stores: Awaited<ReturnType<typeof openTestStore>>[] = [];
  after(async () => {
    for (const s of stores) await s.close();
  });

  it("serves a remember's row and its stored vector to the next search without reading them", async () => {
    const store = await openTestStore();
    stores.push(store);
    await insertUser(store.db, { id: "ada" });
    const s = serverOn(store.db);
    const a = await remember(s, "The staging cluster's certificates renew every ninety days.");
    const b = await remember(s, "Renewal of the certificates is automated by the staging cron job.");
    await s.vectors.settled();
    assert.equal(s.entryCopies.size, 2, "both rows copied by the remember");
    assert.equal(s.vectorCopies.size, 2, "both vectors copied by the backlog");

    const { results } = await find(s, "staging certificates renew");
    assert.deepEqual(results.map((r) => r.id).sort(), [a, b].sort());
    assert.deepEqual(s.entryCopies.counts, { copied: 2, read: 0 }, "rows from the copies");
    assert.deepEqual(s.vectorCopies.counts, { copied: 2, read: 0 }, "vectors from the copies");
    // The copy is the row the database holds (a get reads it), plus the search's own hit not yet written.
    for (const r of results) {
      const { score: _, ...entry } = r;
      assert.deepEqual({ ...entry, hit_count: entry.hit_count - 1 }, await s.memory.get(ADA, r.id));
    }
    // The same ranking and scores as a search that reads every row and vector from the database.
    const reading = new SearchService({ ...s.deps, entryCopies: undefined, vectorCopies: undefined });
    for (const mode of ["vector", "hybrid"] as const) {
      const copied = (await find(s, "certificates renewal cron", mode)).results;
      const read = (await reading.search(ADA, { query: "certificates renewal cron", mode })).results;
      assert.deepEqual(
        copied.map((r) => [r.id, r.score, r.content]),
        read.map((r) => [r.id, r.score, r.content]),
      );
    }
    assert.equal(s.vectorCopies.counts.read, 0);
  });

  it("collapses near-duplicates alike whether their rows come from copies or reads", async () => {
    const store = await openTestStore();
    stores.push(store);
    await insertUser(store.db, { id: "ada" });
    const s = serverOn(store.db);
    await remember(s, "Deploy freezes start on the first Friday of December every year.");
    await remember(s, "Deploy freezes start on the first Friday of December, every year!");
    const c = await remember(s, "Hotfixes may still ship during a deploy freeze with two approvals.");
    for (let i = 0; i < 2; i++) {
      // The second search answers every row from the copies (and their token sets, kept per row).
      const ids = (await find(s, "deploy freeze December")).results.map((r) => r.id);
      assert.equal(ids.length, 2, `search ${i}: the near-duplicate collapsed into one`);
      assert.ok(ids.includes(c), "and the other entry kept");
    }
    assert.equal(s.entryCopies.counts.read, 0);
  });

  it("keeps them through the minute's activity flush, which writes nothing they copy", async () => {
    const store = await openTestStore();
    stores.push(store);
    await insertUser(store.db, { id: "ada" });
    const s = serverOn(store.db);
    await remember(s, "The data warehouse refresh runs at two in the morning.");
    await s.vectors.settled();
    s.deps.activity.record("ada", "t", "search");
    await s.deps.activity.flush();
    const { rows } = await sql<{ n: string }>`select count(*)::text as n from metrics_samples`.execute(
      store.db,
    );
    assert.equal(rows[0]!.n, "1", "the flush wrote");
    assert.equal((await find(s, "warehouse refresh")).results.length, 1);
    assert.equal(s.entryCopies.counts.read + s.vectorCopies.counts.read, 0, "nothing read back");
  });

  it("drops copies filled by writes when anything else writes", async () => {
    const store = await openTestStore();
    stores.push(store);
    await insertUser(store.db, { id: "ada" });
    const s = serverOn(store.db);
    const a = await remember(s, "The on-call rota changes every Monday at nine.");
    await s.vectors.settled();
    // A write the copies are not told about (another code path): the next search reads the row.
    await sql`update memory_entries set confidence = 0.5, metadata = '{"k": 1}' where id = ${a}`
      .execute(store.db);
    const [hit] = (await find(s, "on-call rota Monday")).results;
    assert.equal(hit!.id, a);
    assert.equal(hit!.confidence, 0.5);
    assert.deepEqual(hit!.metadata, { k: 1 });
    assert.equal(s.entryCopies.counts.copied, 0);
    // A vector stored again by another path (an update's): the next search's cosine is the new one's.
    await s.memory.update(ADA, a, { content: "Payroll closes on the twentieth of each month." });
    const moved = (await find(s, "on-call rota Monday", "vector")).results.find((r) => r.id === a);
    const now = (await find(s, "payroll closes twentieth", "vector")).results.find((r) => r.id === a);
    assert.ok(!moved || moved.score < now!.score, "ranked by the new vector");
    assert.equal(now!.content, "Payroll closes on the twentieth of each month.");
  });
});

describe("copies filled by the write path, two servers on one PostgreSQL database", () => {
  let postgres: Awaited<ReturnType<typeof startPostgres>>;
  let dir: string;
  before(async () => {
    postgres = await startPostgres();
    dir = await mkdtemp(join(tmpdir(), "memsvc-copies-"));
  });
  after(async () => {
    await postgres?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it("never serves one server a row or vector another server changed or deleted", async () => {
    const url = await postgres.newDatabase();
    const one = await openMemsvcStore({ url, dataDir: join(dir, "one") });
    const two = await openMemsvcStore({ url, dataDir: join(dir, "two") });
    try {
      await insertUser(one.database.db, { id: "ada" });
      const first = serverOn(one.database.db);
      const second = serverOn(two.database.db);
      const a = await remember(first, "The billing webhook retries five times before giving up.");
      const b = await remember(first, "Webhook deliveries for billing are signed with HMAC.");
      assert.equal((await find(first, "billing webhook")).results.length, 2);

      // The other server rewrites A and deletes B.
      await second.memory.update(ADA, a, { content: "The billing webhook retries twice, then alerts." });
      await second.memory.forget(ADA, b);
      await second.vectors.settled();
      const after = (await find(first, "billing webhook")).results;
      assert.deepEqual(after.map((r) => r.id), [a]);
      assert.equal(after[0]!.content, "The billing webhook retries twice, then alerts.");
      assert.equal(first.entryCopies.size, 0, "nothing copied on PostgreSQL");
      assert.equal(first.vectorCopies.size, 0);
      assert.equal(first.entryCopies.counts.copied + first.vectorCopies.counts.copied, 0);
    } finally {
      await one.database.close();
      await two.database.close();
    }
  });
});
