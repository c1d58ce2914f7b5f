/**
 * The edgectl dashboard: the proxy's resources with their conditions, routes → backends, live traffic
 * from Prometheus, recent traces, the agents' access log and, unless the server runs --read-only, apply
 * and delete. Everything it shows or changes goes through `edgectl web` as the signed-in user.
 */
import { render } from "preact";
import { useCallback, useEffect, useRef, useState } from "preact/hooks";
import {
  type AccessRecord,
  get,
  type MetricsView,
  post,
  type ResourceKind,
  type ResourceRow,
  type Series,
  type Session,
  setUnauthorizedHandler,
  type TopologyEdge,
  type TraceSummary,
} from "./api.ts";
import { type ChartSeries, LineChart } from "../shared/line_chart.tsx";
import { useLoad } from "../shared/use_load.ts";
import { TopBar } from "../shared/top_bar.tsx";
import { SignInCard } from "../shared/sign_in_card.tsx";
import { Badge, Empty, ErrorNote, Loading, StatusBadge } from "../shared/ui.tsx";
import { DataTable } from "../shared/data_table.tsx";
import { Confirm } from "../shared/modal.tsx";

const TABS = [
  { id: "resources", title: "Resources" },
  { id: "topology", title: "Topology" },
  { id: "metrics", title: "Metrics" },
  { id: "traces", title: "Traces" },
  { id: "access", title: "Access log" },
  { id: "apply", title: "Apply", write: true },
] as const;
type TabId = (typeof TABS)[number]["id"];

function useHash(): TabId {
  const read = () => (location.hash.replace(/^#\/?/, "") || "resources") as TabId;
  const [tab, setTab] = useState(read);
  useEffect(() => {
    const on = () => setTab(read());
    addEventListener("hashchange", on);
    return () => removeEventListener("hashchange", on);
  }, []);
  return tab;
}

/** Loads `path` now and every `everyMs`, keeping the last good answer while a refresh fails. */
function usePoll<T>(path: string, everyMs: number): { data?: T; error?: string; reload: () => void } {
  const state = useLoad(() => get<T>(path), [path], { everyMs });
  return {
    ...(state.data === undefined ? {} : { data: state.data }),
    ...(state.error ? { error: (state.error as Error).message } : {}),
    reload: () => void state.reload(),
  };
}

/** A row's actions behind one button (Delete asks first): no destructive button on every row. */
function RowMenu({ row, onDelete }: { row: ResourceRow; onDelete: (row: ResourceRow) => void }) {
  const [open, setOpen] = useState(false);
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!open) return;
    const away = (e: Event) => !ref.current?.contains(e.target as Node) && setOpen(false);
    const escape = (e: KeyboardEvent) => e.key === "Escape" && setOpen(false);
    document.addEventListener("pointerdown", away);
    document.addEventListener("keydown", escape);
    return () => {
      document.removeEventListener("pointerdown", away);
      document.removeEventListener("keydown", escape);
    };
  }, [open]);
  return (
    <div class="row-menu" ref={ref}>
      <button
        type="button"
        class="btn-icon"
        aria-haspopup="menu"
        aria-expanded={open}
        aria-label={`Actions for ${row.kind} ${row.namespace}/${row.name}`}
        onClick={() => setOpen(!open)}
      >
        ⋯
      </button>
      {open && (
        <div class="menu" role="menu">
          <button
            type="button"
            role="menuitem"
            class="danger"
            onClick={() => {
              setOpen(false);
              onDelete(row);
            }}
          >
            Delete…
          </button>
        </div>
      )}
    </div>
  );
}

interface ResourcesAnswer {
  kinds: ResourceKind[];
  topology: TopologyEdge[];
}

const ready = (r: ResourceRow) => r.conditions.find((c) => c.type === "Ready");

/** How many objects are ready, not ready, or say nothing yet. */
function readiness(rows: readonly ResourceRow[]) {
  const of = (status: string | undefined) => rows.filter((r) => ready(r)?.status === status).length;
  const yes = of("True"), no = of("False");
  return { total: rows.length, ready: yes, notReady: no, unknown: rows.length - yes - no };
}

