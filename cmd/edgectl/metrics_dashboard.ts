/**
 * `edgectl metrics dashboard`: a live terminal view of the proxy's traffic that redraws every
 * --interval: totals with sparklines of the last --range, the busiest routes (each with its own
 * sparkline) and backends, and the agents. It uses the terminal's alternate screen and restores
 * the terminal on q, Ctrl-C or SIGTERM. `--once` prints one plain frame (scripts, no terminal).
 */
import type { Command } from "@commander-js/extra-typings";
import { CliError, formatTable, type Io } from "../../internal/cli/mod.ts";
import { DURATION_UNITS, parseDuration } from "../../internal/edgeproxy/duration.ts";
import {
  formatNumber,
  formatPercent,
  formatSeconds,
  sparkline,
} from "../../internal/edgeproxy/metric_format.ts";
import { promDuration, prometheusFor } from "./metrics.ts";
import type { PrometheusClient } from "../../internal/edgeproxy/prometheus_client.ts";
import { agentView, METRICS, objectTrafficView, type Table } from "../../internal/edgeproxy/proxy_metrics.ts";

export interface Snapshot {
  at: Date;
  url: string;
  interval: string;
  window: string;
  range: string;
  totals: { label: string; value: string; history: number[] }[];
  routes: Table & { trend: Map<string, number[]> };
  backends: Table;
  agents: Table;
}

export async function takeSnapshot(
  client: PrometheusClient,
  o: { window: string; windowText: string; rangeMs: number; range: string; limit: number; interval: string },
): Promise<Snapshot> {
  const end = new Date();
  const start = new Date(end.getTime() - o.rangeMs);
  const step = Math.max(1, Math.round(o.rangeMs / 1000 / 40));
  const w = o.window;
  const total = `sum(rate(${METRICS.requests}[${w}]))`;
  const errors = `sum(rate(${METRICS.requests}{code=~"5.."}[${w}])) / ${total}`;
  const p99 = `histogram_quantile(0.99, sum by (le) (rate(${METRICS.duration}_bucket[${w}])))`;
  const series = async (q: string) => {
    const { data } = await client.queryRange(q, start, end, step);
    return data.resultType === "matrix" ? data.result : [];
  };
  const history = async (q: string) => (await series(q))[0]?.values.map((p) => Number(p[1])) ?? [];
  const [rps, err, lat, perRoute, routes, backends, agents] = await Promise.all([
    history(total),
    history(errors),
    history(p99),
    series(`sum by (route) (rate(${METRICS.requests}[${w}]))`),
    objectTrafficView(client, "route", { window: w, limit: o.limit }),
    objectTrafficView(client, "backend", { window: w, limit: o.limit }),
    agentView(client, { window: w }),
  ]);
  const last = (h: number[]) => h.at(-1);
  return {
    at: end,
    url: client.baseUrl,
    interval: o.interval,
    window: o.windowText,
    range: o.range,
    totals: [
      { label: "REQUESTS/S", value: formatNumber(last(rps) ?? 0), history: rps },
      { label: "5XX", value: formatPercent(last(err)) || "-", history: err },
      { label: "P99", value: formatSeconds(last(lat)) || "-", history: lat },
    ],
    routes: {
      ...routes,
      trend: new Map(perRoute.map((s) => [s.metric.route ?? "", s.values.map((p) => Number(p[1]))])),
    },
    backends,
    agents,
  };
}

/** One screen of text, lines cut to `columns`. */
export function renderFrame(s: Snapshot | { error: string; at: Date; url: string }, columns = 120): string {
  const lines = [
    `edgectl metrics dashboard   ${s.url}   ${s.at.toISOString().slice(11, 19)} UTC   q: quit`,
    "",
  ];
  if ("error" in s) {
    lines.push(`error: ${s.error}`, "", "retrying...");
  } else {
    // Header row dropped: the labels say what each line is.
    const totals = formatTable(
      ["", "", ""],
      s.totals.map((t) => [t.label, t.value, sparkline(t.history, 40) || "-"]),
    ).split("\n").slice(1);
    lines.push(`every ${s.interval}, rates over ${s.window}, sparklines over the last ${s.range}`, "");
    lines.push(...totals.filter((l) => l), "");
    const routes = {
      headers: [...s.routes.headers, "TREND"],
      rows: s.routes.rows.map((r) => [...r, sparkline(s.routes.trend.get(String(r[0])) ?? [], 20) || "-"]),
    };
    for (
      const [title, t] of [["TOP ROUTES", routes], ["TOP BACKENDS", s.backends], [
        "AGENTS",
        s.agents,
      ]] as const
    ) {
      lines.push(title);
      lines.push(
        ...(t.rows.length ? formatTable(t.headers, t.rows).trimEnd().split("\n") : ["  (no data)"]),
        "",
      );
    }
  }
  return lines.map((l) => [...l].slice(0, columns).join("")).join("\n").trimEnd() + "\n";
}

