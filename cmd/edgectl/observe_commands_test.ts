/**
 * Argument checks of logs, logs-access, metrics and trace, run in-process: each is a usage error
 * (exit 2) found before any cluster, Prometheus or Jaeger is contacted (all point nowhere here).
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { executeCaptured, withEnv } from "../../internal/cli/testing.ts";
import { buildProgram } from "./main.ts";

const NOWHERE = {
  KUBECONFIG: "/nonexistent/kubeconfig",
  EDGECTL_OUTPUT: undefined,
  EDGECTL_PROMETHEUS_URL: "http://127.0.0.1:1",
  EDGECTL_TRACE_ENDPOINT: "http://127.0.0.1:1",
};

/** Exit 2, nothing on stdout, the message and the help hint (subcommands have two words: `metrics agent`). */
async function usageError(args: string[], message: RegExp) {
  await withEnv(NOWHERE, async () => {
    const r = await executeCaptured(buildProgram, args);
    assert.equal(r.code, 2, `${args.join(" ")}: ${r.stderr}`);
    assert.equal(r.stdout, "");
    assert.match(r.stderr, message);
    assert.match(r.stderr, /\nRun 'edgectl [a-z-]+( [a-z-]+)? --help' for usage\.\n$/);
  });
}

test("logs: target, node, --tail and --since are checked first", async () => {
  await usageError(
    ["logs", "gateway"],
    /^error: unknown log target "gateway": use controller, agent or access/,
  );
  await usageError(["logs", "controller", "--node", "n1"], /^error: --node applies to agent and access logs/);
  await usageError(["logs", "agent", "n1", "--node", "n2"], /^error: node given twice: "n1" and --node "n2"/);
  await usageError(["logs", "agent", "--tail", "-2"], /^error: --tail must be an integer >= -1, not "-2"/);
  await usageError(["logs", "agent", "--since", "1y"], /^error: --since: "1y" is not a duration/);
});

test("logs-access: --status, --since, --tail and -o", async () => {
  await usageError(["logs-access", "--status", "5xx"], /^error: --status must be an HTTP status code/);
  await usageError(["logs-access", "--status", "700"], /^error: --status must be an HTTP status code/);
  await usageError(["logs-access", "--since", "soon"], /^error: --since: "soon" is not a duration/);
  await usageError(["logs-access", "--tail", "-1"], /^error: --tail must be an integer >= 0/);
  await usageError(
    ["logs-access", "-o", "wide"],
    /^error: option '-o, --output <format>' argument 'wide' is invalid/,
  );
});

test("metrics: windows, limits, times and the dashboard's flags", async () => {
  await usageError(["metrics", "agent", "--window", "5"], /^error: --window: "5" is not a duration/);
  await usageError(["metrics", "top-routes", "--limit", "x"], /^error: --limit must be a positive integer/);
  await usageError(
    ["metrics", "query", "up", "--time", "now"],
    /^error: --time: "now" is not an RFC 3339 time/,
  );
  await usageError(
    ["metrics", "query", "up", "--time", "1700000000", "--end", "1700000100"],
    /^error: --time is for instant queries/,
  );
  await usageError(
    ["metrics", "query", "up", "--start", "1700000100", "--end", "1700000000"],
    /^error: --start must not be after --end/,
  );
  await usageError(["metrics", "query", "up", "--step", "0s"], /^error: --step: "0s" is not a duration/);
  await usageError(
    ["metrics", "dashboard", "--interval", "10ms"],
    /^error: --interval: "10ms" is not a duration of at least 100ms/,
  );
  await usageError(["metrics", "query"], /^error: missing required argument 'promql'/);
  await usageError(
    ["metrics", "--prometheus-url", "prometheus:9090", "agent"],
    /^error: --prometheus-url: "prometheus:9090" is not an http or https URL/,
  );
});

test("trace: ids, tags, times, durations, limits", async () => {
  await usageError(["trace", "get", "xyz"], /^error: "xyz" is not a trace id/);
  await usageError(["trace", "search", "--tag", "=v"], /^error: --tag must be key=value, not "=v"/);
  await usageError(
    ["trace", "search", "--end", "1700000000"],
    /^error: --end: "1700000000" is not an RFC 3339 time/,
  );
  await usageError(
    ["trace", "search", "--start", "2026-11-25T10:00:00Z", "--end", "2026-11-25T09:00:00Z"],
    /^error: --start must not be after --end/,
  );
  await usageError(
    ["trace", "search", "--min-duration", "2s", "--max-duration", "1s"],
    /^error: --min-duration must not be longer than --max-duration/,
  );
  await usageError(["trace", "list", "--limit", "0"], /^error: --limit must be a positive integer/);
  await usageError(["trace", "list", "--lookback", "7"], /^error: --lookback: "7" is not a duration/);
  await usageError(
    ["trace", "services", "--trace-endpoint", "jaeger"],
    /^error: --trace-endpoint: "jaeger" is not a URL/,
  );
});