function ResourcesPage({ writable }: { writable: boolean }) {
  const { data, error, reload } = usePoll<ResourcesAnswer>("/api/resources", 5000);
  const [namespace, setNamespace] = useState("");
  const [kind, setKind] = useState("");
  const [deleting, setDeleting] = useState<ResourceRow>();
  if (!data) return error ? <ErrorNote error={error} onRetry={reload} /> : <Loading />;
  const namespaces = [...new Set(data.kinds.flatMap((k) => k.items.map((r) => r.namespace)))].sort();
  const listed = data.kinds.filter((k) => k.items.length > 0 || k.error);
  const kinds = data.kinds
    .filter((k) => !kind || k.kind === kind)
    .map((k) => ({ ...k, items: k.items.filter((r) => !namespace || r.namespace === namespace) }));
  const shown = kinds.filter((k) => k.items.length > 0 || (k.error && !namespace));
  const empty = data.kinds.filter((k) => k.items.length === 0 && !k.error).map((k) => k.kind);
  const count = readiness(kinds.flatMap((k) => k.items));
  return (
    <div>
      {error && <ErrorNote error={`Refresh failed: ${error}`} onRetry={reload} />}
      <div class="summary" role="status" data-testid="summary">
        <strong>{count.total} {count.total === 1 ? "object" : "objects"}</strong>
        <Badge tone={count.notReady ? "danger" : "neutral"}>{count.notReady} not ready</Badge>
        <Badge tone="ok">{count.ready} ready</Badge>
        {count.unknown > 0 && <Badge tone="neutral">{count.unknown} without status</Badge>}
      </div>
      <div class="filters">
        <label>
          Namespace{" "}
          <select value={namespace} onChange={(e) => setNamespace(e.currentTarget.value)}>
            <option value="">all namespaces</option>
            {namespaces.map((n) => <option key={n} value={n}>{n}</option>)}
          </select>
        </label>
        <label>
          Kind{" "}
          <select value={kind} onChange={(e) => setKind(e.currentTarget.value)}>
            <option value="">all kinds</option>
            {listed.map((k) => <option key={k.kind} value={k.kind}>{k.kind}</option>)}
          </select>
        </label>
      </div>
      {shown.length === 0 && <Empty title="Nothing matches these filters" />}
      {shown.map((k) => (
        <section key={k.kind} class="kind" data-kind={k.kind}>
          <h2>
            {k.kind} <span class="muted">({k.items.length})</span>
          </h2>
          {k.error ? <ErrorNote error={k.error} /> : (
            <DataTable
              label={k.kind}
              rows={k.items}
              rowKey={(r) => `${r.namespace}/${r.name}`}
              rowProps={(r) => ({ "data-name": `${r.namespace}/${r.name}` })}
              columns={[
                { header: "NAMESPACE", cell: (r) => r.namespace },
                { header: "NAME", cell: (r) => r.name },
                ...k.headers.flatMap((h, i) =>
                  h === "READY" ? [] : [{ header: h, cell: (r: ResourceRow) => r.cells[i] }]
                ),
                {
                  header: "READY",
                  cell: (r) => <StatusBadge condition={ready(r)} label={ready(r)?.status ?? "no status"} />,
                },
                {
                  header: "CONDITIONS",
                  class: "conditions",
                  cell: (r) =>
                    r.conditions.length === 0
                      ? <span class="muted">none</span>
                      : r.conditions.map((c) => (
                        <div key={c.type} title={c.message ?? ""}>
                          {c.type}={c.status}
                          {c.reason ? ` (${c.reason})` : ""}
                          {c.message ? <span class="muted">: {c.message}</span> : null}
                        </div>
                      )),
                },
                writable && {
                  header: <span class="sr-only">Actions</span>,
                  cell: (r) => <RowMenu row={r} onDelete={setDeleting} />,
                },
              ]}
            />
          )}
        </section>
      ))}
      {empty.length > 0 && !kind && <p class="muted">No objects of kind {empty.join(", ")}.</p>}
      {deleting && (
        <Confirm
          title={`Delete ${deleting.kind} ${deleting.namespace}/${deleting.name}?`}
          confirmLabel="Delete"
          onClose={() => setDeleting(undefined)}
          onConfirm={async () => {
            await post("/api/delete", {
              apiVersion: deleting.apiVersion,
              kind: deleting.kind,
              namespace: deleting.namespace,
              name: deleting.name,
            });
            setDeleting(undefined);
            reload();
          }}
        >
          <p>
            It is removed from the cluster as you (like{" "}
            <code>edgectl delete</code>); what depends on it stops working.
          </p>
        </Confirm>
      )}
    </div>
  );
}

