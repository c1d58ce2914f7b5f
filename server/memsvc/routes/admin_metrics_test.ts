import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { checkExposition } from "../../../test/harness/prometheus_format.ts";
import { silentLogger } from "../../../internal/log/mod.ts";
import { openTestStore, type TestStore } from "../_test_store.ts";
import { ActivityRecorder } from "../metrics/activity.ts";
import { GaugeReader } from "../metrics/gauges.ts";
import { MemsvcMetrics } from "../metrics/registry.ts";
import { apiTokenCaller, callAs, sessionCaller } from "./_test_app.ts";
import { adminMetricsRoutes } from "./admin_metrics.ts";

let store: TestStore;
before(async () => (store = await openTestStore()));
after(() => store.close());

function routes(dashboardEnabled = true) {
  const metrics = new MemsvcMetrics();
  const activity = new ActivityRecorder(store.db, silentLogger);
  const gauges = new GaugeReader({
    db: store.db,
    embedderId: "test",
    sessions: { count: () => 0 },
    index: { size: 0 },
  });
  const app = adminMetricsRoutes({ metrics, gauges, activity, dashboardEnabled });
  return { metrics, activity, as: (caller: Parameters<typeof callAs>[1]) => callAs(app, caller) };
}

const PATHS = ["/v1/admin/metrics", "/v1/admin/metrics/prom"];

test("admin only: 401 without credentials, 403 for a user or any API token, 200 for an admin session", async () => {
  const { as } = routes();
  for (const path of PATHS) {
    assert.equal((await as(undefined)(path)).status, 401, path);
    assert.equal((await as(sessionCaller("ada"))(path)).status, 403, path);
    assert.equal((await as(apiTokenCaller("root", "hash", "admin"))(path)).status, 403, path);
    assert.equal((await as(sessionCaller("root", "admin", "session-bearer"))(path)).status, 200, path);
  }
});

test("JSON: counters, gauges, rates, latency by route and tool, callers and the 24 h history", async () => {
  const { metrics, activity, as } = routes();
  metrics.recordRequest("/v1/memories/:id", 200, 12, { userId: "ada" });
  metrics.recordTool("memory_search", 3, true);
  metrics.recordRemember("stored");
  activity.record("ada", undefined, "remember");
  const res = await as(sessionCaller("root", "admin"))("/v1/admin/metrics");
  const body = await res.json();
  assert.deepEqual(Object.keys(body).sort(), [
    "callers",
    "counters",
    "gauges",
    "history",
    "latency",
    "rates",
    "startedAt",
    "uptimeSeconds",
  ]);
  assert.equal(body.counters.remembers, 1);
  assert.deepEqual(Object.keys(body.gauges).sort(), [
    "countedAt",
    "edges",
    "entries",
    "httpSessions",
    "pendingEmbeddings",
    "sseSessions",
    "vectorIndexSize",
  ]);
  assert.equal(body.rates.windowSeconds, 60);
  assert.deepEqual(body.latency.routes["/v1/memories/:id"], { count: 1, p50: 17.5, p95: 24.3, p99: 24.9 });
  assert.equal(body.latency.tools.memory_search.count, 1);
  assert.deepEqual(body.callers.users.map((u: { userId: string }) => u.userId), ["ada"]);
  assert.equal(body.history.length, 1);
  assert.deepEqual(body.history[0].counts, { remember: 1 });
});

test("Prometheus: the 0.0.4 content type and a valid exposition", async () => {
  const { metrics, as } = routes();
  metrics.recordRequest("/v1/search", 200, 8);
  const res = await as(sessionCaller("root", "admin"))("/v1/admin/metrics/prom");
  assert.equal(res.headers.get("content-type"), "text/plain; version=0.0.4; charset=utf-8");
  assert.deepEqual(checkExposition(await res.text()).problems, []);
});

test("MEMSVC_ADMIN_DASHBOARD=0: the JSON route is 404 with the reason; Prometheus keeps answering", async () => {
  const { as } = routes(false);
  const admin = as(sessionCaller("root", "admin"));
  const res = await admin("/v1/admin/metrics");
  assert.equal(res.status, 404);
  assert.deepEqual(await res.json(), { error: "admin dashboard is disabled (MEMSVC_ADMIN_DASHBOARD=0)" });
  assert.equal((await admin("/v1/admin/metrics/prom")).status, 200);
  assert.equal(
    (await as(sessionCaller("ada"))("/v1/admin/metrics")).status,
    403,
    "the guard still comes first",
  );
});
