/**
 * The Prometheus view of memsvc's metrics (GET /v1/admin/metrics/prom). Names start with
 * `memsvc_`, counters end in `_total`, durations are in seconds (the Prometheus base unit; the
 * JSON view uses milliseconds).
 */
import { LATENCY_BUCKETS_MS, type LatencyHistogram } from "../../../internal/metrics/histogram.ts";
import type { Gauges } from "./gauges.ts";
import { type Labels, type PromHistogram, PromText } from "../../../internal/metrics/prometheus.ts";
import { type CounterName, COUNTERS, type MemsvcMetrics } from "./registry.ts";

const BOUNDS_SECONDS = LATENCY_BUCKETS_MS.map((ms) => ms / 1000);

const snake = (name: string) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

function series(labels: Labels, latency: LatencyHistogram): PromHistogram {
  return { labels, bounds: BOUNDS_SECONDS, cumulative: latency.cumulative(), sum: latency.sumMs / 1000 };
}

export function renderPrometheus(metrics: MemsvcMetrics, gauges: Gauges): string {
  const text = new PromText();
  const counters = metrics.counters();
  for (const name of Object.keys(COUNTERS) as CounterName[]) {
    text.counter(`memsvc_${snake(name)}_total`, COUNTERS[name], [{ value: counters[name] }]);
  }

  const routes = [...metrics.routes()];
  text.counter(
    "memsvc_http_requests_total",
    "HTTP requests by route pattern and status code.",
    routes.flatMap(([route, s]) =>
      [...s.byStatus].map(([code, value]) => ({ labels: { route, code: String(code) }, value }))
    ),
  );
  text.histogram(
    "memsvc_http_request_duration_seconds",
    "HTTP request duration by route pattern, until the response headers.",
    routes.map(([route, s]) => series({ route }, s.latency)),
  );

  const tools = [...metrics.tools()];
  text.counter(
    "memsvc_mcp_tool_calls_total",
    "MCP tool calls by tool and outcome (error: the tool answered with an error).",
    tools.flatMap(([tool, s]) => [
      { labels: { tool, outcome: "ok" }, value: s.ok },
      { labels: { tool, outcome: "error" }, value: s.errors },
    ]),
  );
  text.histogram(
    "memsvc_mcp_tool_duration_seconds",
    "MCP tool call duration by tool.",
    tools.map(([tool, s]) => series({ tool }, s.latency)),
  );

  const loops = Object.entries(metrics.loopStatus());
  text.counter(
    "memsvc_loop_runs_total",
    "Maintenance loop runs by loop and outcome (ok, error, skipped).",
    loops.flatMap(([loop, s]) => [
      { labels: { loop, outcome: "ok" }, value: s.runs - s.failures },
      { labels: { loop, outcome: "error" }, value: s.failures },
      { labels: { loop, outcome: "skipped" }, value: s.skipped },
    ]),
  );
  const lastRuns = loops.flatMap(([loop, s]) => (s.lastRun ? [{ loop, run: s.lastRun }] : []));
  text.gauge(
    "memsvc_loop_last_run_timestamp_seconds",
    "When each maintenance loop last finished a run (Unix time).",
    lastRuns.map(({ loop, run }) => ({ labels: { loop }, value: Date.parse(run.at) / 1000 })),
  );
  text.gauge(
    "memsvc_loop_last_run_duration_seconds",
    "How long each maintenance loop's last run took.",
    lastRuns.map(({ loop, run }) => ({ labels: { loop }, value: run.durationMs / 1000 })),
  );

  text.gauge("memsvc_entries", "Memory entries stored (counted at most every 30 s).", [{
    value: gauges.entries,
  }]);
  text.gauge("memsvc_edges", "Graph edges between entries (counted at most every 30 s).", [{
    value: gauges.edges,
  }]);
  text.gauge(
    "memsvc_pending_embeddings",
    "Entries without a vector from the current embedder (counted at most every 30 s).",
    [{ value: gauges.pendingEmbeddings }],
  );
  text.gauge("memsvc_mcp_sessions", "Open MCP sessions of this process by transport.", [
    { labels: { transport: "sse" }, value: gauges.sseSessions },
    { labels: { transport: "http" }, value: gauges.httpSessions },
  ]);
  text.gauge("memsvc_vector_index_size", "Vectors held by this process's in-memory index.", [
    { value: gauges.vectorIndexSize },
  ]);

  const rates = metrics.rates();
  text.gauge("memsvc_requests_per_second", "HTTP requests per second over the last 60 s.", [
    { value: rates.requestsPerSecond },
  ]);
  text.gauge("memsvc_remembers_per_second", "Write calls per second over the last 60 s.", [
    { value: rates.remembersPerSecond },
  ]);
  text.gauge("memsvc_searches_per_second", "Search calls per second over the last 60 s.", [
    { value: rates.searchesPerSecond },
  ]);
  text.gauge("memsvc_start_time_seconds", "When this process started (Unix time).", [
    { value: metrics.startedAt / 1000 },
  ]);
  return text.toString();
}
