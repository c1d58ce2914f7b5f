/**
 * What the dashboard shows, read with the signed-in user's Kubernetes client: every edgeproxy.io kind
 * with the columns `edgectl get` prints and its conditions, the routes → backends topology, the proxy's
 * traffic over time from Prometheus, recent traces from Jaeger and the agents' latest access-log records.
 * Each reuses the CLI's own code (internal/edgeproxy: resources, proxy_metrics, jaeger_client, access_log), so
 * the page and the commands cannot disagree.
 */
import {
  type Condition,
  isKubeApiError,
  type KubeClient,
  type KubeObject,
  listObjects,
} from "../../internal/k8s/mod.ts";
import { type AccessRecord, parseAccessLine } from "../../internal/edgeproxy/access_log.ts";
import type { JaegerClient } from "../../internal/edgeproxy/jaeger_client.ts";
import { readLogs } from "../../internal/edgeproxy/pod_logs.ts";
import type { PrometheusClient } from "../../internal/edgeproxy/prometheus_client.ts";
import { trafficQueries } from "../../internal/edgeproxy/proxy_metrics.ts";
import { listProxyPods, logSources } from "../../internal/edgeproxy/proxy_pods.ts";
import { RESOURCE_TYPES } from "../../internal/edgeproxy/resources.ts";
import { summarize, type TraceSummary } from "../../internal/edgeproxy/trace_view.ts";
import { apiResource } from "../../internal/edgeproxy/objects.ts";
import { field } from "../../internal/edgeproxy/field.ts";

export type { Condition };

export interface ResourceRow {
  apiVersion: string;
  kind: string;
  namespace: string;
  name: string;
  /** The `edgectl get` columns after NAME, as text. */
  cells: string[];
  ready: string | undefined;
  conditions: Condition[];
  created: string | undefined;
  /** ProxyRoute: the backends its rules send to, by name. */
  backendRefs?: string[];
}

export interface ResourceKind {
  kind: string;
  plural: string;
  headers: string[];
  items: ResourceRow[];
  /** Why this kind could not be listed (CRD missing, forbidden); the others are still shown. */
  error?: string;
}

function conditionsOf(o: KubeObject): Condition[] {
  const list = field(o, "status.conditions");
  if (!Array.isArray(list)) return [];
  return list.filter((c) => c && typeof c === "object").map((c) => ({
    type: String(c.type ?? ""),
    status: String(c.status ?? ""),
    ...(c.reason ? { reason: String(c.reason) } : {}),
    ...(c.message ? { message: String(c.message) } : {}),
    ...(c.lastTransitionTime ? { lastTransitionTime: String(c.lastTransitionTime) } : {}),
  }));
}

function backendRefsOf(o: KubeObject): string[] {
  const rules = field(o, "spec.rules");
  if (!Array.isArray(rules)) return [];
  const names = rules.flatMap((r) => {
    const one = field(r, "backendRef.name");
    const many = field(r, "backendRefs");
    return [
      ...(typeof one === "string" ? [one] : []),
      ...(Array.isArray(many) ? many.map((b) => field(b, "name")).filter((n) => typeof n === "string") : []),
    ] as string[];
  });
  return [...new Set(names)];
}

/** Every kind, across all namespaces the user may list. */
export async function listResources(client: KubeClient): Promise<ResourceKind[]> {
  return await Promise.all(RESOURCE_TYPES.map(async (type): Promise<ResourceKind> => {
    const headers = type.columns.map((c) => c.header);
    try {
      const resource = await apiResource(client, type.kind);
      const list = await listObjects(client, resource, { allNamespaces: true });
      const items = list.items.map((o): ResourceRow => {
        const conditions = conditionsOf(o);
        return {
          apiVersion: o.apiVersion ?? `${resource.group}/${resource.version}`,
          kind: type.kind,
          namespace: o.metadata?.namespace ?? "",
          name: o.metadata?.name ?? "",
          cells: type.columns.map((c) => {
            const v = c.cell(o);
            return v === undefined || v === null || v === "" ? "<none>" : String(v);
          }),
          ready: conditions.find((c) => c.type === "Ready")?.status,
          conditions,
          created: o.metadata?.creationTimestamp,
          ...(type.kind === "ProxyRoute" ? { backendRefs: backendRefsOf(o) } : {}),
        };
      }).sort((a, b) => a.namespace.localeCompare(b.namespace) || a.name.localeCompare(b.name));
      return { kind: type.kind, plural: type.plural, headers, items };
    } catch (err) {
      const error = isKubeApiError(err, "Forbidden")
        ? `forbidden: ${(err as Error).message}`
        : (err as Error).message;
      return { kind: type.kind, plural: type.plural, headers, items: [], error };
    }
  }));
}

