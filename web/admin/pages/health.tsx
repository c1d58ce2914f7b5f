/** Admin: the deep health snapshot, one card per dependency. */
import { api } from "../api.ts";
import { ErrorNote, formatNumber, Loading, PageHeader, Time, useLoad } from "../components.tsx";

const PART_NAMES: Record<string, string> = {
  database: "Database",
  embedder: "Embedder",
  loops: "Maintenance loops",
  mcp: "MCP sessions",
  vectorIndex: "Vector index",
  disk: "Disk",
};

/** The snapshot's field names, for people (GET /v1/admin/health/deep). */
const FIELD_NAMES: Record<string, string> = {
  backend: "Backend",
  latency: "Answered in",
  migrations: "Migrations",
  applied: "Applied",
  known: "Known",
  error: "Error",
  id: "Model",
  dimensions: "Dimensions",
  sseSessions: "SSE sessions",
  httpSessions: "Streamable HTTP sessions",
  size: "Vectors in memory",
  dataDir: "Data directory",
  free: "Free",
  total: "Size",
  runs: "Runs",
  failures: "Failures",
  skipped: "Skipped",
  lastRun: "Last run",
  lastSkippedAt: "Last skipped",
  at: "At",
  duration: "Took",
  result: "Result",
  decay: "Decay",
  dream: "Dream cycle",
  dreamCycle: "Dream cycle",
  reapOrphans: "Orphan reaping",
};

/** "lastSkippedAt" -> "Last skipped at", for a field this page does not know yet. */
export function fieldName(key: string): string {
  const k = key.replace(/(Bytes|Ms)$/, "");
  if (FIELD_NAMES[k]) return FIELD_NAMES[k];
  const words = k.replace(/([a-z0-9])([A-Z])/g, "$1 $2").toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

function bytes(n: number): string {
  const units = ["B", "KB", "MB", "GB", "TB"];
  let i = 0;
  while (n >= 1024 && i < units.length - 1) {
    n /= 1024;
    i++;
  }
  return `${n.toFixed(i ? 1 : 0)} ${units[i]}`;
}

/** A value of the snapshot, shown for people: sizes in KB/MB/GB, durations in ms, times as "x ago". */
function Value(props: { value: unknown; name?: string }) {
  const v = props.value;
  const name = props.name ?? "";
  if (v === null || v === undefined) return <span class="muted">—</span>;
  if (typeof v === "boolean") return <span>{v ? "yes" : "no"}</span>;
  if (typeof v === "number" && /Bytes$/.test(name)) return <span>{bytes(v)}</span>;
  if (typeof v === "number" && /Ms$/.test(name)) return <span>{formatNumber(v)} ms</span>;
  if (typeof v === "string" && /^\d{4}-\d\d-\d\dT/.test(v)) return <Time iso={v} />;
  if (typeof v === "object") {
    const entries = Object.entries(v as Record<string, unknown>);
    if (entries.length === 0) return <span class="muted">Nothing yet.</span>;
    return (
      <dl class="kv nested">
        {entries.map(([k, x]) => (
          <div key={k}>
            <dt>{fieldName(k)}</dt>
            <dd>
              <Value value={x} name={k} />
            </dd>
          </div>
        ))}
      </dl>
    );
  }
  return <span>{String(v)}</span>;
}

export function HealthPage() {
  const health = useLoad(() => api.health(), []);
  const data = health.data;
  const parts = data
    ? Object.entries(data).filter(([, v]) => v && typeof v === "object" && !Array.isArray(v)) as [
      string,
      Record<string, unknown>,
    ][]
    : [];
  return (
    <>
      <PageHeader title="Health" lead="A fresh check of every dependency memsvc needs.">
        <button type="button" class="btn" onClick={health.reload} disabled={health.loading}>
          {health.loading ? "Checking…" : "Check again"}
        </button>
      </PageHeader>
      {health.error && <ErrorNote error={health.error} onRetry={health.reload} />}
      {!data && health.loading && <Loading label="Checking…" />}
      {data && (
        <>
          <p class={data.ok ? "status-line ok" : "status-line bad"} role="status">
            {data.ok
              ? "All systems are working."
              : "Something needs attention: see the cards marked failing."}
          </p>
          <div class="cards">
            {parts.map(([name, part]) => (
              <section class="card" key={name} aria-labelledby={`h-${name}`}>
                <h2 id={`h-${name}`} class="card-title">
                  {PART_NAMES[name] ?? name}
                  {"ok" in part && (
                    <span class={part.ok ? "badge badge-ok" : "badge badge-danger"}>
                      {part.ok ? "ok" : "failing"}
                    </span>
                  )}
                </h2>
                <Value value={Object.fromEntries(Object.entries(part).filter(([k]) => k !== "ok"))} />
              </section>
            ))}
          </div>
        </>
      )}
    </>
  );
}
