/**
 * `edgectl metrics dashboard`'s screen: a snapshot of the proxy's traffic from Prometheus (totals with
 * their history, the busiest routes with a trend each, backends, agents), one frame of text drawn from
 * it, and the live loop that redraws on the terminal's alternate screen until q, Ctrl-C or SIGTERM.
 */
import { formatTable, type Io } from "../cli/mod.ts";
import { formatNumber, formatPercent, formatSeconds, sparkline } from "./metric_format.ts";
import type { PrometheusClient } from "./prometheus_client.ts";
import { agentView, METRICS, objectTrafficView, type Table } from "./proxy_metrics.ts";

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

/** Redraws until q, Ctrl-C or SIGTERM; the terminal is restored on every way out. */
export async function runLive(io: Io, frame: () => Promise<string>, intervalMs: number): Promise<void> {
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
