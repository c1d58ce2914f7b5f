/**
 * Black-box: the memory engine and /v1 data plane of dist/memsvc, on the embedded database and on
 * PostgreSQL 15, with the remote embedder pointed at a local OpenAI-compatible stand-in (so the
 * test can count embedding calls and make the vector tier fail).
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type RunningBinary, startBinary } from "../harness/binary.ts";
import { type FakeEmbeddings, startFakeEmbeddings } from "../harness/fake_embeddings.ts";
import { Client } from "../harness/http_client.ts";
import { type PostgresServer, startPostgres } from "../harness/postgres.ts";

const ADMIN = { email: "root@example.test", password: "bootstrap-Pa55word!" };
const ADA = { email: "ada@example.test", password: "ada-Pa55word-123", name: "Ada" };
const BOB = { email: "bob@example.test", password: "bob-Pa55word-123", name: "Bob" };
const EMBED_KEY = "sk-test-embeddings-key-0123456789";
const TOO_SHORT = "too short — not durable knowledge";
const FILLER = "conversational filler — not durable knowledge";

async function session(server: RunningBinary, who: { email: string; password: string }) {
  const client = new Client(server.url, { origin: server.url });
  const res = await client.post("/api/auth/sign-in/email", who);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return client;
}

/** A user's API client (nm_ bearer), as an agent uses the data plane. */
async function apiClient(server: RunningBinary, who: { email: string; password: string }) {
  const s = await session(server, who);
  const minted = await s.post("/v1/me/tokens", { label: "memory-test" });
  assert.equal(minted.status, 201);
  return new Client(server.url, { bearer: minted.body.token });
}

