/**
 * Black-box: dist/memsvc's admin metrics (JSON and Prometheus) and deep health: who may read
 * them, that /v1 calls and MCP tool calls move the counters and per-route latency, that the
 * Prometheus text passes a strict format check, that MEMSVC_ADMIN_DASHBOARD=0 turns the JSON off,
 * and that deep health carries every section and no secret.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type RunningBinary, startBinary, withBinary } from "../harness/binary.ts";
import { Client } from "../harness/http_client.ts";
import { connectHttp } from "../harness/mcp_client.ts";
import { checkExposition } from "../harness/prometheus_format.ts";
import { memsvcEnv, TEST_COOKIE_SECRET } from "../harness/memsvc.ts";

const ADMIN = { email: "root@example.test", password: "metrics-admin-Pa55word!" };
const ADA = { email: "ada@example.test", password: "ada-metrics-Pa55word", name: "Ada" };
const COOKIE_SECRET = TEST_COOKIE_SECRET;
const ROUTES = ["/v1/admin/metrics", "/v1/admin/metrics/prom", "/v1/admin/health/deep"];

/** Every secret the suite uses; none may appear in a metrics or health answer, nor in the log. */
const secrets = new Set<string>([ADMIN.password, ADA.password, COOKIE_SECRET]);

function serverEnv(home: string, extra: Record<string, string> = {}) {
  return memsvcEnv(home, { admin: ADMIN, extra });
}

/** Signs in by cookie; also returns the session token, usable as `Bearer ns_<token>`. */
async function signIn(server: RunningBinary, who: { email: string; password: string }) {
  const client = new Client(server.url, { origin: server.url });
  const res = await client.post("/api/auth/sign-in/email", who);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  secrets.add(res.body.token);
  for (const part of client.cookie!.split("; ")) secrets.add(part.slice(part.indexOf("=") + 1));
  return { client, sessionToken: res.body.token as string };
}

async function mintToken(session: Client): Promise<{ token: string; tokenHash: string }> {
  const res = await session.post("/v1/me/tokens", { label: "metrics-test" });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  secrets.add(res.body.token);
  return res.body;
}

function assertNoSecret(text: string, where: string) {
  for (const secret of secrets) {
    assert.ok(!text.includes(secret), `${where} contains a secret: ${secret.slice(0, 6)}…`);
  }
}

