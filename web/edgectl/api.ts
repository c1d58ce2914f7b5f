/**
 * The dashboard's calls to `edgectl web`'s JSON API (server/edgectl-web/app.ts), same origin only,
 * over the apps' shared fetch wrapper. The answers' shapes are the server's own types.
 */
import { createClient } from "../shared/http.ts";

export { ApiError } from "../shared/api_error.ts";
export type { WebSession as Session } from "../../server/edgectl-web/app.ts";
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

/** Called on a 401: the session ended, so the page shows sign-in again. */
let onUnauthorized = () => {};
export function setUnauthorizedHandler(fn: () => void) {
  onUnauthorized = fn;
}

const request = createClient({
  onError: (err) => err.status === 401 && onUnauthorized(),
  // Apply answers 422 with a result per document when some of them failed: the page lists them.
  answers: (status, body) => status === 422 && Array.isArray(body.results),
});

export const get = <T>(path: string) => request<T>(path);

export const post = <T>(path: string, body: unknown) => request<T>(path, { method: "POST", body });
