/**
 * The edgectl dashboard: the proxy's resources with their conditions, routes → backends, live traffic
 * from Prometheus, recent traces, the agents' access log and, unless the server runs --read-only, apply
 * and delete. Everything it shows or changes goes through `edgectl web` as the signed-in user.
 */
import { render } from "preact";
import { useCallback, useEffect, useState } from "preact/hooks";
import {
  type AccessRecord,
  get,
  type MetricsView,
  post,
  type ResourceKind,
  type ResourceRow,
  type Session,
  setUnauthorizedHandler,
  type TopologyEdge,
  type TraceSummary,
} from "./api.ts";
import { LineChart } from "./chart.tsx";
import { useLoad } from "../shared/use_load.ts";
import { TopBar } from "../shared/top_bar.tsx";
import { SignInCard } from "../shared/sign_in_card.tsx";
import { ErrorNote, Loading } from "../shared/ui.tsx";

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

function Ready({ status }: { status?: string }) {
  const cls = status === "True" ? "ok" : status === "False" ? "danger" : "warn";
  return <span class={`badge badge-${cls}`}>{status ?? "—"}</span>;
}

function DeleteButton({ row, onDone }: { row: ResourceRow; onDone: () => void }) {
  const [armed, setArmed] = useState(false);
  const [error, setError] = useState<string>();
  const run = async () => {
    try {
      await post("/api/delete", {
        apiVersion: row.apiVersion,
        kind: row.kind,
        namespace: row.namespace,
        name: row.name,
      });
      onDone();
    } catch (err) {
      setError((err as Error).message);
      setArmed(false);
    }
  };
  return (
    <span>
      {armed
        ? (
          <>
            <button type="button" class="danger" onClick={run}>Confirm delete</button>
            <button type="button" onClick={() => setArmed(false)}>Cancel</button>
          </>
        )
        : <button type="button" onClick={() => setArmed(true)}>Delete</button>}
      {error && <span class="error" role="alert">{error}</span>}
    </span>
  );
}

interface ResourcesAnswer {
  kinds: ResourceKind[];
  topology: TopologyEdge[];
}