function TopologyPage() {
  const { data, error } = usePoll<ResourcesAnswer>("/api/resources", 5000);
  if (!data) return error ? <ErrorNote error={error} /> : <Loading />;
  const routes = [
    ...new Set([
      ...(data.kinds.find((k) => k.kind === "ProxyRoute")?.items ?? []).map((r) =>
        `${r.namespace}/${r.name}`
      ),
    ]),
  ];
  const backends = [
    ...new Set([
      ...(data.kinds.find((k) => k.kind === "ProxyBackend")?.items ?? []).map((b) =>
        `${b.namespace}/${b.name}`
      ),
      ...data.topology.map((e) => e.backend),
    ]),
  ].sort();
  const rowH = 36;
  const H = Math.max(routes.length, backends.length, 1) * rowH + 20;
  const yR = (r: string) => 20 + routes.indexOf(r) * rowH;
  const yB = (b: string) => 20 + backends.indexOf(b) * rowH;
  const missing = new Set(data.topology.filter((e) => !e.exists).map((e) => e.backend));
  return (
    <div>
      <svg class="topology" viewBox={`0 0 760 ${H}`} role="img" aria-label="Routes to backends">
        <text class="col" x="10" y="12">ROUTES</text>
        <text class="col" x="520" y="12">BACKENDS</text>
        {data.topology.map((e) => (
          <line
            key={`${e.route}>${e.backend}`}
            class={e.exists ? "edge" : "edge missing"}
            x1="250"
            y1={yR(e.route) + 10}
            x2="510"
            y2={yB(e.backend) + 10}
          />
        ))}
        {routes.map((r) => (
          <g key={r} class="node route">
            <rect x="10" y={yR(r)} width="240" height="22" rx="4" />
            <text x="18" y={yR(r) + 15}>{r}</text>
          </g>
        ))}
        {backends.map((b) => (
          <g key={b} class={missing.has(b) ? "node backend missing" : "node backend"}>
            <rect x="510" y={yB(b)} width="240" height="22" rx="4" />
            <text x="518" y={yB(b) + 15}>{b}{missing.has(b) ? " (missing)" : ""}</text>
          </g>
        ))}
      </svg>
      <ul class="edges">
        {data.topology.map((e) => (
          <li key={`${e.route}>${e.backend}`} data-edge={`${e.route} -> ${e.backend}`}>
            {e.route} → {e.backend}
            {e.exists ? "" : " "}
            {e.exists ? "" : <span class="error">(no such ProxyBackend)</span>}
          </li>
        ))}
      </ul>
    </div>
  );
}

const rate = (v: number) => (v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2)) + "/s";
const percent = (v: number) => `${(v * 100).toFixed(v < 0.1 ? 1 : 0)}%`;
const seconds = (v: number) => (v >= 1 ? `${v.toFixed(2)} s` : `${(v * 1000).toFixed(v < 0.01 ? 1 : 0)} ms`);

/** Prometheus' [unix seconds, value] as the chart's [ms, value]. */
const ms = (series: Series[]): ChartSeries[] =>
  series.map((s) => ({
    label: s.label,
    points: s.points.map(([t, v]) => [t * 1000, v] as [number, number]),
  }));

