import type { ComponentChildren } from "preact";
import { useState } from "preact/hooks";
import { useLoad } from "../shared/use_load.ts";
import { type Column, DataTable } from "../shared/data_table.tsx";
import { Badge, Empty, ErrorNote, Loading, PageHeader, StatusBadge } from "../shared/ui.tsx";
import { healthTone, phaseTone } from "../shared/status.ts";
import { api } from "./api.ts";
import { link, navigate } from "./router.ts";
import type { Condition } from "./types.ts";

/** Loads `path` and renders it; errors are shown, never thrown. A new path starts afresh. */
export function Load<T>(props: { path: string; children: (data: T) => ComponentChildren }) {
  return <Loader<T> key={props.path} {...props} />;
}

function Loader<T>({ path, children }: { path: string; children: (data: T) => ComponentChildren }) {
  const state = useLoad(() => api<T>(path), [path]);
  if (state.error) return <ErrorNote error={state.error} onRetry={() => void state.reload()} />;
  if (state.data === undefined) return <Loading />;
  return <>{children(state.data)}</>;
}

/** A Revision's phase or a hook's state, coloured by what it means (web/shared/status.ts). */
export function PhaseBadge({ phase }: { phase: string | undefined }) {
  const p = phase ?? "Pending";
  return <Badge tone={phaseTone(p)}>{p}</Badge>;
}

/** A live object's health (Healthy, Progressing, Degraded, Missing, ...). */
export function HealthBadge({ health }: { health: string }) {
  return <Badge tone={healthTone(health)}>{health}</Badge>;
}

/**
 * A Ready condition as a badge, coloured by its status: True "Ready" in green, False its reason in red.
 * While Ready is Unknown (or missing) the Revision the Application wants says more: its phase
 * (AwaitingApproval, Failed, Applying) is shown, coloured by what it means.
 */
export function ReadyBadge(
  { ready, desiredPhase }: { ready: Condition | undefined; desiredPhase?: string | undefined },
) {
  if (ready?.status === "True") return <StatusBadge condition={ready} label="Ready" />;
  if (ready?.status === "False") return <StatusBadge condition={ready} />;
  if (desiredPhase) {
    return (
      <Badge tone={phaseTone(desiredPhase)} {...(ready?.message ? { title: ready.message } : {})}>
        {desiredPhase}
      </Badge>
    );
  }
  return <StatusBadge condition={ready} label={ready?.reason || ready?.status || "Unknown"} />;
}

export function Conditions({ conditions }: { conditions: Condition[] | undefined }) {
  if (!conditions?.length) return <p class="muted">No conditions.</p>;
  return (
    <DataTable
      label="Conditions"
      rows={conditions}
      rowKey={(c) => c.type}
      columns={[
        { header: "Type", cell: (c) => c.type },
        { header: "Status", cell: (c) => <StatusBadge condition={c} label={c.status} /> },
        { header: "Reason", cell: (c) => c.reason },
        { header: "Message", cell: (c) => c.message, class: "message" },
      ]}
    />
  );
}

export const short = (sha: string | undefined) => (sha ? sha.slice(0, 12) : "");

/** The command that approves a Revision's plan, as `gitsync approve` takes it. */
export const approveCommand = (app: string, ns: string, digest: string) =>
  `gitsync approve ${app} -n ${ns} --digest ${digest}`;

/** The namespace a list page shows (?namespace=), empty for all namespaces. */
export const currentNamespace = () => new URLSearchParams(location.search).get("namespace") ?? "";

/** Picks the namespace of a list page; users who may not list across namespaces need one. */
export function NamespaceFilter({ onChange }: { onChange: (ns: string) => void }) {
  const [value, setValue] = useState(currentNamespace());
  return (
    <form
      class="ns-filter"
      onSubmit={(e) => {
        e.preventDefault();
        onChange(value.trim());
      }}
    >
      <label for="namespace">Namespace</label>
      <input
        id="namespace"
        name="namespace"
        placeholder="all namespaces"
        value={value}
        onInput={(e) => setValue((e.target as HTMLInputElement).value)}
      />
      <button type="submit" class="btn">Show</button>
    </form>
  );
}

/**
 * A list page (Applications, Repositories): the namespace filter, then the objects of that namespace
 * the user may see, or what to do when there are none.
 */
/**
 * A page listing one kind (Applications, Repositories) in the chosen namespace: a table named by the
 * title, each row an object, its namespace first, then the kind's `columns`.
 */
export function ListPage<T extends { metadata: { name: string; namespace: string } }>(props: {
  title: string;
  page: "apps" | "repos";
  path: string;
  columns: Column<T>[];
}) {
  const ns = currentNamespace();
  return (
    <section>
      <PageHeader title={props.title} />
      <NamespaceFilter
        onChange={(ns) =>
          navigate(ns ? `${link(props.page)}?namespace=${encodeURIComponent(ns)}` : link(props.page))}
      />
      <Load<{ items: T[] }> path={`${props.path}${ns ? `?namespace=${encodeURIComponent(ns)}` : ""}`}>
        {({ items }) =>
          items.length === 0
            ? (
              <Empty title={`No ${props.title} you may see.`}>
                Pick another namespace, or ask for read access to it.
              </Empty>
            )
            : (
              <DataTable
                label={props.title}
                rows={items}
                rowKey={(o) => `${o.metadata.namespace}/${o.metadata.name}`}
                columns={[{ header: "Namespace", cell: (o) => o.metadata.namespace }, ...props.columns]}
              />
            )}
      </Load>
    </section>
  );
}
