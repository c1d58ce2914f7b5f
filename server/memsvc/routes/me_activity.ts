/**
 *   GET /v1/me/today?hours=24             recent activity from several sources, newest first
 *   GET /v1/me/metrics/history?hours=24   one-minute buckets of the caller's activity (1..24 hours)
 */
import { Hono } from "hono";
import { sql } from "kysely";
import type { Kysely } from "kysely";
import { z } from "zod";
import { parseQuery } from "../../../internal/http/mod.ts";
import { callerOf } from "../auth/caller.ts";
import { requireCaller } from "../auth/require.ts";
import type { MemsvcEnv } from "../env.ts";
import type { ActivityRecorder } from "../metrics/activity.ts";
import type { MemsvcDatabase } from "../store/db.ts";

const hoursQuery = z.object({
  hours: z.coerce.number().int().min(1, "hours must be 1 to 24").max(
    24,
    "hours must be 1 to 24 (limit: 24 h window)",
  )
    .default(24),
});
const TODAY_LIMIT = 200;

export interface MeActivityDeps {
  db: Kysely<MemsvcDatabase>;
  activity: ActivityRecorder;
}

export function meActivityRoutes({ db, activity }: MeActivityDeps): Hono<MemsvcEnv> {
  return new Hono<MemsvcEnv>()
    .use("/v1/me/today", requireCaller())
    .use("/v1/me/metrics/*", requireCaller())
    .get("/v1/me/today", async (c) => {
      const { hours } = parseQuery(c, hoursQuery);
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
    })
    .get("/v1/me/metrics/history", async (c) => {
      const { hours } = parseQuery(c, hoursQuery);
      return c.json({ hours, bucketSeconds: 60, buckets: await activity.history(callerOf(c).userId, hours) });
    });
}
