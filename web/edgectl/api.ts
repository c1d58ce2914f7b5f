/** The dashboard's calls to `edgectl web`'s JSON API (server/edgectl-web/app.ts), same origin only. */

export interface Session {
  user: { name: string; groups: string[]; via: "kubeconfig" | "oidc" } | null;
  auth: "kubeconfig" | "oidc";
  readOnly: boolean;
  prometheus: string | null;
  traces: string | null;
}

// The server's own types, so the page and the API cannot disagree (types only: nothing of the server is bundled).
export type {
  Condition,
  MetricsView,
  ResourceKind,
  ResourceRow,
  Series,
  TopologyEdge,
} from "../../server/edgectl-web/dashboard_data.ts";
export type { TraceSummary } from "../../internal/edgeproxy/trace_view.ts";
export type { AccessRecord } from "../../internal/edgeproxy/access_log.ts";

export class ApiError extends Error {
  constructor(readonly status: number, message: string) {
    super(message);
  }
}

/** Called on a 401: the session ended, so the page shows sign-in again. */
let onUnauthorized = () => {};
export function setUnauthorizedHandler(fn: () => void) {
  onUnauthorized = fn;
}

async function call<T>(path: string, init?: RequestInit): Promise<T> {
  const res = await fetch(path, { credentials: "same-origin", ...init });
  const body = await res.json().catch(() => ({}));
  if (res.status === 401) onUnauthorized();
  if (!res.ok && !(res.status === 422 && body.results)) {
    throw new ApiError(res.status, body.error ?? `${res.status} ${res.statusText}`);
  }
  return body as T;
}

export const get = <T>(path: string) => call<T>(path);

export const post = <T>(path: string, body: unknown) =>
  call<T>(path, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
