import assert from "node:assert/strict";
import { test } from "node:test";
import { checkExposition } from "../../../test/harness/prometheus_format.ts";
import { renderPrometheus } from "./exposition.ts";
import type { Gauges } from "./gauges.ts";
import { MemsvcMetrics } from "./registry.ts";

const GAUGES: Gauges = {
  entries: 10,
  edges: 4,
  pendingEmbeddings: 1,
  countedAt: "2026-11-22T10:00:00.000Z",
  sseSessions: 2,
  httpSessions: 3,
  vectorIndexSize: 9,
};

test("a busy registry renders as a valid exposition with memsvc_ names", () => {
  const metrics = new MemsvcMetrics();
  metrics.recordRequest("/v1/memories/:id", 200, 12, { userId: "ada" });
  metrics.recordRequest("/v1/memories/:id", 404, 3000, { userId: "ada" });
  metrics.recordRequest("/v1/search", 200, 0.4);
  metrics.recordTool("memory_search", 8, true);
  metrics.recordRemember("stored");
  metrics.recordLoopRun('odd "loop"\\\nname', { durationMs: 1500, ok: true });
  metrics.recordLoopRun("decay", { durationMs: 0, ok: true, skipped: true });
  const text = renderPrometheus(metrics, GAUGES);

  const { problems, types, samples } = checkExposition(text);
  assert.deepEqual(problems, []);
  for (const [name, type] of types) {
    assert.match(name, /^memsvc_/);
    if (type === "counter") assert.match(name, /_total$/);
  }
  const value = (name: string, labels: Record<string, string> = {}) =>
    samples.find((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
      ?.value;
  assert.equal(value("memsvc_remembers_total"), 1);
  assert.equal(value("memsvc_http_requests_total", { route: "/v1/memories/:id", code: "404" }), 1);
  assert.equal(
    value("memsvc_http_request_duration_seconds_bucket", { route: "/v1/memories/:id", le: "0.025" }),
    1,
  );
  assert.equal(
    value("memsvc_http_request_duration_seconds_bucket", { route: "/v1/memories/:id", le: "5" }),
    2,
  );
  assert.equal(value("memsvc_http_request_duration_seconds_sum", { route: "/v1/memories/:id" }), 3.012);
  assert.equal(value("memsvc_mcp_tool_calls_total", { tool: "memory_search", outcome: "ok" }), 1);
  assert.equal(value("memsvc_loop_runs_total", { loop: 'odd "loop"\\\nname', outcome: "ok" }), 1);
  assert.equal(value("memsvc_loop_runs_total", { loop: "decay", outcome: "skipped" }), 1);
  assert.equal(value("memsvc_loop_last_run_duration_seconds", { loop: 'odd "loop"\\\nname' }), 1.5);
  assert.equal(value("memsvc_mcp_sessions", { transport: "http" }), 3);
  assert.equal(value("memsvc_pending_embeddings"), 1);
  assert.equal(value("memsvc_vector_index_size"), 9);
  assert.ok(text.includes('loop="odd \\"loop\\"\\\\\\nname"'), "the label value is escaped on the wire");
});

test("a fresh registry renders every family, valid, with zero counters", () => {
  const { problems, samples } = checkExposition(renderPrometheus(new MemsvcMetrics(), GAUGES));
  assert.deepEqual(problems, []);
  assert.equal(samples.find((s) => s.name === "memsvc_queries_total")?.value, 0);
});