function MetricsPage({ source }: { source: string | null }) {
  const [minutes, setMinutes] = useState(15);
  const { data, error } = usePoll<MetricsView>(`/api/metrics?minutes=${minutes}`, 10_000);
  return (
    <div>
      <p class="muted">
        From {source} · window{" "}
        <select
          aria-label="Time window"
          value={minutes}
          onChange={(e) => setMinutes(Number((e.target as HTMLSelectElement).value))}
        >
          {[5, 15, 60, 360].map((m) => (
            <option key={m} value={m}>{m < 60 ? `${m} min` : `${m / 60} h`}</option>
          ))}
        </select>{" "}
        · refreshed every 10 s
      </p>
      {error && <ErrorNote error={error} />}
      {data && (
        <div class="charts">
          <LineChart
            title="Requests per second by route"
            start={data.start * 1000}
            end={data.end * 1000}
            series={ms(data.rps)}
            format={rate}
            empty="No requests in this window."
          />
          <LineChart
            title="5xx ratio by route"
            start={data.start * 1000}
            end={data.end * 1000}
            series={ms(data.errorRatio)}
            format={percent}
            empty="No requests in this window."
          />
          <LineChart
            title="p99 latency by route"
            start={data.start * 1000}
            end={data.end * 1000}
            series={ms(data.p99)}
            format={seconds}
            empty="No requests in this window."
          />
        </div>
      )}
    </div>
  );
}

function SpanTree({ id }: { id: string }) {
  const [tree, setTree] = useState<string>();
  const [error, setError] = useState<string>();
  useEffect(() => {
    setTree(undefined);
    get<{ tree: string }>(`/api/traces/${id}`).then(
      (t) => setTree(t.tree),
      (err: Error) => setError(err.message),
    );
  }, [id]);
  if (error) return <ErrorNote error={error} />;
  return <pre class="span-tree" tabIndex={0} aria-label={`Spans of trace ${id}`}>{tree ?? "Loading…"}</pre>;
}

function TracesPage({ source }: { source: string | null }) {
  const { data, error } = usePoll<{ traces: TraceSummary[] }>("/api/traces?limit=30", 10_000);
  const [open, setOpen] = useState<string>();
  return (
    <div>
      <p class="muted">From {source}, last hour</p>
      {error && <ErrorNote error={error} />}
      {data &&
        (data.traces.length === 0 ? <p class="muted">No traces in the last hour.</p> : (
          <DataTable
            label="Traces"
            rows={data.traces}
            rowKey={(t) => t.traceID}
            rowProps={(t) => ({ "data-trace": t.traceID })}
            columns={[
              {
                header: "TRACE ID",
                class: "mono",
                cell: (t) => (
                  <button
                    type="button"
                    class="link"
                    onClick={() => setOpen(open === t.traceID ? undefined : t.traceID)}
                  >
                    {t.traceID}
                  </button>
                ),
              },
              { header: "OPERATION", cell: (t) => t.operation },
              { header: "SERVICE", cell: (t) => t.service },
              { header: "DURATION", cell: (t) => seconds(t.durationMicros / 1e6) },
              { header: "SPANS", cell: (t) => t.spans },
              {
                header: "ERRORS",
                cell: (t) => t.errors ? <span class="badge badge-danger">{t.errors}</span> : 0,
              },
              { header: "START", cell: (t) => new Date(t.startTime).toLocaleString() },
            ]}
          />
        ))}
      {open && <SpanTree id={open} />}
    </div>
  );
}

function AccessPage() {
  const { data, error } = usePoll<{ records: AccessRecord[] }>("/api/access?limit=100", 5000);
  return (
    <div>
      {error && <ErrorNote error={error} />}
      {data &&
        (data.records.length === 0 ? <p class="muted">No access-log records.</p> : (
          <DataTable
            label="Access log"
            rows={data.records}
            rowKey={(_, i) => i}
            rowProps={(r) => ({ class: r.status >= 500 ? "row-bad" : "" })}
            columns={[
              { header: "TIME", cell: (r) => new Date(r.time).toLocaleTimeString() },
              { header: "NODE", cell: (r) => r.node },
              { header: "GATEWAY", cell: (r) => r.gateway },
              { header: "ROUTE", cell: (r) => r.route },
              { header: "METHOD", cell: (r) => r.method },
              { header: "HOST", cell: (r) => r.host },
              { header: "PATH", cell: (r) => r.path, class: "mono" },
              { header: "STATUS", cell: (r) => r.status },
              {
                header: "DURATION",
                cell: (r) => r.duration_ms === undefined ? "" : `${r.duration_ms} ms`,
              },
            ]}
          />
        ))}
    </div>
  );
}

