/**
 * Black-box: the maintenance loops of dist/memsvc on PostgreSQL 15, on data crafted directly in the
 * database (the test holds its own connection): decay and promotion, the dream cycle's merge and
 * co_inferred links, orphan reaping, admin-only access, and one run at a time.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import postgres from "postgres";
import { type RunningBinary, startBinary } from "../harness/binary.ts";
import { Client } from "../harness/http_client.ts";
import { type PostgresServer, startPostgres } from "../harness/postgres.ts";
import { memsvcEnv } from "../harness/memsvc.ts";

const ADMIN = { email: "root@example.test", password: "bootstrap-Pa55word!" };
const ADA = { email: "ada@example.test", password: "ada-Pa55word-123", name: "Ada" };

describe("memsvc maintenance on PostgreSQL", () => {
  let home: string;
  let pg: PostgresServer;
  let sql: postgres.Sql;
  let server: RunningBinary;
  let admin: Client;
  let ada: Client;
  let adaId: string;

  before(async () => {
    home = await mkdtemp(join(tmpdir(), "memsvc-maint-"));
    pg = await startPostgres();
    server = await startBinary("memsvc", ["serve"], {
      cwd: home,
      env: memsvcEnv(home, { admin: ADMIN, extra: { MEMSVC_DATABASE_URL: pg.url } }),
    });
    sql = postgres(pg.url, { max: 2, onnotice: () => {} });
    admin = new Client(server.url, { origin: server.url });
    assert.equal((await admin.post("/api/auth/sign-in/email", ADMIN)).status, 200);
    adaId = (await admin.post("/api/auth/admin/create-user", { ...ADA, role: "user" })).body.user.id;
    const session = new Client(server.url, { origin: server.url });
    await session.post("/api/auth/sign-in/email", ADA);
    ada = new Client(server.url, {
      bearer: (await session.post("/v1/me/tokens", { label: "m" })).body.token,
    });
  });
  after(async () => {
    await sql?.end();
    await server?.stop();
    await pg?.stop();
    await rm(home, { recursive: true, force: true });
  });

  const remember = async (content: string) => {
    const r = await ada.post("/v1/remember", { content });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    return r.body.id as string;
  };

  it("maintenance routes are admin-only", async () => {
    for (const path of ["/v1/decay", "/v1/dream-cycle", "/v1/reap-orphans"]) {
      assert.equal((await new Client(server.url).post(path)).status, 401, path);
      assert.equal((await ada.post(path)).status, 403, path);
    }
  });

  it("decay demotes idle entries in one run, by the lifespan rule or a one-shot override; a hit promotes", async () => {
    const old = await remember("The legacy FTP mirror was retired in favour of object storage.");
    const used = await remember("The on-call handbook lives in the ops wiki under Runbooks.");
    const fresh = await remember("Quarterly planning happens in the first week of each quarter.");
    // 30 days idle and never found: past the 7-day lifespan. 10 days idle with 3 hits: within 7 × (1 + 2) = 21.
    await sql`update memory_entries set updated_at = now() - interval '30 days' where id = ${old}`;
    await sql`update memory_entries set updated_at = now() - interval '10 days', hit_count = 3 where id = ${used}`;
    const run = await admin.post("/v1/decay");
    assert.equal(run.status, 200, JSON.stringify(run.body));
    assert.equal(run.body.demoted, 1);
    assert.equal((await ada.get(`/v1/memories/${old}`)).body.cold, true);
    assert.equal((await ada.get(`/v1/memories/${used}`)).body.cold, false);
    assert.equal((await ada.get(`/v1/memories/${fresh}`)).body.cold, false);
    // Cold entries are out of the keyword tier.
    const keyword = await ada.post("/v1/search", { query: "FTP mirror", mode: "keyword" });
    assert.ok(!keyword.body.results.some((r: { id: string }) => r.id === old));

    const override = await admin.post("/v1/decay", { effectiveDays: 5 });
    assert.equal(override.body.demoted, 1, "the 10-day-idle entry is past a 5-day lifespan");
    assert.equal((await ada.get(`/v1/memories/${used}`)).body.cold, true);
    assert.equal((await admin.post("/v1/decay", { effectiveDays: -1 })).status, 400);

    // A vector hit promotes when lifespan(hits + 1) = 7 × (1 + log2 5) ≈ 23 days > 10 days idle.
    const hit = await ada.post("/v1/search", { query: "on-call handbook ops wiki runbooks", mode: "vector" });
    assert.ok(hit.body.results.some((r: { id: string }) => r.id === used));
    assert.equal((await ada.get(`/v1/memories/${used}`)).body.cold, false);
    // One hit is not enough for the 30-day-idle entry: 7 × (1 + log2 2) = 14 days.
    await ada.post("/v1/search", { query: "legacy FTP mirror retired object storage", mode: "vector" });
    assert.equal((await ada.get(`/v1/memories/${old}`)).body.cold, true);
  });

  it("a neighbour deleted by another process neither fails a remember nor costs it its vector", async () => {
    const write = async (content: string) => {
      const r = await ada.post("/v1/remember", { content, namespace: "stale-neighbour" });
      assert.equal(r.status, 201, JSON.stringify(r.body));
      return r.body.id as string;
    };
    const gone = await write("Quentin keeps the staging database credentials in the team vault.");
    // A search brings the vector into the server's cache.
    const found = await ada.post("/v1/search", {
      query: "staging credentials",
      namespace: "stale-neighbour",
    });
    assert.deepEqual(found.body.results.map((r: { id: string }) => r.id), [gone]);
    // Deleted behind the server's back, as another memsvc process on this database would: the
    // server's vector cache still holds it as the nearest neighbour of the next write.
    await sql`delete from memory_entries where id = ${gone}`;
    const kept = await write("Quentin keeps the staging database credentials in the shared team vault.");
    // Vectors and links are built after the commit; a vector search waits for those of earlier writes.
    await ada.post("/v1/search", { query: "team vault", namespace: "stale-neighbour", mode: "vector" });
    const [vector] = await sql`select 1 from memory_vectors where entry_id = ${kept}`;
    assert.ok(vector, "the new entry has its vector");
    const edges = await sql`select to_id from memory_edges where from_id = ${kept}`;
    assert.deepEqual(edges.map((e) => e.to_id), [], "no edge to the deleted entry");
  });

  it("the dream cycle merges near-duplicates into the older entry, sums hits and redirects edges", async () => {
    const older = await remember("Pascal lives in Dubai and works for the port authority.");
    const newer = await remember("Pascal lives in Dubai and works for the port authority!");
    const other = await remember("Pascal lives in Belgium and works for the port authority.");
    const elsewhere = await remember("Tickets for the harbour tour are sold at the visitor centre.");
    await sql`update memory_entries set created_at = now() - interval '1 day', hit_count = 2 where id = ${older}`;
    await sql`update memory_entries set hit_count = 3 where id = ${newer}`;
    await sql`insert into memory_edges (from_id, to_id, relation, weight) values (${newer}, ${elsewhere}, 'manual', 1)
      on conflict do nothing`;

    const run = await admin.post("/v1/dream-cycle");
    assert.equal(run.status, 200, JSON.stringify(run.body));
    for (const k of ["scanned", "merged", "edgesAdded", "durationMs"]) {
      assert.equal(typeof run.body[k], "number", k);
    }
    assert.ok(run.body.merged >= 1);
    assert.equal((await ada.get(`/v1/memories/${newer}`)).status, 404, "the newer duplicate is gone");
    const kept = (await ada.get(`/v1/memories/${older}`)).body;
    assert.equal(kept.hit_count, 5);
    assert.equal((await ada.get(`/v1/memories/${other}`)).status, 200, "a different fact is not merged");
    const [edge] =
      await sql`select 1 from memory_edges where from_id = ${older} and to_id = ${elsewhere} and relation = 'manual'`;
    assert.ok(edge, "the duplicate's edge now starts at the kept entry");
  });

  it("adds co_inferred between entries sharing 3 neighbours, not 2", async () => {
    const ids = ["zz_p", "zz_q", "zz_r", "zz_s", "zz_n1", "zz_n2", "zz_n3", "zz_m1", "zz_m2"];
    for (const id of ids) {
      await sql`insert into memory_entries (id, user_id, namespace, content, content_hash)
        values (${id}, ${adaId}, 'graph-test', ${`graph fixture node ${id}`}, ${`hash-${id}`})`;
    }
    const link = (a: string, b: string) =>
      sql`insert into memory_edges (from_id, to_id, relation, weight) values (${a}, ${b}, 'manual', 1)`;
    for (const n of ["zz_n1", "zz_n2", "zz_n3"]) {
      await link("zz_p", n);
      await link("zz_q", n);
    }
    for (const m of ["zz_m1", "zz_m2"]) {
      await link("zz_r", m);
      await link("zz_s", m);
    }
    await sql`delete from engine_state where key = 'dream_cycle_cursor'`;
    const run = await admin.post("/v1/dream-cycle");
    assert.equal(run.status, 200);
    assert.ok(run.body.edgesAdded >= 1);
    const inferred = await sql`select from_id, to_id, weight from memory_edges where relation = 'co_inferred'
      and from_id like 'zz_%'`;
    assert.deepEqual(inferred.map((e) => [e.from_id, e.to_id, e.weight]), [["zz_p", "zz_q", 3]]);
  });

  it("runs one dream cycle at a time: a concurrent request is reported skipped", async () => {
    // Hold a lock the dream cycle needs so its first run stays in flight while the second arrives.
    let release!: () => void;
    const held = sql.begin(async (tx) => {
      await tx`lock table memory_entries in access exclusive mode`;
      await new Promise<void>((r) => (release = r));
    });
    await new Promise((r) => setTimeout(r, 100));
    const first = admin.post("/v1/dream-cycle");
    await new Promise((r) => setTimeout(r, 300));
    const second = await admin.post("/v1/dream-cycle");
    assert.equal(second.status, 409);
    assert.equal(second.body.skipped, true);
    release();
    await held;
    assert.equal((await first).status, 200);
  });

  it("reaps orphans: stale vectors, expired sessions and verifications, old samples", async () => {
    const id = await remember("An entry whose vector will be joined by a stale one for reaping.");
    await sql`insert into memory_entries (id, user_id, content, content_hash) values ('zz_stale', ${adaId}, 'stale vector fixture', 'hash-stale')`;
    await sql`insert into memory_vectors (entry_id, model, vector) values ('zz_stale', 'retired-model:3', ${new Uint8Array(
      12,
    )})`;
    await sql`insert into "session" (id, "expiresAt", token, "updatedAt", "userId")
      values ('zz_session', now() - interval '1 day', 'zz-expired-token', now(), ${adaId})`;
    await sql`insert into verification (id, identifier, value, "expiresAt") values ('zz_v', 'x', 'y', now() - interval '1 day')`;
    await sql`insert into metrics_samples (minute, user_id, token_hash, counts) values (now() - interval '5 days', ${adaId}, '', '{"remember": 1}')`;
    const run = await admin.post("/v1/reap-orphans");
    assert.equal(run.status, 200, JSON.stringify(run.body));
    assert.equal(run.body.staleVectors, 1);
    assert.ok(run.body.expiredSessions >= 1);
    assert.equal(run.body.expiredVerifications, 1);
    assert.equal(run.body.oldActivitySamples, 1);
    assert.equal((await ada.get(`/v1/memories/${id}`)).status, 200, "live data untouched");
    const again = await admin.post("/v1/reap-orphans");
    assert.equal(again.body.staleVectors, 0);
  });
});
