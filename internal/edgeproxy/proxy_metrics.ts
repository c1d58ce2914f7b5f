/**
 * The metrics the proxy's agents are expected to export (documented in docs/edgectl.md), and the
 * views `edgectl metrics` builds from them with PromQL. Object labels (`gateway`, `route`,
 * `backend`, `vip`) hold `<namespace>/<name>`, as in the access log; `node` is the agent's node.
 */
import type { Cell } from "../cli/mod.ts";
import { formatByteRate, formatNumber, formatPercent, formatSeconds } from "./metric_format.ts";
import type { Labels, PrometheusClient } from "./prometheus_client.ts";

export const METRICS = {
  /** gauge, 1 per agent: labels node, version. */
  agentInfo: "edgeproxy_agent_info",
  /** gauge: generation of the configuration the agent runs; label node. */
  configGeneration: "edgeproxy_agent_config_generation",
  /** gauge: open client connections; label node. */
  activeConnections: "edgeproxy_agent_active_connections",
  /** counter: finished requests; labels node, gateway, route, backend, method, code. */
  requests: "edgeproxy_http_requests_total",
  /** histogram (seconds): request duration; labels node, gateway, route, backend, le. */
  duration: "edgeproxy_http_request_duration_seconds",
  /** gauge: endpoints of a backend by health; labels node, backend, state (healthy|unhealthy). */
  backendEndpoints: "edgeproxy_backend_endpoints",
  /** gauge: 1 on the node that holds the VIP, 0 on standbys; labels vip, address, mode, node. */
  vipInfo: "edgeproxy_vip_info",
  /** counter: bytes through a VIP; labels vip, node, direction (rx|tx). */
  vipBytes: "edgeproxy_vip_bytes_total",
} as const;

export interface ViewOptions {
  /** Rate window, a PromQL duration such as 5m. */
  window: string;
  /** Extra label matchers, e.g. node="worker-1". */
  matchers?: Labels;
}

/** `{a="x",b="y"}` with values escaped as PromQL strings; extra matchers inside the braces. */
export function selector(labels: Labels = {}, extra: string[] = []): string {
  const parts = [
    ...Object.entries(labels).map(([k, v]) => `${k}=${JSON.stringify(v)}`),
    ...extra,
  ];
  return parts.length ? `{${parts.join(",")}}` : "";
}

/** The PromQL of requests per second, 5xx ratio and latency quantiles, grouped by `by`. */
export function trafficQueries(by: string[], o: ViewOptions) {
  const group = by.join(", ");
  const m = o.matchers ?? {};
  const rate = `sum by (${group}) (rate(${METRICS.requests}${selector(m)}[${o.window}]))`;
  const errors = `sum by (${group}) (rate(${METRICS.requests}${selector(m, ['code=~"5.."'])}[${o.window}]))`;
  // One expression, so both rates come from the same samples: two queries at one instant can each
  // see a different number of scrapes (a scrape stamped before the instant may land between them).
  // `or … * 0` gives 0, not nothing, for groups without a 5xx; a group with no traffic gives NaN.
  const errorRatio = `(${errors} or ${rate} * 0) / ${rate}`;
  const quantile = (q: number) =>
    `histogram_quantile(${q}, sum by (${group}, le) (rate(${METRICS.duration}_bucket${
      selector(m)
    }[${o.window}])))`;
  return { rate, errorRatio, p50: quantile(0.5), p99: quantile(0.99) };
}

export interface TrafficRow {
  key: Labels;
  rps: number;
  errorRatio: number | undefined;
  p50: number | undefined;
  p99: number | undefined;
}

const keyOf = (labels: Labels, by: string[]) => JSON.stringify(by.map((l) => labels[l] ?? ""));

/** Requests/s, error ratio and latency per group, from four instant queries at one instant. */
export async function traffic(client: PrometheusClient, by: string[], o: ViewOptions): Promise<TrafficRow[]> {
  const q = trafficQueries(by, o);
  const at = await client.now();
  const [rate, errorRatio, p50, p99] = await Promise.all([
    client.vector(q.rate, at),
    client.vector(q.errorRatio, at),
    client.vector(q.p50, at),
    client.vector(q.p99, at),
  ]);
  const index = (v: { metric: Labels; value: number }[]) =>
    new Map(v.map((s) => [keyOf(s.metric, by), s.value]));
  const [ratio, l50, l99] = [index(errorRatio), index(p50), index(p99)];
  return rate.map((s) => {
    const k = keyOf(s.metric, by);
    const r = ratio.get(k);
    return {
      key: Object.fromEntries(by.map((l) => [l, s.metric[l] ?? ""])),
      rps: s.value,
      errorRatio: s.value > 0 && r !== undefined && Number.isFinite(r) ? r : undefined,
      p50: l50.get(k),
      p99: l99.get(k),
    };
  });
}

export interface Table {
  headers: string[];
  rows: Cell[][];
  /** The rows as objects, for -o json|yaml. */
  items: Record<string, unknown>[];
}

