/** Admin: live counters, rates and latency (polled every 5 s) and the 24 h per-minute history. */
import { useEffect, useRef, useState } from "preact/hooks";
import { type AdminMetrics, api } from "../api.ts";
import { perMinute, RangePicker, Sparkline, TimeChart } from "../charts.tsx";
import { ErrorNote, formatNumber, Loading, PageHeader, Time } from "../components.tsx";

const POLL_MS = 5000;
const KINDS = ["remember", "search", "update", "forget", "recent", "neighbors"];
const GAUGES: Record<string, string> = {
  entries: "Entries",
  edges: "Graph links",
  pendingEmbeddings: "Waiting for embedding",
  sseSessions: "MCP SSE sessions",
  httpSessions: "MCP HTTP sessions",
  vectorIndexSize: "Vectors in memory",
};
const LABELS: Record<string, string> = {
  queries: "Searches",
  zeroHitQueries: "Searches with no result",
  remembers: "Writes",
  deduplicated: "Duplicate writes",
  rejected: "Rejected writes",
  updates: "Updates",
  forgets: "Forgotten",
  degradedSearches: "Degraded searches",
  searchErrors: "Search errors",
  rememberErrors: "Write errors",
};

/** "dreamMerges" -> "Dream merges" */
function sentenceCase(camel: string): string {
  const words = camel.replace(/([A-Z])/g, " $1").toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

function uptime(seconds: number): string {
  const d = Math.floor(seconds / 86400);
  const h = Math.floor((seconds % 86400) / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  return d ? `${d} d ${h} h` : h ? `${h} h ${m} min` : `${m} min`;
}

export function MetricsPage() {
  const [data, setData] = useState<AdminMetrics>();
  const [error, setError] = useState<unknown>();
  const [live, setLive] = useState(true);
  const rates = useRef<number[]>([]);

  useEffect(() => {
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const tick = async () => {
      // A hidden tab does not poll; it catches up when shown again.
      if (document.hidden && rates.current.length > 0) {
        timer = setTimeout(tick, POLL_MS);
        return;
      }
      try {
        const m = await api.metrics();
        if (stopped) return;
        rates.current = [...rates.current, m.rates.requestsPerSecond].slice(-60);
        setData(m);
        setError(undefined);
      } catch (err) {
        if (!stopped) setError(err);
      }
      if (!stopped && live) timer = setTimeout(tick, POLL_MS);
    };
    void tick();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [live]);

  return (
    <>
      <PageHeader
        title="Metrics"
        lead="Counters since this process started; the history covers the last 24 hours."
      >
        <label class="toggle">
          <input type="checkbox" checked={live} onChange={(e) => setLive(e.currentTarget.checked)} />
          Update every 5 s
        </label>
      </PageHeader>
      <ErrorNote error={error} />
      {!data && !error && <Loading />}
      {data && <MetricsView data={data} rates={rates.current} />}
    </>
  );
}

function MetricsView({ data, rates }: { data: AdminMetrics; rates: number[] }) {
  const [hours, setHours] = useState(24);
  const { start, series } = perMinute(data.history, KINDS, hours);
  const routes = Object.entries(data.latency.routes).sort(([, a], [, b]) => b.count - a.count);
  const tools = Object.entries(data.latency.tools).sort(([, a], [, b]) => b.count - a.count);
  return (
    <>
      <section aria-labelledby="h-live" class="section">
        <h2 id="h-live" class="section-title">Now</h2>
        <div class="stats">
          <Stat label="Requests / s" value={formatNumber(data.rates.requestsPerSecond)}>
            <Sparkline values={rates} label="Requests per second, recent samples" />
          </Stat>
          <Stat label="Writes / s" value={formatNumber(data.rates.remembersPerSecond)} />
          <Stat label="Searches / s" value={formatNumber(data.rates.searchesPerSecond)} />
          <Stat label="Uptime" value={uptime(data.uptimeSeconds)} />
          {Object.entries(data.gauges).filter(([, v]) => typeof v === "number").map(([k, v]) => (
            <Stat
              key={k}
              label={GAUGES[k] ?? sentenceCase(k)}
              value={formatNumber(v as number)}
            />
          ))}
        </div>
        {typeof data.gauges.countedAt === "string" && (
          <p class="muted small">
            Rates cover the last minute. Entry and link counts are refreshed every 30 s (last{" "}
            <Time iso={data.gauges.countedAt} />) to keep this page cheap.
          </p>
        )}
      </section>
      <section aria-labelledby="h-counters" class="section">
        <h2 id="h-counters" class="section-title">Counters</h2>
        <div class="stats">
          {Object.entries(data.counters).map(([k, v]) => (
            <Stat
              key={k}
              label={LABELS[k] ?? sentenceCase(k)}
              value={formatNumber(v)}
              id={`counter-${k}`}
            />
          ))}
        </div>
      </section>
      <section aria-labelledby="h-history" class="section">
        <div class="section-head">
          <h2 id="h-history" class="section-title">History, per minute</h2>
          <RangePicker hours={hours} onChange={setHours} />
        </div>
        <TimeChart
          title="Writes and searches"
          start={start}
          series={[
            { name: "remember", values: series.remember!, tone: 0 },
            { name: "search", values: series.search!, tone: 1 },
          ]}
        />
        <TimeChart
          title="Other calls"
          start={start}
          height={120}
          series={[
            { name: "update", values: series.update!, tone: 2 },
            { name: "forget", values: series.forget!, tone: 3 },
            { name: "recent", values: series.recent!, tone: 4 },
            { name: "neighbors", values: series.neighbors!, tone: 5 },
          ]}
        />
      </section>
      <section aria-labelledby="h-latency" class="section">
        <h2 id="h-latency" class="section-title">Latency (ms)</h2>
        <LatencyTable caption="HTTP routes" rows={routes} />
        {tools.length > 0 && <LatencyTable caption="MCP tools" rows={tools} />}
      </section>
    </>
  );
}

function Stat(props: { label: string; value: string; id?: string; children?: preact.ComponentChildren }) {
  return (
    <div class="stat" id={props.id}>
      <div class="stat-label">{props.label}</div>
      <div class="stat-value" data-testid={props.id}>{props.value}</div>
      {props.children}
    </div>
  );
}

function LatencyTable(
  props: { caption: string; rows: [string, { count: number; p50: number; p95: number; p99: number }][] },
) {
  if (props.rows.length === 0) return <p class="muted">No {props.caption.toLowerCase()} called yet.</p>;
  return (
    <div class="table-wrap">
      <table class="table numeric">
        <caption>{props.caption}</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Calls</th>
            <th scope="col">p50</th>
            <th scope="col">p95</th>
            <th scope="col">p99</th>
          </tr>
        </thead>
        <tbody>
          {props.rows.map(([name, l]) => (
            <tr key={name}>
              <th scope="row">
                <code>{name}</code>
              </th>
              <td>{formatNumber(l.count)}</td>
              <td>{formatNumber(l.p50)}</td>
              <td>{formatNumber(l.p95)}</td>
              <td>{formatNumber(l.p99)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
