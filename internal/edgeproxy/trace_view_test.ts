import assert from "node:assert/strict";
import { test } from "node:test";
import type { Trace } from "./jaeger_client.ts";
import { formatMicros, roots, spanTree, summarize } from "./trace_view.ts";

const TRACE: Trace = {
  traceID: "t1",
  processes: { p1: { serviceName: "edge-agent" }, p2: { serviceName: "backend" } },
  spans: [
    // A child listed before its parent, and a span whose parent was never received.
    {
      traceID: "t1",
      spanID: "b",
      operationName: "upstream",
      references: [{ refType: "CHILD_OF", traceID: "t1", spanID: "a" }],
      startTime: 1_000_500,
      duration: 800,
      tags: [{ key: "error", type: "bool", value: true }],
      processID: "p2",
    },
    {
      traceID: "t1",
      spanID: "a",
      operationName: "GET /",
      startTime: 1_000_000,
      duration: 2_000,
      processID: "p1",
    },
    {
      traceID: "t1",
      spanID: "c",
      operationName: "late",
      references: [{ refType: "CHILD_OF", traceID: "t1", spanID: "missing" }],
      startTime: 1_004_000,
      duration: 1_000,
      processID: "p1",
    },
  ],
};

test("roots: spans without a parent in the trace, earliest first", () => {
  assert.deepEqual(roots(TRACE).map((s) => s.spanID), ["a", "c"]);
});

test("summarize: root operation and service from processes, whole-trace duration, errors", () => {
  const s = summarize(TRACE);
  assert.equal(s.operation, "GET /");
  assert.equal(s.service, "edge-agent");
  assert.equal(s.durationMicros, 5_000);
  assert.equal(s.errors, 1);
  assert.equal(s.startTime, "1970-01-01T00:00:01.000Z");
  assert.deepEqual(s.services, ["backend", "edge-agent"]);
});

test("spanTree prints every root with its children", () => {
  assert.equal(
    spanTree(TRACE),
    [
      "Trace t1 (3 spans, 2 services, 5.00ms, started 1970-01-01T00:00:01.000Z)",
      "GET / [edge-agent] 2.00ms",
      "└─ upstream [backend] 800µs +500µs  ✗ error",
      "      error=true",
      "late [edge-agent] 1.00ms +4.00ms",
    ].join("\n"),
  );
});

test("formatMicros picks µs, ms or s", () => {
  assert.equal(formatMicros(850), "850µs");
  assert.equal(formatMicros(45_320), "45.32ms");
  assert.equal(formatMicros(1_250_000), "1.25s");
});