const ENTER_SCREEN = "\x1b[?1049h\x1b[?25l";
const LEAVE_SCREEN = "\x1b[?25h\x1b[?1049l";
const HOME_CLEAR = "\x1b[H\x1b[2J";

export function registerDashboard(metrics: Command, io: Io) {
  metrics
    .command("dashboard")
    .summary("A live terminal view of traffic with sparklines; q or Ctrl-C quits")
    .description(
      "A live view that redraws every --interval: requests/s, 5xx ratio and p99 latency with sparklines of " +
        "the last --range, the busiest routes and backends, and the agents. q or Ctrl-C quits and restores the " +
        "terminal. Needs a terminal; --once prints a single frame instead.",
    )
    .option("--interval <duration>", "Time between refreshes", "2s")
    .option("--range <duration>", "History the sparklines show", "5m")
    .option("--window <duration>", "Rate window of the queries", "1m")
    .option("--limit <n>", "Routes and backends shown", "5")
    .option("--once", "Print one frame and exit (no terminal needed)", false)
    .action(async (flags, cmd) => {
      const intervalMs = parseDuration(flags.interval);
      if (intervalMs === undefined || intervalMs < 100) {
        cmd.error(
          `--interval: "${flags.interval}" is not a duration of at least 100ms; use ${DURATION_UNITS}`,
        );
      }
      const rangeMs = parseDuration(flags.range);
      if (rangeMs === undefined || rangeMs < 1000) {
        cmd.error(`--range: "${flags.range}" is not a duration >= 1s`);
      }
      const limit = /^\d+$/.test(flags.limit) ? Number(flags.limit) : 0;
      if (limit < 1) cmd.error(`--limit must be a positive integer, not "${flags.limit}"`);
      const window = promDuration(cmd, "--window", flags.window);
      const client = prometheusFor(cmd);
      const options = {
        window,
        windowText: flags.window,
        rangeMs: rangeMs!,
        range: flags.range,
        limit,
        interval: flags.interval,
      };
      const frame = async () => {
        try {
          return renderFrame(await takeSnapshot(client, options), process.stdout.columns || 120);
        } catch (err) {
          if (flags.once) throw err;
          return renderFrame({ error: (err as Error).message, at: new Date(), url: client.baseUrl });
        }
      };
      if (flags.once) {
        io.stdout.write(await frame());
        return;
      }
      if (!process.stdout.isTTY || !process.stdin.isTTY) {
        throw new CliError("metrics dashboard needs a terminal; use --once to print a single frame");
      }
      await runLive(io, frame, intervalMs!);
    });
}

/** Redraws until q, Ctrl-C or SIGTERM; the terminal is restored on every way out. */
async function runLive(io: Io, frame: () => Promise<string>, intervalMs: number): Promise<void> {
  const stdin = process.stdin;
  await new Promise<void>((resolve) => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    let done = false;
    const quit = () => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      stdin.off("data", onKey);
      process.off("SIGINT", quit);
      process.off("SIGTERM", quit);
      stdin.setRawMode(false);
      stdin.pause();
      io.stdout.write(LEAVE_SCREEN);
      resolve();
    };
    const onKey = (data: Buffer) => {
      const key = data.toString("utf8");
      if (key.includes("q") || key.includes("Q") || key.includes("\x03")) quit();
    };
    const draw = async () => {
      const text = await frame();
      if (done) return;
      io.stdout.write(HOME_CLEAR + text.replaceAll("\n", "\r\n"));
      timer = setTimeout(draw, intervalMs);
    };
    stdin.setRawMode(true);
    stdin.resume();
    stdin.on("data", onKey);
    process.on("SIGINT", quit);
    process.on("SIGTERM", quit);
    io.stdout.write(ENTER_SCREEN);
    void draw();
  });
}