interface ApplyResult {
  kind: string;
  namespace: string;
  name: string;
  action?: string;
  error?: string;
}

function ApplyPage() {
  const [text, setText] = useState("");
  const [results, setResults] = useState<ApplyResult[]>([]);
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const apply = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      setResults((await post<{ results: ApplyResult[] }>("/api/apply", { manifest: text })).results);
    } catch (err) {
      setResults([]);
      setError((err as Error).message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form onSubmit={apply} class="apply">
      <label for="manifest">Manifests (YAML or JSON; several documents separated by ---)</label>
      <textarea
        id="manifest"
        rows={16}
        spellcheck={false}
        value={text}
        onInput={(e) => setText((e.target as HTMLTextAreaElement).value)}
      />
      <button type="submit" disabled={busy || !text.trim()}>Apply</button>
      <ErrorNote error={error} />
      <ul class="results">
        {results.map((r) => (
          <li key={`${r.kind}/${r.namespace}/${r.name}`} class={r.error ? "error" : "ok"}>
            {r.kind.toLowerCase()} {r.namespace}/{r.name}: {r.error ?? r.action}
          </li>
        ))}
      </ul>
    </form>
  );
}

function App() {
  const [session, setSession] = useState<Session>();
  const [error, setError] = useState<string>();
  const tab = useHash();
  const load = useCallback(() => {
    setError(undefined);
    get<Session>("/api/session").then(setSession, (err: Error) => setError(err.message));
  }, []);
  useEffect(() => {
    setUnauthorizedHandler(load);
    load();
  }, [load]);
  if (error) {
    return (
      <main class="main">
        <ErrorNote error={error} onRetry={load} />
      </main>
    );
  }
  if (!session) {
    return (
      <main class="main">
        <Loading />
      </main>
    );
  }
  if (!session.user) {
    return (
      <SignInCard
        product="edgectl"
        title="Sign in to edgectl"
        lead="See the edge proxy's resources, traffic and traces as yourself."
      >
        <a
          class="btn btn-primary"
          href={`/auth/login?back=${encodeURIComponent(location.pathname + location.hash)}`}
        >
          Sign in
        </a>
      </SignInCard>
    );
  }
  const writable = !session.readOnly;
  const signOut = async () => {
    await post("/auth/logout", {});
    load();
  };
  return (
    <div class="layout">
      <a class="skip" href="#main">Skip to content</a>
      <TopBar
        brand="edgectl"
        brandHref="#/resources"
        label="Views"
        links={TABS.filter((t) => writable || !("write" in t)).map((t) => ({
          href: `#/${t.id}`,
          label: t.title,
          current: tab === t.id,
        }))}
      >
        {session.readOnly && <span class="badge badge-neutral">read-only</span>}
        <span id="user" class="who-name">{session.user.name}</span>
        {session.auth === "oidc" && (
          <button type="button" class="btn btn-small" onClick={signOut}>Sign out</button>
        )}
      </TopBar>
      <main id="main" class="main">
        {tab === "resources" && <ResourcesPage writable={writable} />}
        {tab === "topology" && <TopologyPage />}
        {tab === "metrics" && <MetricsPage source={session.prometheus} />}
        {tab === "traces" && <TracesPage source={session.traces} />}
        {tab === "access" && <AccessPage />}
        {tab === "apply" && (writable ? <ApplyPage /> : <p>Changes are off (--read-only).</p>)}
      </main>
    </div>
  );
}

render(<App />, document.getElementById("app")!);