function suite(backend: "pglite" | "postgres") {
  describe(`memsvc data plane on ${backend}`, () => {
    let home: string;
    let pg: PostgresServer | undefined;
    let embeddings: FakeEmbeddings;
    let server: RunningBinary;
    let ada: Client;
    let bob: Client;

    before(async () => {
      home = await mkdtemp(join(tmpdir(), `memsvc-memory-${backend}-`));
      embeddings = await startFakeEmbeddings(EMBED_KEY);
      const env: Record<string, string> = {
        HOME: home,
        MEMSVC_PORT: "0",
        MEMSVC_LOG_FORMAT: "json",
        MEMSVC_COOKIE_SECRET: "memory-test-cookie-secret-0123456789abcdef",
        MEMSVC_BOOTSTRAP_ADMIN_EMAIL: ADMIN.email,
        MEMSVC_BOOTSTRAP_ADMIN_PASSWORD: ADMIN.password,
        MEMSVC_EMBEDDINGS_URL: embeddings.url,
        MEMSVC_EMBEDDINGS_MODEL: "fake-embedding-model",
        MEMSVC_EMBEDDINGS_API_KEY: EMBED_KEY,
      };
      if (backend === "postgres") {
        pg = await startPostgres();
        env.MEMSVC_DATABASE_URL = pg.url;
      }
      server = await startBinary("memsvc", ["serve"], { cwd: home, env });
      const admin = await session(server, ADMIN);
      for (const u of [ADA, BOB]) {
        const r = await admin.post("/api/auth/admin/create-user", { ...u, role: "user" });
        assert.equal(r.status, 200, JSON.stringify(r.body));
      }
      ada = await apiClient(server, ADA);
      bob = await apiClient(server, BOB);
    });

    after(async () => {
      const output = server?.output() ?? "";
      await server?.stop();
      await embeddings?.stop();
      await pg?.stop();
      await rm(home, { recursive: true, force: true });
      assert.ok(!output.includes(EMBED_KEY), "the embeddings API key never reaches the log");
    });

    it("rejects short content and filler with the exact reasons, unless forced", async () => {
      for (
        const [content, rejected] of [["too short", TOO_SHORT], ["Thanks.", FILLER], ["got it", FILLER], [
          "OK",
          FILLER,
        ]]
      ) {
        const r = await ada.post("/v1/remember", { content });
        assert.equal(r.status, 200);
        assert.deepEqual(r.body, { id: null, rejected });
      }
      const forced = await ada.post("/v1/remember", { content: "ok", force: true });
      assert.equal(forced.status, 201);
      assert.match(forced.body.id, /^m_/);
    });

    it("deduplicates by trimmed content per (user, project): 20 concurrent identical writes make one entry", async () => {
      const content = "The staging database is PostgreSQL 15 on db-stage-2, port 5433.";
      const replies = await Promise.all(
        Array.from({ length: 20 }, () => ada.post("/v1/remember", { content })),
      );
      const ids = new Set(replies.map((r) => r.body.id));
      assert.equal(ids.size, 1, JSON.stringify(replies.map((r) => r.body)));
      assert.equal(replies.filter((r) => r.status === 201).length, 1);
      assert.equal(replies.filter((r) => r.body.deduplicated === true).length, 19);
      const again = await ada.post("/v1/remember", { content: `   ${content}\n` });
      assert.deepEqual(again.body, { id: [...ids][0], deduplicated: true });
      // Another user's identical fact is their own entry.
      const bobs = await bob.post("/v1/remember", { content });
      assert.equal(bobs.status, 201);
      assert.notEqual(bobs.body.id, [...ids][0]);
      const recent = await ada.get("/v1/recent?limit=200");
      assert.equal(recent.body.entries.filter((e: { content: string }) => e.content === content).length, 1);
    });

    it("validates every field and limit with a 400 that names it", async () => {
      const bad: [unknown, RegExp][] = [
        [{ content: "" }, /content must not be empty/],
        [{ content: "x".repeat(8001), force: true }, /at most 8000 characters/],
        [{ content: "a valid durable fact here", metadata: { blob: "x".repeat(9000) } }, /maxMetadataBytes/],
        [{ content: "a valid durable fact here", metadata: { ["k".repeat(65)]: 1 } }, /maxMetadataKeyChars/],
        [{ content: "a valid durable fact here", metadata: "not an object" }, /metadata/],
        [{ content: "a valid durable fact here", confidence: 1.5 }, /confidence must be between 0 and 1/],
        [{ content: "a valid durable fact here", unknown_field: 1 }, /unknown_field|Unrecognized/i],
      ];
      for (const [body, message] of bad) {
        const r = await ada.post("/v1/remember", body);
        assert.equal(r.status, 400, JSON.stringify(body).slice(0, 80));
        assert.match(JSON.stringify(r.body.issues), message);
      }
      const many = Array.from({ length: 17 }, (_, i) => `p${i}`);
      const tooMany = await ada.post("/v1/search", { query: "database", includeProjects: many });
      assert.equal(tooMany.status, 400);
      assert.match(JSON.stringify(tooMany.body.issues), /includeProjects may list at most 16/);
      const nsMany = await ada.post("/v1/search", { query: "database", includeNamespaces: many });
      assert.match(JSON.stringify(nsMany.body.issues), /includeNamespaces may list at most 16/);
      const ok = await ada.post("/v1/remember", {
        content: "Metadata at the limit is accepted fine",
        metadata: { ["k".repeat(64)]: "v" },
      });
      assert.equal(ok.status, 201);
      for (const depth of ["0", "4", "x"]) {
        const r = await ada.get(`/v1/memories/${ok.body.id}/neighbors?depth=${depth}`);
        assert.equal(r.status, 400, depth);
        assert.match(JSON.stringify(r.body.issues), /depth must be 1, 2 or 3/);
      }
    });

    it("search answers with every documented field, bumps hits, and links co_occurs neighbours", async () => {
      const facts = [
        "Deploys to production run from the release branch every Tuesday at 10:00 UTC.",
        "Production deploys need a green canary for fifteen minutes before full rollout.",
        "The canary deploy of the billing service uses 5 percent of production traffic.",
        "Ada prefers tabs over spaces in Go code and gofmt on save.",
      ];
      const ids: string[] = [];
      for (const content of facts) {
        const r = await ada.post("/v1/remember", {
          content,
          source_type: "doc",
          captured_from: "runbook.md",
          confidence: 0.8,
        });
        assert.equal(r.status, 201);
        ids.push(r.body.id);
      }
      const res = await ada.post("/v1/search", { query: "when do production deploys happen", limit: 5 });
      assert.equal(res.status, 200);
      assert.equal(res.body.degraded, undefined);
      const top = res.body.results[0];
      assert.ok(
        ids.slice(0, 3).includes(top.id),
        JSON.stringify(res.body.results.map((r: { content: string }) => r.content)),
      );
      for (
        const field of [
          "id",
          "content",
          "score",
          "source_type",
          "captured_from",
          "confidence",
          "content_hash",
          "project",
          "created_at",
          "updated_at",
          "hit_count",
        ]
      ) {
        assert.ok(field in top, `result has ${field}`);
      }
      assert.equal(top.source_type, "doc");
      assert.equal(top.captured_from, "runbook.md");
      assert.equal(top.confidence, 0.8);
      assert.match(top.content_hash, /^[0-9a-f]{64}$/);
      assert.equal(top.hit_count, 1);
      assert.equal((await ada.get(`/v1/memories/${top.id}`)).body.hit_count, 1);

      const graph = await ada.get(`/v1/memories/${ids[2]}/neighbors?depth=1`);
      assert.equal(graph.status, 200);
      assert.ok(graph.body.edges.some((e: { relation: string }) => e.relation === "co_occurs"));
      assert.ok(graph.body.nodes.length >= 2);
      const deeper = await ada.get(`/v1/memories/${ids[2]}/neighbors?depth=3`);
      assert.ok(deeper.body.nodes.length >= graph.body.nodes.length);
    });

    it("updates in place: id, hits, edges and creation time kept; metadata-only never calls the embedder", async () => {
      const r = await ada.post("/v1/remember", {
        content: "The nightly backup job writes to the s3 bucket mem-backups-eu.",
      });
      const id = r.body.id;
      await ada.post("/v1/remember", {
        content: "Backups of the metrics database go to the mem-backups-eu bucket too.",
      });
      await ada.post("/v1/search", { query: "nightly backup bucket" });
      const before = (await ada.get(`/v1/memories/${id}`)).body;
      const edgesBefore = (await ada.get(`/v1/memories/${id}/neighbors?depth=1`)).body.edges;
      assert.ok(before.hit_count >= 1);

      const calls = embeddings.inputs.length;
      const meta = await ada.call("PUT", `/v1/memories/${id}`, {
        metadata: { team: "infra" },
        confidence: 0.9,
      });
      assert.equal(meta.status, 200, JSON.stringify(meta.body));
      assert.equal(embeddings.inputs.length, calls, "metadata-only update made no embedding call");
      assert.deepEqual(meta.body.metadata, { team: "infra" });
      for (const k of ["id", "hit_count", "created_at", "content_hash"]) {
        assert.deepEqual(meta.body[k], before[k], k);
      }

      const changed = await ada.call("PUT", `/v1/memories/${id}`, {
        content: "The nightly backup job now writes to the gcs bucket mem-archive.",
      });
      assert.equal(changed.status, 200);
      assert.equal(embeddings.inputs.length, calls + 1, "a content change re-embeds once");
      assert.equal(changed.body.id, id);
      assert.equal(changed.body.hit_count, before.hit_count);
      assert.equal(changed.body.created_at, before.created_at);
      assert.notEqual(changed.body.content_hash, before.content_hash);
      const edgesAfter = (await ada.get(`/v1/memories/${id}/neighbors?depth=1`)).body.edges;
      assert.deepEqual(edgesAfter, edgesBefore);
      const found = await ada.post("/v1/search", { query: "gcs mem-archive", mode: "keyword" });
      assert.ok(found.body.results.some((x: { id: string }) => x.id === id), "text index refreshed");
      const stale = await ada.post("/v1/search", { query: "s3", mode: "keyword" });
      assert.ok(!stale.body.results.some((x: { id: string }) => x.id === id));
    });

    it("projects: 404 no such project vs 403 not a member; shared entries readable by members only", async () => {
      const missing = await ada.post("/v1/remember", {
        content: "A fact for a project that is not there",
        project: "ghost",
      });
      assert.equal(missing.status, 404);
      assert.equal(missing.body.error, "no such project");
      const created = await ada.post("/v1/projects", { name: "Apollo" });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const pid = created.body.id;
      const foreign = await bob.post("/v1/search", { query: "anything at all", project: pid });
      assert.equal(foreign.status, 403);
      assert.equal(foreign.body.error, "not a member of this project");
      assert.equal((await bob.post("/v1/search", { query: "anything", project: "Apollo" })).status, 404);

      const fact = await ada.post("/v1/remember", {
        content: "Apollo uses Redis 7 for its job queue.",
        project: "Apollo",
      });
      assert.equal(fact.status, 201);
      assert.equal((await ada.get(`/v1/memories/${fact.body.id}`)).body.project, pid);
      assert.equal((await bob.get(`/v1/memories/${fact.body.id}`)).status, 404);
      assert.equal((await bob.call("PUT", `/v1/memories/${fact.body.id}`, { confidence: 0.1 })).status, 404);
      assert.equal((await bob.delete(`/v1/memories/${fact.body.id}`)).status, 404);

      // A browser session works in one project at a time: no includeProjects fan-out by cookie.
      const browser = await session(server, ADA);
      const fanOut = await browser.post("/v1/search", { query: "Redis", includeProjects: [pid] });
      assert.equal(fanOut.status, 403);
      assert.equal((await ada.post("/v1/search", { query: "Redis", includeProjects: [pid] })).status, 200);

      assert.equal((await ada.post(`/v1/projects/${pid}/members`, { email: BOB.email })).status, 201);
      const shared = await bob.post("/v1/search", { query: "Redis job queue", project: pid });
      assert.ok(shared.body.results.some((x: { id: string }) => x.id === fact.body.id));
    });

    it("the active project is the default scope of writes and reads", async () => {
      const p = await ada.post("/v1/projects", { name: "Hermes" });
      assert.equal((await ada.call("PUT", "/v1/me/active-project", { project: "Hermes" })).status, 200);
      const w = await ada.post("/v1/remember", { content: "Hermes sends mail through the Postmark API." });
      assert.equal((await ada.get(`/v1/memories/${w.body.id}`)).body.project, p.body.id);
      const found = await ada.post("/v1/search", { query: "Postmark mail" });
      assert.ok(found.body.results.some((x: { id: string }) => x.id === w.body.id));
      assert.equal((await ada.call("DELETE", "/v1/me/active-project")).status, 200);
      const global = await ada.post("/v1/remember", {
        content: "Ada's editor of choice is Helix with the default keymap.",
      });
      assert.equal((await ada.get(`/v1/memories/${global.body.id}`)).body.project, null);
    });

    it("namespaces partition recall; includeNamespaces reaches across", async () => {
      const w = await ada.post("/v1/remember", {
        content: "The research agent tracks arXiv papers about retrieval.",
        namespace: "research",
      });
      assert.equal(w.status, 201);
      const plain = await ada.post("/v1/search", { query: "arXiv retrieval papers" });
      assert.ok(!plain.body.results.some((x: { id: string }) => x.id === w.body.id));
      const across = await ada.post("/v1/search", {
        query: "arXiv retrieval papers",
        includeNamespaces: ["research"],
      });
      assert.ok(across.body.results.some((x: { id: string }) => x.id === w.body.id));
    });

    it("answers from the keyword tier with degraded: true when the vector tier fails", async () => {
      await ada.post("/v1/remember", {
        content: "The incident pager rotation switches every Monday at 09:00.",
      });
      embeddings.failing = true;
      try {
        const res = await ada.post("/v1/search", { query: "pager rotation Monday" });
        assert.equal(res.status, 200);
        assert.equal(res.body.degraded, true);
        assert.ok(res.body.results.length > 0);
      } finally {
        embeddings.failing = false;
      }
    });

    it("forget removes an entry; recent pages; today and metrics history show the activity", async () => {
      const w = await ada.post("/v1/remember", { content: "Temporary fact that will be forgotten shortly." });
      assert.deepEqual((await ada.delete(`/v1/memories/${w.body.id}`)).body, { deleted: true });
      assert.equal((await ada.get(`/v1/memories/${w.body.id}`)).status, 404);
      const page1 = await ada.get("/v1/recent?limit=3");
      assert.equal(page1.body.entries.length, 3);
      const page2 = await ada.get(`/v1/recent?limit=3&cursor=${page1.body.nextCursor}`);
      assert.ok(page2.body.entries.length > 0);
      assert.ok(page2.body.entries[0].created_at <= page1.body.entries[2].created_at);
      const today = await ada.get("/v1/me/today");
      assert.equal(today.status, 200);
      assert.ok(today.body.items.some((i: { kind: string }) => i.kind === "memory.created"));
      const sorted = [...today.body.items].sort((a, b) => b.at.localeCompare(a.at));
      assert.deepEqual(today.body.items, sorted, "newest first");
      const history = await ada.get("/v1/me/metrics/history?hours=24");
      assert.equal(history.status, 200);
      const remembers = history.body.buckets.reduce(
        (n: number, b: { counts: { remember?: number } }) => n + (b.counts.remember ?? 0),
        0,
      );
      assert.ok(remembers > 0);
      assert.equal((await ada.get("/v1/me/metrics/history?hours=25")).status, 400);
    });
  });
}

suite("pglite");
suite("postgres");
