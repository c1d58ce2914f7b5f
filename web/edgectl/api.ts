/** The dashboard's calls to `edgectl web`'s JSON API (server/edgectl-web/app.ts), same origin only. */

export interface Session {
  user: { name: string; groups: string[]; via: "kubeconfig" | "oidc" } | null;
  auth: "kubeconfig" | "oidc";
  readOnly: boolean;
  prometheus: string | null;
  traces: string | null;
}

export interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}

export interface ResourceRow {
  apiVersion: string;
  kind: string;
  namespace: string;
  name: string;
  cells: string[];
  ready?: string;
  conditions: Condition[];
  created?: string;
}

export interface ResourceKind {
  kind: string;
  plural: string;
  headers: string[];
  items: ResourceRow[];
  error?: string;
}

export interface TopologyEdge {
  route: string;
  backend: string;
  exists: boolean;
}

export interface Series {
  label: string;
  points: [number, number][];
}

export interface MetricsView {
  start: number;
  end: number;
  step: number;
  rps: Series[];
  errorRatio: Series[];
  p99: Series[];
}

export interface TraceSummary {
  traceID: string;
  operation: string;
  service: string;
  durationMicros: number;
  spans: number;
  services: string[];
  startTime: string;
  errors: number;
}

export interface AccessRecord {
  time: string;
  node?: string;
  gateway?: string;
  route?: string;
  backend?: string;
  method?: string;
  host?: string;
  path?: string;
  status: number;
  duration_ms?: number;
}

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