describe("memsvc metrics and deep health", () => {
  let home: string;
  let server: RunningBinary;
  let admin: Client;
  let adminBearer: Client;
  let ada: Client;
  let adaToken: { token: string; tokenHash: string };
  let adminToken: { token: string };

  before(async () => {
    home = await mkdtemp(join(tmpdir(), "memsvc-metrics-"));
    server = await startBinary("memsvc", ["serve"], { cwd: home, env: serverEnv(home) });
    const root = await signIn(server, ADMIN);
    admin = root.client;
    adminBearer = new Client(server.url, { bearer: `ns_${root.sessionToken}` });
    const created = await admin.post("/api/auth/admin/create-user", { ...ADA, role: "user" });
    assert.equal(created.status, 200, JSON.stringify(created.body));
    ada = (await signIn(server, ADA)).client;
    adaToken = await mintToken(ada);
    adminToken = await mintToken(admin);
  });

  after(async () => {
    const output = server?.output() ?? "";
    await server?.stop();
    await rm(home, { recursive: true, force: true });
    assertNoSecret(output, "the server log");
  });

  it("admin only: 401 without credentials, 403 for a user session and any nm_ token, 200 for an admin session", async () => {
    for (const path of ROUTES) {
      assert.equal((await new Client(server.url).get(path)).status, 401, path);
      assert.equal((await ada.get(path)).status, 403, `${path} user session`);
      assert.equal((await new Client(server.url, { bearer: adaToken.token }).get(path)).status, 403, path);
      assert.equal((await new Client(server.url, { bearer: adminToken.token }).get(path)).status, 403, path);
      assert.equal((await admin.get(path)).status, 200, `${path} admin cookie`);
      assert.equal((await adminBearer.get(path)).status, 200, `${path} admin ns_ bearer`);
    }
  });

  it("/v1 calls and MCP tool calls move the counters, per-route and per-tool latency and the history", async () => {
    const before = (await admin.get("/v1/admin/metrics")).body;
    const agent = new Client(server.url, { bearer: adaToken.token });
    const fact = "The metrics test deploys to the staging cluster every Tuesday at noon.";
    const stored = await agent.post("/v1/remember", { content: fact });
    assert.equal(stored.status, 201);
    assert.equal((await agent.post("/v1/remember", { content: fact })).body.deduplicated, true);
    assert.equal((await agent.post("/v1/remember", { content: "Thanks." })).body.id, null);
    assert.ok((await agent.post("/v1/search", { query: "staging cluster Tuesday" })).body.results.length > 0);
    assert.equal(
      (await agent.post("/v1/search", { query: "xyzzy", mode: "keyword" })).body.results.length,
      0,
    );
    const id = stored.body.id as string;
    assert.equal((await agent.get(`/v1/memories/${id}`)).status, 200);
    assert.equal((await agent.call("PUT", `/v1/memories/${id}`, { confidence: 0.5 })).status, 200);
    assert.equal((await agent.get("/v1/memories/m_000000000000000000000000")).status, 404);
    assert.equal((await agent.get("/v1/no-such-route/xyz")).status, 404);
    const mcp = await connectHttp(server.url, adaToken.token);
    try {
      const found = await mcp.callTool({ name: "memory_search", arguments: { query: "staging cluster" } });
      assert.ok(!found.isError);
      await mcp.callTool({ name: "memory_capture", arguments: { content: "Ok." } });
    } finally {
      await mcp.close();
    }
    assert.equal((await agent.delete(`/v1/memories/${id}`)).status, 200);

    const after = (await admin.get("/v1/admin/metrics")).body;
    const delta = (name: string) => after.counters[name] - (before.counters[name] ?? 0);
    assert.equal(delta("remembers"), 4, "three HTTP writes and one MCP capture");
    assert.equal(delta("deduplicated"), 1);
    assert.equal(delta("rejected"), 2, "Thanks. over HTTP, Ok. over MCP");
    assert.equal(delta("queries"), 3, "two HTTP searches and one MCP search");
    assert.equal(delta("zeroHitQueries"), 1);
    assert.ok(delta("keywordHits") >= 2);
    assert.equal(delta("updates"), 1);
    assert.equal(delta("forgets"), 1);
    assert.equal(delta("searchErrors") + delta("rememberErrors"), 0);

    const routes = after.latency.routes;
    const count = (route: string) => (routes[route]?.count ?? 0) - (before.latency.routes[route]?.count ?? 0);
    assert.equal(count("/v1/remember"), 3);
    assert.equal(count("/v1/search"), 2);
    assert.equal(count("/v1/memories/:id"), 4, "GET, PUT, the 404 and DELETE under one pattern");
    assert.ok(count("/mcp") >= 3, "MCP messages are timed under /mcp");
    assert.equal(count("unmatched"), 1);
    for (const route of Object.keys(routes)) {
      assert.doesNotMatch(route, /m_[0-9a-f]{4}|xyz/, "raw paths never leak");
    }
    const r = routes["/v1/memories/:id"];
    assert.ok(r.p50 > 0 && r.p50 <= r.p95 && r.p95 <= r.p99, JSON.stringify(r));
    assert.equal(after.latency.tools.memory_search.count, 1);
    assert.equal(after.latency.tools.memory_capture.count, 1);

    assert.ok(after.rates.requestsPerSecond > 0);
    assert.ok(after.rates.remembersPerSecond > 0);
    assert.equal(after.rates.windowSeconds, 60);
    for (
      const g of ["entries", "edges", "pendingEmbeddings", "sseSessions", "httpSessions", "vectorIndexSize"]
    ) {
      assert.equal(typeof after.gauges[g], "number", g);
    }
    assert.ok(after.uptimeSeconds >= 0);
    assert.ok(Date.parse(after.startedAt) <= Date.now());
    const tokenRow = after.callers.tokens.find((t: { tokenHash: string }) =>
      t.tokenHash === adaToken.tokenHash
    );
    assert.ok(tokenRow.requests >= 10, "the agent's token is counted by its hash");
    const minute = after.history.at(-1);
    assert.match(minute.minute, /^\d{4}-\d\d-\d\dT\d\d:\d\d:00\.000Z$/);
    const total = (kind: string) =>
      after.history.reduce(
        (n: number, b: { counts: Record<string, number> }) => n + (b.counts[kind] ?? 0),
        0,
      );
    assert.ok(total("remember") >= 2, "history sums the not yet flushed minute");
    assert.ok(total("search") >= 3);
    assertNoSecret(JSON.stringify(after), "the metrics JSON");
  });

  it("the Prometheus text passes a strict exposition-format check", async () => {
    const res = await adminBearer.get("/v1/admin/metrics/prom");
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("content-type"), "text/plain; version=0.0.4; charset=utf-8");
    const text = res.body as string;
    const { problems, types, help, samples } = checkExposition(text);
    assert.deepEqual(problems, []);
    assert.ok(types.size >= 20);
    for (const [name, type] of types) {
      assert.match(name, /^memsvc_/);
      assert.ok(help.has(name), `HELP of ${name}`);
      if (type === "counter") assert.match(name, /_total$/);
    }
    const value = (name: string, labels: Record<string, string> = {}) =>
      samples.find((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
        ?.value;
    assert.ok(value("memsvc_remembers_total")! >= 4);
    assert.ok(value("memsvc_http_requests_total", { route: "/v1/memories/:id", code: "200" })! >= 3);
    assert.ok(value("memsvc_http_request_duration_seconds_count", { route: "/v1/search" })! >= 2);
    assert.equal(value("memsvc_mcp_tool_calls_total", { tool: "memory_search", outcome: "ok" }), 1);
    assert.equal(types.get("memsvc_http_request_duration_seconds"), "histogram");
    assert.equal(types.get("memsvc_pending_embeddings"), "gauge");
    assertNoSecret(text, "the Prometheus text");
  });

  it('deep health has every section and no secret; /health stays exactly {"ok":true}', async () => {
    const res = await admin.get("/v1/admin/health/deep");
    assert.equal(res.status, 200);
    const body = res.body;
    assert.equal(body.ok, true, JSON.stringify(body));
    assert.deepEqual(
      Object.keys(body).sort(),
      ["checkedAt", "database", "disk", "embedder", "loops", "mcp", "ok", "vectorIndex"],
    );
    assert.equal(body.database.backend, "pglite");
    assert.equal(body.database.reachable, true);
    assert.equal(typeof body.database.latencyMs, "number");
    assert.ok(body.database.migrations.applied >= 4);
    assert.equal(body.database.migrations.applied, body.database.migrations.known);
    assert.equal(body.embedder.ok, true);
    assert.match(body.embedder.id, /^builtin-static-minilm-l6-v1/); // the default
    assert.equal(typeof body.embedder.latencyMs, "number");
    assert.equal(typeof body.loops, "object");
    assert.deepEqual(Object.keys(body.mcp).sort(), ["httpSessions", "sseSessions"]);
    assert.equal(typeof body.vectorIndex.size, "number");
    assert.ok(body.disk.freeBytes > 0 && body.disk.totalBytes >= body.disk.freeBytes);
    assertNoSecret(JSON.stringify(body), "deep health");

    const health = await fetch(`${server.url}/health`);
    assert.equal(await health.text(), '{"ok":true}');
  });
});

describe("memsvc with MEMSVC_ADMIN_DASHBOARD=0", () => {
  it("turns off the JSON metrics (404 with the reason) but keeps Prometheus and deep health", async () => {
    const home = await mkdtemp(join(tmpdir(), "memsvc-metrics-off-"));
    try {
      await withBinary("memsvc", ["serve"], {
        cwd: home,
        env: serverEnv(home, { MEMSVC_ADMIN_DASHBOARD: "0" }),
      }, async (server) => {
        const { client } = await signIn(server, ADMIN);
        const res = await client.get("/v1/admin/metrics");
        assert.equal(res.status, 404);
        assert.deepEqual(res.body, { error: "admin dashboard is disabled (MEMSVC_ADMIN_DASHBOARD=0)" });
        assert.equal((await client.get("/v1/admin/metrics/prom")).status, 200);
        assert.equal((await client.get("/v1/admin/health/deep")).status, 200);
      });
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });
});
