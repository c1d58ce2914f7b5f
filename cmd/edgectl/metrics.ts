/**
 * `edgectl metrics`: the proxy's metrics from Prometheus. Views of agents, backends, VIPs, the
 * busiest backends and routes (internal/edgeproxy/proxy_metrics.ts), any PromQL query (instant or range), and a live
 * dashboard (metrics_dashboard.ts). --prometheus-url sits on the parent command.
 */
import { type Command, Option } from "@commander-js/extra-typings";
import { addExamples, type Cell, type Io, outputOption, printResult } from "../../internal/cli/mod.ts";
import { parseDuration } from "../../internal/duration/duration.ts";
import { OUTPUT_ENV, promDuration, prometheusFor, withServerOptions } from "./flags.ts";
import { registerDashboard } from "./metrics_dashboard.ts";
import { parseTime } from "../../internal/edgeproxy/prometheus_client.ts";
import {
  agentView,
  objectTrafficView,
  type Table,
  type ViewOptions,
  vipView,
} from "../../internal/edgeproxy/proxy_metrics.ts";
import { queryTable } from "../../internal/edgeproxy/query_table.ts";

function limitFlag(cmd: { error(message: string): never }, text: string): number {
  const n = /^\d+$/.test(text) ? Number(text) : 0;
  if (n < 1) cmd.error(`--limit must be a positive integer, not "${text}"`);
  return n;
}

function printTable(io: Io, table: Table, format: "table" | "json" | "yaml" | "wide", empty: string) {
  printResult(io, { items: table.items }, format, { headers: table.headers, rows: () => table.rows, empty });
}

const windowOption = () => new Option("--window <duration>", "Rate window of the queries").default("5m");

export function registerMetrics(program: Command, io: Io) {
  const metrics = withServerOptions(
    program
      .command("metrics")
      .summary(
        "Query the proxy's metrics in Prometheus: agents, backends, VIPs, top routes, PromQL, dashboard",
      )
      .description(
        "Read the edge proxy's metrics from Prometheus's HTTP API. The agents export the metrics listed in " +
          "docs/edgectl.md (edgeproxy_http_requests_total, edgeproxy_http_request_duration_seconds, ...); " +
          "the views compute requests per second, the 5xx ratio and latency quantiles over --window.",
      ),
    "prometheus",
  );

  const agent = metrics
    .command("agent")
    .description("Traffic, connections and configuration generation of each agent (or one node's)")
    .argument("[node]", "Only the agent on this node")
    .addOption(windowOption())
    .addOption(outputOption({ env: OUTPUT_ENV }))
    .action(async (node, flags, cmd) => {
      const o: ViewOptions = {
        window: promDuration(cmd, "--window", flags.window),
        ...(node ? { matchers: { node } } : {}),
      };
      const table = await agentView(prometheusFor(cmd), o);
      printTable(
        io,
        table,
        flags.output,
        node ? `No agent metrics found for node ${node}` : "No agent metrics found",
      );
    });
  addExamples(agent, ["edgectl metrics agent", "edgectl metrics agent worker-1 --window 1m -o json"]);

  metrics
    .command("backends")
    .description("Requests/s, 5xx ratio, p50/p99 latency and healthy endpoints of each backend")
    .addOption(windowOption())
    .addOption(outputOption({ env: OUTPUT_ENV }))
    .action(async (flags, cmd) => {
      const o = { window: promDuration(cmd, "--window", flags.window) };
      printTable(
        io,
        await objectTrafficView(prometheusFor(cmd), "backend", o),
        flags.output,
        "No backend metrics found",
      );
    });

  metrics
    .command("vips")
    .description("Each VIP with the node that holds it, its standbys, and bytes/s in and out")
    .addOption(windowOption())
    .addOption(outputOption({ env: OUTPUT_ENV }))
    .action(async (flags, cmd) => {
      const o = { window: promDuration(cmd, "--window", flags.window) };
      printTable(io, await vipView(prometheusFor(cmd), o), flags.output, "No VIP metrics found");
    });

  for (const label of ["backend", "route"] as const) {
    metrics
      .command(`top-${label}s`)
      .description(`The busiest ${label}s by requests/s, with 5xx ratio and latency`)
      .option("--limit <n>", "How many", "10")
      .addOption(windowOption())
      .addOption(outputOption({ env: OUTPUT_ENV }))
      .action(async (flags, cmd) => {
        const o = { window: promDuration(cmd, "--window", flags.window), limit: limitFlag(cmd, flags.limit) };
        printTable(
          io,
          await objectTrafficView(prometheusFor(cmd), label, o),
          flags.output,
          `No ${label} metrics found`,
        );
      });
  }

  const query = metrics
    .command("query")
    .description(
      "Run a PromQL query. Instant by default (at --time, else now); with --start or --end a range query " +
        "(--start default 1h before --end, --end default now, --step default 15s). Vectors print one row " +
        "per series with its labels; matrices add SAMPLES, MIN, MAX, LAST and a sparkline; -o json|yaml " +
        "prints Prometheus's data object (resultType and result).",
    )
    .argument("<promql>", "PromQL expression")
    .option("--time <time>", "Evaluation time of an instant query (RFC 3339 or Unix seconds)")
    .option("--start <time>", "Range start (RFC 3339 or Unix seconds)")
    .option("--end <time>", "Range end (RFC 3339 or Unix seconds)")
    .option("--step <duration>", "Range resolution", "15s")
    .addOption(outputOption({ env: OUTPUT_ENV }))
    .action(async (promql, flags, cmd) => {
      const time = (flag: string, text: string | undefined) => {
        if (text === undefined) return undefined;
        const d = parseTime(text);
        if (!d) cmd.error(`${flag}: "${text}" is not an RFC 3339 time or Unix seconds`);
        return d;
      };
      const at = time("--time", flags.time);
      const start = time("--start", flags.start);
      const end = time("--end", flags.end);
      const range = start !== undefined || end !== undefined;
      if (range && at) {
        cmd.error("--time is for instant queries; it cannot be combined with --start or --end");
      }
      const stepMs = parseDuration(flags.step);
      if (stepMs === undefined || stepMs < 1) cmd.error(`--step: "${flags.step}" is not a duration`);
      const client = prometheusFor(cmd);
      let result;
      if (range) {
        const e = end ?? new Date();
        const s = start ?? new Date(e.getTime() - 3_600_000);
        if (s.getTime() > e.getTime()) cmd.error("--start must not be after --end");
        result = await client.queryRange(promql, s, e, stepMs! / 1000);
      } else {
        result = await client.query(promql, at);
      }
      for (const w of result.warnings) io.stderr.write(`Warning: ${w}\n`);
      const table = queryTable(result.data);
      printResult(io, result.data, flags.output, {
        headers: table.headers,
        rows: () => table.rows as Cell[][],
        empty: "No data",
      });
    });
  addExamples(query, [
    "edgectl metrics query 'sum(rate(edgeproxy_http_requests_total[5m]))'",
    "edgectl metrics query 'edgeproxy_agent_active_connections' --start 2026-11-25T09:00:00Z --step 1m",
    "edgectl --prometheus-url http://prometheus:9090 metrics query 'up' -o json",
  ]);

  registerDashboard(metrics, io);
  addExamples(metrics, [
    "# Agents at a glance\nedgectl metrics agent --prometheus-url http://prometheus.monitoring:9090",
    "# The five busiest routes over the last minute\nedgectl metrics top-routes --limit 5 --window 1m",
    "# A live view that refreshes every 2 seconds (q to quit)\nedgectl metrics dashboard",
  ]);
}
