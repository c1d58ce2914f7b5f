import assert from "node:assert/strict";
import { test } from "node:test";
import { HTTPException } from "hono/http-exception";
import { ValidationError } from "../../../internal/http/mod.ts";
import { CALLER_MAP_CAPACITY, MemsvcMetrics } from "./registry.ts";

test("writes count by outcome and feed the remember rate", () => {
  const metrics = new MemsvcMetrics();
  for (const outcome of ["stored", "stored", "deduplicated", "rejected"] as const) {
    metrics.recordRemember(outcome);
  }
  const c = metrics.counters();
  assert.deepEqual([c.remembers, c.deduplicated, c.rejected], [4, 1, 1]);
  assert.equal(metrics.rates().remembersPerSecond, Math.round((4 / 60) * 1000) / 1000);
});

test("searches count zero hits, degraded answers and hits per tier", () => {
  const metrics = new MemsvcMetrics();
  metrics.recordSearch({ results: 3, degraded: false, keywordHits: 2, vectorHits: 3 });
  metrics.recordSearch({ results: 0, degraded: true, keywordHits: 0, vectorHits: 0 });
  const c = metrics.counters();
  assert.deepEqual(
    [c.queries, c.zeroHitQueries, c.degradedSearches, c.keywordHits, c.vectorHits],
    [2, 1, 1, 2, 3],
  );
});

test("only server-side failures count as search or remember errors", () => {
  const metrics = new MemsvcMetrics();
  metrics.recordFailure("search", new HTTPException(404, { message: "no such project" }));
  metrics.recordFailure("search", new ValidationError([]));
  metrics.recordFailure("search", new Error("connection reset"));
  metrics.recordFailure("remember", new HTTPException(503));
  assert.equal(metrics.counters().searchErrors, 1);
  assert.equal(metrics.counters().rememberErrors, 1);
});

test("requests are counted per route pattern and status, and per caller", () => {
  const metrics = new MemsvcMetrics();
  metrics.recordRequest("/v1/memories/:id", 200, 12, { userId: "ada", tokenHash: "h1" });
  metrics.recordRequest("/v1/memories/:id", 404, 3, { userId: "ada" });
  metrics.recordRequest("/v1/search", 200, 40, { userId: "bob", tokenHash: "h2" });
  const route = metrics.routes().get("/v1/memories/:id")!;
  assert.equal(route.latency.count, 2);
  assert.deepEqual([...route.byStatus], [[200, 1], [404, 1]]);
  const top = metrics.topCallers();
  assert.deepEqual(top.users.map((u) => [u.userId, u.requests]), [["ada", 2], ["bob", 1]]);
  assert.deepEqual(top.tokens.map((t) => [t.tokenHash, t.userId, t.requests]), [["h1", "ada", 1], [
    "h2",
    "bob",
    1,
  ]]);
});

test("per-user and per-token maps stay at 10,000 keys", () => {
  const metrics = new MemsvcMetrics();
  for (let i = 0; i <= CALLER_MAP_CAPACITY; i++) {
    metrics.recordRequest("/v1/search", 200, 1, { userId: `u${i}`, tokenHash: `t${i}` });
  }
  const top = metrics.topCallers();
  assert.equal(top.trackedUsers, 10_000);
  assert.equal(top.trackedTokens, 10_000);
  assert.equal(top.users.length, 10);
});

test("tool calls record latency and outcome", () => {
  const metrics = new MemsvcMetrics();
  metrics.recordTool("memory_search", 5, true);
  metrics.recordTool("memory_search", 7, false);
  const stats = metrics.tools().get("memory_search")!;
  assert.deepEqual([stats.latency.count, stats.ok, stats.errors], [2, 1, 1]);
});

test("loop runs: last run, failures and skips per loop; decay runs and skips counted", () => {
  let now = Date.parse("2026-11-22T10:00:00Z");
  const metrics = new MemsvcMetrics(() => now);
  metrics.recordLoopRun("decay", { durationMs: 12, ok: true, result: { demoted: 3 } });
  now += 1000;
  metrics.recordLoopRun("decay", { durationMs: 0, ok: true, skipped: true });
  metrics.recordLoopRun("dream cycle", { durationMs: 40, ok: false, error: "boom" });
  assert.deepEqual(metrics.loopStatus(), {
    decay: {
      runs: 1,
      failures: 0,
      skipped: 1,
      lastRun: { at: "2026-11-22T10:00:00.000Z", durationMs: 12, ok: true, result: { demoted: 3 } },
      lastSkippedAt: "2026-11-22T10:00:01.000Z",
    },
    "dream cycle": {
      runs: 1,
      failures: 1,
      skipped: 0,
      lastRun: { at: "2026-11-22T10:00:01.000Z", durationMs: 40, ok: false, error: "boom" },
      lastSkippedAt: null,
    },
  });
  assert.equal(metrics.counters().decayRuns, 1);
  assert.equal(metrics.counters().loopSkips, 1);
});

test("loopStatus is a copy: callers cannot change the recorded state", () => {
  const metrics = new MemsvcMetrics();
  metrics.recordLoopRun("decay", { durationMs: 1, ok: true });
  metrics.loopStatus().decay!.runs = 99;
  assert.equal(metrics.loopStatus().decay!.runs, 1);
});
