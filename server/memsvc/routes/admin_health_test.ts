import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openTestStore, type TestStore } from "../_test_store.ts";
import { type Embedder, EmbedderError } from "../embeddings/mod.ts";
import type { Caller } from "../../../internal/auth/mod.ts";
import { MemsvcMetrics } from "../metrics/registry.ts";
import { migrations } from "../store/migrations/mod.ts";
import { apiTokenCaller, callAs, sessionCaller } from "./_test_app.ts";
import { adminHealthRoutes, type AdminHealthRoutesDeps } from "./admin_health.ts";

let store: TestStore;
let dataDir: string;
before(async () => {
  store = await openTestStore();
  dataDir = await mkdtemp(join(tmpdir(), "memsvc-health-"));
});
after(async () => {
  await store.close();
  await rm(dataDir, { recursive: true, force: true });
});

const ADMIN = sessionCaller("root", "admin");

const working: Embedder = {
  id: "fake:3",
  dimensions: 3,
  embed: (texts) => Promise.resolve(texts.map(() => new Float32Array([1, 0, 0]))),
};

function deepHealth(overrides: Partial<AdminHealthRoutesDeps> = {}) {
  const metrics = new MemsvcMetrics();
  metrics.recordLoopRun("decay", { durationMs: 4, ok: true, result: { demoted: 2 } });
  const routes = adminHealthRoutes({
    database: { db: store.db, backend: "pglite", close: () => Promise.resolve() },
    embedder: working,
    metrics,
    sessions: { count: (kind) => (kind === "sse" ? 1 : 2) },
    index: { size: 5 },
    dataDir,
    ...overrides,
  });
  return (caller: Caller | undefined) => callAs(routes, caller)("/v1/admin/health/deep");
}

test("admin only: 401 without credentials, 403 for a user or an admin's API token", async () => {
  const get = deepHealth();
  assert.equal((await get(undefined)).status, 401);
  assert.equal((await get(sessionCaller("ada"))).status, 403);
  assert.equal((await get(apiTokenCaller("root", "hash", "admin"))).status, 403);
});

test("every dependency has its section: database, embedder, loops, MCP, vector index, disk", async () => {
  const res = await deepHealth()(ADMIN);
  assert.equal(res.status, 200);
  const body = await res.json();
  assert.equal(body.ok, true);
  assert.equal(body.database.ok, true);
  assert.equal(body.database.backend, "pglite");
  assert.equal(body.database.reachable, true);
  assert.equal(typeof body.database.latencyMs, "number");
  const known = Object.keys(migrations).length;
  assert.deepEqual(body.database.migrations, { applied: known, known });
  assert.equal(body.database.error, undefined);
  assert.deepEqual({ ...body.embedder, latencyMs: 0 }, {
    ok: true,
    id: "fake:3",
    dimensions: 3,
    latencyMs: 0,
  });
  assert.deepEqual(body.loops.decay.lastRun.result, { demoted: 2 });
  assert.deepEqual(body.mcp, { sseSessions: 1, httpSessions: 2 });
  assert.deepEqual(body.vectorIndex, { size: 5 });
  assert.equal(body.disk.ok, true);
  assert.equal(body.disk.dataDir, dataDir);
  assert.ok(body.disk.freeBytes > 0 && body.disk.totalBytes >= body.disk.freeBytes);
});

test("a failing embedder makes ok false with a redacted reason; PostgreSQL has no disk section", async () => {
  const failing: Embedder = {
    ...working,
    embed: () =>
      Promise.reject(new EmbedderError("embeddings request failed: 401 for Bearer sk-live-0123456789abcdef")),
  };
  const res = await deepHealth({ embedder: failing, dataDir: undefined })(ADMIN);
  assert.equal(res.status, 200);
  const body = await res.json();
  assert.equal(body.ok, false);
  assert.equal(body.database.ok, true);
  assert.equal(body.embedder.ok, false);
  assert.equal(body.embedder.error, "embeddings request failed: 401 for Bearer [REDACTED]");
  assert.equal(body.disk, null);
});

test("a hung dependency fails its probe at the time limit instead of hanging the check", async () => {
  const hung: Embedder = { ...working, embed: () => new Promise(() => {}) };
  const body = await (await deepHealth({ embedder: hung, probeTimeoutMs: 50 })(ADMIN)).json();
  assert.equal(body.ok, false);
  assert.equal(body.embedder.error, "no answer within 50 ms");
  assert.ok(body.embedder.latencyMs >= 49, `latency measured to the failure: ${body.embedder.latencyMs}`);
});

test("latency is measured until the probe answers", async () => {
  const slow: Embedder = {
    ...working,
    embed: (texts) =>
      new Promise((resolve) => setTimeout(() => resolve(texts.map(() => new Float32Array(3))), 30)),
  };
  const body = await (await deepHealth({ embedder: slow })(ADMIN)).json();
  assert.equal(body.embedder.ok, true);
  assert.ok(body.embedder.latencyMs >= 29, `embedder latency ${body.embedder.latencyMs}`);
});
