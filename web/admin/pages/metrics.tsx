/** Admin: live counters, rates and latency (polled every 5 s) and the 24 h per-minute history. */
import { TableWrap } from "../../shared/ui.tsx";
import { useEffect, useRef, useState } from "preact/hooks";
import { type AdminMetrics, api } from "../api.ts";
import { activitySeries, chartRange, RangePicker, Sparkline } from "../charts.tsx";
import { LineChart } from "../../shared/line_chart.tsx";
import { ErrorNote, formatNumber, Loading, PageHeader, Time } from "../components.tsx";

const POLL_MS = 5000;
const MAIN_KINDS = [{ kind: "remember", label: "Writes" }, { kind: "search", label: "Searches" }];
const OTHER_KINDS = [
  { kind: "update", label: "Updates" },
  { kind: "forget", label: "Forgets" },
  { kind: "recent", label: "Recent lists" },
  { kind: "neighbors", label: "Graph reads" },
];
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
  degradedSearches: "Searches with a failed tier",
  searchErrors: "Search errors",
  keywordHits: "Results from keywords",
  vectorHits: "Results from vectors",
  remembers: "Writes",
  deduplicated: "Duplicate writes",
  rejected: "Writes refused by the gate",
  rememberErrors: "Write errors",
  updates: "Updates",
  forgets: "Forgotten",
  promotions: "Promoted back by a hit",
  demotions: "Demoted by decay",
  decayRuns: "Decay runs",
  dreamMerges: "Merged by the dream cycle",
  orphansReaped: "Orphans removed",
  loopSkips: "Maintenance runs skipped",
};
/** Counters in groups; each group always shows its first, the others only when they are not 0. */
const GROUPS: { title: string; counters: string[] }[] = [
  {
    title: "Writes",
    counters: ["remembers", "deduplicated", "rejected", "updates", "forgets", "rememberErrors"],
  },
  {
    title: "Searches",
    counters: ["queries", "zeroHitQueries", "degradedSearches", "searchErrors", "keywordHits", "vectorHits"],
  },
  {
    title: "Maintenance",
    counters: ["decayRuns", "promotions", "demotions", "dreamMerges", "orphansReaped", "loopSkips"],
  },
];

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
        lead="Counters since this process started; the history keeps the last 24 hours."
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
  const [hours, setHours] = useState(0);
  const range = chartRange(data.history, hours);
  const grouped = new Set(GROUPS.flatMap((g) => g.counters));
  const groups = [
    ...GROUPS,
    { title: "Other", counters: Object.keys(data.counters).filter((k) => !grouped.has(k)) },
  ].map((g) => {
    const known = g.counters.filter((k) => k in data.counters);
    const shown = known.filter((k, i) => i === 0 || data.counters[k] !== 0);
    return { title: g.title, shown, zero: known.filter((k) => !shown.includes(k)) };
  }).filter((g) => g.shown.length + g.zero.length > 0);
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
        {groups.map((g) => (
          <div key={g.title} class="counter-group">
            <h3 class="small-title">{g.title}</h3>
            <div class="stats">
              {g.shown.map((k) => (
                <Stat
                  key={k}
                  label={LABELS[k] ?? sentenceCase(k)}
                  value={formatNumber(data.counters[k]!)}
                  id={`counter-${k}`}
                />
              ))}
            </div>
            {g.zero.length > 0 && (
              <p class="muted small" data-testid={`zero-${g.title}`}>
                At 0: {g.zero.map((k) => LABELS[k] ?? sentenceCase(k)).join(", ")}.
              </p>
            )}
          </div>
        ))}
      </section>
      <section aria-labelledby="h-history" class="section">
        <div class="section-head">
          <h2 id="h-history" class="section-title">History, per minute</h2>
          <RangePicker hours={hours} onChange={setHours} />
        </div>
        <LineChart
          title="Writes and searches per minute"
          start={range.start}
          end={range.end}
          series={activitySeries(data.history, MAIN_KINDS, range)}
        />
        <LineChart
          title="Other calls per minute"
          start={range.start}
          end={range.end}
          height={130}
          series={activitySeries(data.history, OTHER_KINDS, range, 2)}
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
    <TableWrap label={props.caption}>
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
    </TableWrap>
  );
}
