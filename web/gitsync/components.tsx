import type { ComponentChildren } from "preact";
import { useState } from "preact/hooks";
import { useLoad } from "../shared/use_load.ts";
import { ErrorNote, Loading } from "../shared/ui.tsx";
import { api } from "./api.ts";
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

export function Badge({ value }: { value: string | undefined }) {
  const v = value ?? "Unknown";
  const tone = /^(Healthy|Succeeded|True|Deployed|Ready|Synced)$/.test(v)
    ? "ok"
    : /^(Failed|Degraded|False|HookFailed|Forbidden)/.test(v)
    ? "danger"
    : "warn";
  return <span class={`badge badge-${tone}`}>{v}</span>;
}

export function Conditions({ conditions }: { conditions: Condition[] | undefined }) {
  if (!conditions?.length) return <p class="muted">No conditions.</p>;
  return (
    <div class="table-wrap" role="region" tabIndex={0} aria-label="Conditions">
      <table class="table">
        <thead>
          <tr>
            <th>Type</th>
            <th>Status</th>
            <th>Reason</th>
            <th>Message</th>
          </tr>
        </thead>
        <tbody>
          {conditions.map((c) => (
            <tr key={c.type}>
              <td>{c.type}</td>
              <td>
                <Badge value={c.status} />
              </td>
              <td>{c.reason}</td>
              <td class="message">{c.message}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export const short = (sha: string | undefined) => (sha ? sha.slice(0, 12) : "");

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