/** `metrics agent [node]`: one row per agent (from edgeproxy_agent_info). */
export async function agentView(client: PrometheusClient, o: ViewOptions): Promise<Table> {
  const m = o.matchers ?? {};
  const [info, conns, gens, rows] = await Promise.all([
    client.vector(`max by (node, version) (${METRICS.agentInfo}${selector(m)})`),
    client.vector(`sum by (node) (${METRICS.activeConnections}${selector(m)})`),
    client.vector(`max by (node) (${METRICS.configGeneration}${selector(m)})`),
    traffic(client, ["node"], o),
  ]);
  const byNode = <T>(list: T[], node: (t: T) => string) => new Map(list.map((t) => [node(t), t]));
  const c = byNode(conns, (s) => s.metric.node ?? "");
  const g = byNode(gens, (s) => s.metric.node ?? "");
  const t = byNode(rows, (r) => r.key.node ?? "");
  const items = info
    .map((s) => s.metric.node ?? "")
    .sort()
    .map((node) => {
      const r = t.get(node);
      return {
        node,
        version: info.find((s) => s.metric.node === node)?.metric.version ?? "",
        requestsPerSecond: r?.rps ?? 0,
        errorRatio: r?.errorRatio,
        p99Seconds: r?.p99,
        activeConnections: c.get(node)?.value,
        configGeneration: g.get(node)?.value,
      };
    });
  return {
    headers: ["NODE", "VERSION", "RPS", "ERRORS", "P99", "CONNECTIONS", "CONFIG GEN"],
    rows: items.map((i) => [
      i.node,
      i.version,
      formatNumber(i.requestsPerSecond),
      formatPercent(i.errorRatio),
      formatSeconds(i.p99Seconds),
      formatNumber(i.activeConnections),
      formatNumber(i.configGeneration),
    ]),
    items,
  };
}

/** Traffic of one kind of object (route or backend), busiest first, at most `limit` rows. */
export async function objectTrafficView(
  client: PrometheusClient,
  label: "route" | "backend",
  o: ViewOptions & { limit?: number },
): Promise<Table> {
  let rows = (await traffic(client, [label], o)).filter((r) => r.key[label]);
  rows.sort((a, b) => b.rps - a.rps || a.key[label]!.localeCompare(b.key[label]!));
  if (o.limit !== undefined) rows = rows.slice(0, o.limit);
  const health = label === "backend" ? await backendHealth(client, o) : new Map<string, string>();
  const items = rows.map((r) => ({
    [label]: r.key[label],
    requestsPerSecond: r.rps,
    errorRatio: r.errorRatio,
    p50Seconds: r.p50,
    p99Seconds: r.p99,
    ...(label === "backend" ? { healthyEndpoints: health.get(r.key.backend!) } : {}),
  }));
  return {
    headers: [
      label.toUpperCase(),
      "RPS",
      "ERRORS",
      "P50",
      "P99",
      ...(label === "backend" ? ["HEALTHY"] : []),
    ],
    rows: rows.map((r) => [
      r.key[label],
      formatNumber(r.rps),
      formatPercent(r.errorRatio),
      formatSeconds(r.p50),
      formatSeconds(r.p99),
      ...(label === "backend" ? [health.get(r.key.backend!)] : []),
    ]),
    items,
  };
}

/** "healthy/total" endpoints per backend (the highest any agent reports). */
async function backendHealth(client: PrometheusClient, o: ViewOptions): Promise<Map<string, string>> {
  const v = await client.vector(
    `max by (backend, state) (${METRICS.backendEndpoints}${selector(o.matchers)})`,
  );
  const counts = new Map<string, { healthy: number; total: number }>();
  for (const s of v) {
    const b = s.metric.backend ?? "";
    const c = counts.get(b) ?? { healthy: 0, total: 0 };
    c.total += s.value;
    if (s.metric.state === "healthy") c.healthy += s.value;
    counts.set(b, c);
  }
  return new Map([...counts].map(([b, c]) => [b, `${c.healthy}/${c.total}`]));
}

/** `metrics vips`: each VIP with its owner node and traffic. */
export async function vipView(client: PrometheusClient, o: ViewOptions): Promise<Table> {
  const m = o.matchers ?? {};
  const [info, bytes] = await Promise.all([
    client.vector(`max by (vip, address, mode, node) (${METRICS.vipInfo}${selector(m)})`),
    client.vector(`sum by (vip, direction) (rate(${METRICS.vipBytes}${selector(m)}[${o.window}]))`),
  ]);
  const vips = [...new Set(info.map((s) => s.metric.vip ?? ""))].sort();
  const items = vips.map((vip) => {
    const rows = info.filter((s) => s.metric.vip === vip);
    const owner = rows.find((s) => s.value === 1);
    const rate = (dir: string) =>
      bytes.find((s) => s.metric.vip === vip && s.metric.direction === dir)?.value;
    return {
      vip,
      address: rows[0]?.metric.address ?? "",
      mode: rows[0]?.metric.mode ?? "",
      owner: owner?.metric.node,
      standbys: rows.filter((s) => s !== owner).map((s) => s.metric.node ?? "").sort(),
      rxBytesPerSecond: rate("rx"),
      txBytesPerSecond: rate("tx"),
    };
  });
  return {
    headers: ["VIP", "ADDRESS", "MODE", "OWNER", "STANDBYS", "RX", "TX"],
    rows: items.map((i) => [
      i.vip,
      i.address,
      i.mode,
      i.owner,
      i.standbys.join(","),
      formatByteRate(i.rxBytesPerSecond),
      formatByteRate(i.txBytesPerSecond),
    ]),
    items,
  };
}