export interface TopologyEdge {
  /** namespace/name of the route. */
  route: string;
  /** namespace/name of the backend (same namespace as the route). */
  backend: string;
  /** False when no ProxyBackend of that name exists: a dangling reference. */
  exists: boolean;
}

/** Routes → backends, from the routes' rules; a reference to a missing backend is kept and marked. */
export function topology(kinds: readonly ResourceKind[]): TopologyEdge[] {
  const routes = kinds.find((k) => k.kind === "ProxyRoute")?.items ?? [];
  const backends = new Set(
    (kinds.find((k) => k.kind === "ProxyBackend")?.items ?? []).map((b) => `${b.namespace}/${b.name}`),
  );
  return routes.flatMap((r) =>
    (r.backendRefs ?? []).map((name) => {
      const backend = `${r.namespace}/${name}`;
      return { route: `${r.namespace}/${r.name}`, backend, exists: backends.has(backend) };
    })
  );
}

export interface Series {
  /** The route (`namespace/name`) the series is about. */
  label: string;
  /** [unix seconds, value]. */
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

/** Requests/s, 5xx ratio and p99 latency per route over the last `minutes`, from range queries. */
export async function metricsView(client: PrometheusClient, minutes: number): Promise<MetricsView> {
  const end = new Date();
  const start = new Date(end.getTime() - minutes * 60_000);
  // About 60 points per chart, never finer than 5 s.
  const step = Math.max(5, Math.round((minutes * 60) / 60));
  const q = trafficQueries(["route"], { window: "1m" });
  const range = async (query: string) => {
    const { data } = await client.queryRange(query, start, end, step);
    if (data.resultType !== "matrix") return [];
    return data.result.map((s) => ({
      label: s.metric.route ?? "",
      points: s.values.map(([t, v]) => [t, Number(v)] as [number, number]).filter(([, v]) =>
        Number.isFinite(v)
      ),
    })).sort((a, b) => a.label.localeCompare(b.label));
  };
  const [rps, errorRatio, p99] = await Promise.all([range(q.rate), range(q.errorRatio), range(q.p99)]);
  return { start: start.getTime() / 1000, end: end.getTime() / 1000, step, rps, errorRatio, p99 };
}

export type { TraceSummary };

/** The newest traces of every service over the last hour, newest first, at most `limit`. */
export async function recentTraces(client: JaegerClient, limit: number): Promise<TraceSummary[]> {
  const end = new Date();
  const start = new Date(end.getTime() - 3600_000);
  const services = await client.services();
  const perService = await Promise.all(
    services.map((service) => client.findTraces({ service, start, end, limit })),
  );
  const seen = new Map<string, TraceSummary>();
  for (const t of perService.flat()) if (!seen.has(t.traceID)) seen.set(t.traceID, summarize(t));
  return [...seen.values()].sort((a, b) => b.startTime.localeCompare(a.startTime)).slice(0, limit);
}

/** The agents' last `limit` access-log records, newest first. */
export async function recentAccess(
  client: KubeClient,
  proxyNamespace: string,
  limit: number,
): Promise<AccessRecord[]> {
  const pods = await listProxyPods(client, proxyNamespace, "agent");
  if (pods.length === 0) return [];
  // The last lines of each container are enough: most agent lines are access records.
  const lines = await readLogs(client, logSources(pods), { tail: limit * 2 });
  const records = lines.map((l) => parseAccessLine(l.text, l.time, l.source.node))
    .filter((r): r is AccessRecord => r !== undefined);
  return records.slice(-limit).reverse();
}
