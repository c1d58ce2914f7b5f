/**
 *   GET /v1/me/today?hours=24             recent activity from several sources, newest first
 *   GET /v1/me/metrics/history?hours=24   one-minute buckets of the caller's activity (1..24 hours)
 */
import { Hono } from "hono";
import { sql } from "kysely";
import type { Kysely } from "kysely";
import { callerOf } from "../../../internal/auth/mod.ts";
import type { MemsvcEnv } from "../env.ts";
import type { ActivityRecorder } from "../metrics/activity.ts";
import { historyResponse, hoursQuery, todayResponse } from "../metrics/schemas.ts";
import { defineRoute, mountRoute } from "../openapi/route_spec.ts";
import type { MemsvcDatabase } from "../store/db.ts";

const TODAY_LIMIT = 200;

export interface MeActivityDeps {
  db: Kysely<MemsvcDatabase>;
  activity: ActivityRecorder;
}

export const meActivityApi = {
  today: defineRoute({
    method: "get",
    path: "/v1/me/today",
    operationId: "today",
    tag: "activity",
    access: "caller",
    summary: "The caller's recent activity, newest first",
    description: "Entries written and edited, and the caller's audited actions (tokens, projects).",
    query: hoursQuery,
    responses: { 200: { description: "at most 200 items", schema: todayResponse } },
  }),
  history: defineRoute({
    method: "get",
    path: "/v1/me/metrics/history",
    operationId: "metricsHistory",
    tag: "activity",
    access: "caller",
    summary: "One-minute buckets of the caller's calls",
    query: hoursQuery,
    responses: { 200: { description: "the buckets", schema: historyResponse } },
  }),
};

export function meActivityRoutes({ db, activity }: MeActivityDeps): Hono<MemsvcEnv> {
  const app = new Hono<MemsvcEnv>();
  mountRoute(app, meActivityApi.today, async (c, { query: { hours } }) => {
    const userId = callerOf(c).userId;
    const since = new Date(Date.now() - hours * 3_600_000);
    // One UNION of the sources, newest first: entries written, entries edited, and the caller's
    // own audited actions (tokens, projects).
    const { rows } = await sql<{ at: Date; kind: string; id: string; summary: string | null }>`
        select created_at as at, 'memory.created' as kind, id, left(content, 200) as summary
          from memory_entries where user_id = ${userId} and created_at >= ${since}
        union all
        select updated_at, 'memory.updated', id, left(content, 200)
          from memory_entries where user_id = ${userId} and updated_at >= ${since} and updated_at > created_at
        union all
        select at, action, coalesce(target, ''), null
          from audit_log where actor_id = ${userId} and at >= ${since}
        order by at desc limit ${TODAY_LIMIT}`.execute(db);
    return c.json({
      hours,
      items: rows.map((r) => ({
        at: new Date(r.at).toISOString(),
        kind: r.kind,
        id: r.id,
        summary: r.summary,
      })),
    });
  });
  return mountRoute(app, meActivityApi.history, async (c, { query: { hours } }) => {
    return c.json({ hours, bucketSeconds: 60, buckets: await activity.history(callerOf(c).userId, hours) });
  });
}