function ResourcesPage({ writable }: { writable: boolean }) {
  const { data, error, reload } = usePoll<ResourcesAnswer>("/api/resources", 5000);
  if (!data) return <p class={error ? "error" : "muted"}>{error ?? "Loading…"}</p>;
  const shown = data.kinds.filter((k) => k.items.length > 0 || k.error);
  const empty = data.kinds.filter((k) => k.items.length === 0 && !k.error).map((k) => k.kind);
  return (
    <div>
      {error && <p class="error">Refresh failed: {error}</p>}
      {shown.map((k) => (
        <section key={k.kind} class="kind" data-kind={k.kind}>
          <h2>
            {k.kind} <span class="muted">({k.items.length})</span>
          </h2>
          {k.error ? <p class="error">{k.error}</p> : (
            <div class="table-wrap">
              <table class="table">
                <thead>
                  <tr>
                    <th>NAMESPACE</th>
                    <th>NAME</th>
                    {k.headers.filter((h) => h !== "READY").map((h) => <th key={h}>{h}</th>)}
                    <th>READY</th>
                    <th>CONDITIONS</th>
                    {writable && <th />}
                  </tr>
                </thead>
                <tbody>
                  {k.items.map((r) => (
                    <tr key={`${r.namespace}/${r.name}`} data-name={`${r.namespace}/${r.name}`}>
                      <td>{r.namespace}</td>
                      <td>{r.name}</td>
                      {k.headers.map((h, i) =>
                        h === "READY" ? null : <td key={h}>{r.cells[i]}</td>
                      )}
                      <td>
                        <Ready status={r.ready} />
                      </td>
                      <td class="conditions">
                        {r.conditions.length === 0
                          ? <span class="muted">none</span>
                          : r.conditions.map((c) => (
                            <div key={c.type} title={c.message ?? ""}>
                              {c.type}={c.status}
                              {c.reason ? ` (${c.reason})` : ""}
                              {c.message ? <span class="muted">: {c.message}</span> : null}
                            </div>
                          ))}
                      </td>
                      {writable && (
                        <td>
                          <DeleteButton row={r} onDone={reload} />
                        </td>
                      )}
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </section>
      ))}
      {empty.length > 0 && <p class="muted">No objects of kind {empty.join(", ")}.</p>}
    </div>
  );
}

function TopologyPage() {
  const { data, error } = usePoll<ResourcesAnswer>("/api/resources", 5000);
  if (!data) return <p class={error ? "error" : "muted"}>{error ?? "Loading…"}</p>;
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
      {error && <p class="error">{error}</p>}
      {data && (
        <div class="charts">
          <LineChart
            title="Requests per second by route"
            start={data.start}
            end={data.end}
            series={data.rps}
            format={rate}
          />
          <LineChart
            title="5xx ratio by route"
            start={data.start}
            end={data.end}
            series={data.errorRatio}
            format={percent}
          />
          <LineChart
            title="p99 latency by route"
            start={data.start}
            end={data.end}
            series={data.p99}
            format={seconds}
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
  if (error) return <p class="error">{error}</p>;
  return <pre class="span-tree" aria-label={`Spans of trace ${id}`}>{tree ?? "Loading…"}</pre>;
}

function TracesPage({ source }: { source: string | null }) {
  const { data, error } = usePoll<{ traces: TraceSummary[] }>("/api/traces?limit=30", 10_000);
  const [open, setOpen] = useState<string>();
  return (
    <div>
      <p class="muted">From {source}, last hour</p>
      {error && <p class="error">{error}</p>}
      {data &&
        (data.traces.length === 0
          ? <p class="muted">No traces in the last hour.</p>
          : (
            <div class="table-wrap">
              <table class="table">
                <thead>
                  <tr>
                    <th>TRACE ID</th>
                    <th>OPERATION</th>
                    <th>SERVICE</th>
                    <th>DURATION</th>
                    <th>SPANS</th>
                    <th>ERRORS</th>
                    <th>START</th>
                  </tr>
                </thead>
                <tbody>
                  {data.traces.map((t) => (
                    <tr key={t.traceID} data-trace={t.traceID}>
                      <td class="mono">
                        <button
                          type="button"
                          class="link"
                          onClick={() => setOpen(open === t.traceID ? undefined : t.traceID)}
                        >
                          {t.traceID}
                        </button>
                      </td>
                      <td>{t.operation}</td>
                      <td>{t.service}</td>
                      <td>{seconds(t.durationMicros / 1e6)}</td>
                      <td>{t.spans}</td>
                      <td>{t.errors ? <span class="badge badge-danger">{t.errors}</span> : 0}</td>
                      <td>{new Date(t.startTime).toLocaleString()}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          ))}
      {open && <SpanTree id={open} />}
    </div>
  );
}

function AccessPage() {
  const { data, error } = usePoll<{ records: AccessRecord[] }>("/api/access?limit=100", 5000);
  return (
    <div>
      {error && <p class="error">{error}</p>}
      {data &&
        (data.records.length === 0 ? <p class="muted">No access-log records.</p> : (
          <div class="table-wrap">
            <table class="table">
              <thead>
                <tr>
                  <th>TIME</th>
                  <th>NODE</th>
                  <th>GATEWAY</th>
                  <th>ROUTE</th>
                  <th>METHOD</th>
                  <th>HOST</th>
                  <th>PATH</th>
                  <th>STATUS</th>
                  <th>DURATION</th>
                </tr>
              </thead>
              <tbody>
                {data.records.map((r, i) => (
                  <tr key={i} class={r.status >= 500 ? "row-bad" : ""}>
                    <td>{new Date(r.time).toLocaleTimeString()}</td>
                    <td>{r.node}</td>
                    <td>{r.gateway}</td>
                    <td>{r.route}</td>
                    <td>{r.method}</td>
                    <td>{r.host}</td>
                    <td class="mono">{r.path}</td>
                    <td>{r.status}</td>
                    <td>{r.duration_ms === undefined ? "" : `${r.duration_ms} ms`}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
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
      {error && <p class="error" role="alert">{error}</p>}
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
