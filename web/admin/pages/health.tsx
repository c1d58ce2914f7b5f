/** Admin: the deep health snapshot, one card per dependency. */
import { api } from "../api.ts";
import { ErrorNote, Loading, PageHeader, Time, useLoad } from "../components.tsx";

function Value(props: { value: unknown }) {
  const v = props.value;
  if (v === null || v === undefined) return <span class="muted">—</span>;
  if (typeof v === "boolean") return <span>{v ? "yes" : "no"}</span>;
  if (typeof v === "string" && /^\d{4}-\d\d-\d\dT/.test(v)) return <Time iso={v} />;
  if (typeof v === "object") {
    return (
      <dl class="kv nested">
        {Object.entries(v as Record<string, unknown>).map(([k, x]) => (
          <div key={k}>
            <dt>{k}</dt>
            <dd>
              <Value value={x} />
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
                  {name}
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
