/**
 * Metrics for admins:
 *
 *   GET /v1/admin/metrics        JSON for the dashboard: counters, gauges, rates, latency, 24 h history
 *   GET /v1/admin/metrics/prom   Prometheus text exposition (format 0.0.4)
 *
 * MEMSVC_ADMIN_DASHBOARD=0 turns the JSON route off (404) but not the Prometheus one: monitoring
 * keeps working when the dashboard is off.
 */
import { Hono } from "hono";
import { z } from "zod";
import type { MemsvcEnv } from "../env.ts";
import type { ActivityRecorder } from "../metrics/activity.ts";
import { renderPrometheus } from "../metrics/exposition.ts";
import type { GaugeReader } from "../metrics/gauges.ts";
import { PROM_CONTENT_TYPE } from "../../../internal/metrics/prometheus.ts";
import type { MemsvcMetrics } from "../metrics/registry.ts";
import { adminMetricsResponse } from "../metrics/schemas.ts";
import { defineRoute, mountRoute } from "../openapi/route_spec.ts";

const HISTORY_HOURS = 24;

export interface AdminMetricsRoutesDeps {
  metrics: MemsvcMetrics;
  gauges: GaugeReader;
  activity: ActivityRecorder;
  /** MEMSVC_ADMIN_DASHBOARD */
  dashboardEnabled: boolean;
}

export const adminMetricsApi = {
  json: defineRoute({
    method: "get",
    path: "/v1/admin/metrics",
    operationId: "adminMetrics",
    tag: "admin",
    access: "admin",
    summary: "Counters, gauges, rolling rates, latency and 24 h history",
    description: "404 when MEMSVC_ADMIN_DASHBOARD=0.",
    responses: { 200: { description: "the metrics", schema: adminMetricsResponse } },
    errors: [404],
  }),
  prometheus: defineRoute({
    method: "get",
    path: "/v1/admin/metrics/prom",
    operationId: "adminMetricsPrometheus",
    tag: "admin",
    access: "admin",
    summary: "Prometheus text exposition (format 0.0.4)",
    responses: {
      200: { description: "the exposition", schema: z.string(), contentType: PROM_CONTENT_TYPE },
    },
  }),
};

export function adminMetricsRoutes(deps: AdminMetricsRoutesDeps): Hono<MemsvcEnv> {
  const { metrics, gauges, activity } = deps;
  const app = new Hono<MemsvcEnv>();
  mountRoute(app, adminMetricsApi.json, async (c) => {
    if (!deps.dashboardEnabled) {
      return c.json({ error: "admin dashboard is disabled (MEMSVC_ADMIN_DASHBOARD=0)" }, 404);
    }
    const summaries = (stats: ReadonlyMap<string, { latency: { summary(): object } }>) =>
      Object.fromEntries([...stats].map(([name, s]) => [name, s.latency.summary()]));
    const [current, history] = await Promise.all([gauges.read(), activity.totals(HISTORY_HOURS)]);
    return c.json({
      startedAt: new Date(metrics.startedAt).toISOString(),
      uptimeSeconds: metrics.uptimeSeconds(),
      counters: metrics.counters(),
      gauges: current,
      rates: { ...metrics.rates(), windowSeconds: 60 },
      latency: { routes: summaries(metrics.routes()), tools: summaries(metrics.tools()) },
      callers: metrics.topCallers(),
      history,
    });
  });
  return mountRoute(app, adminMetricsApi.prometheus, async (c) => {
    const text = renderPrometheus(metrics, await gauges.read());
    return c.body(text, 200, { "content-type": PROM_CONTENT_TYPE });
  });
}
