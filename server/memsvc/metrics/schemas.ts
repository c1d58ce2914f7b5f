/**
 * Schemas of the activity and metrics routes (routes/me_activity.ts, routes/admin_metrics.ts,
 * routes/admin_health.ts): the query schema validates requests; all of them describe the routes in
 * /openapi.json.
 */
import { z } from "zod";

export const hoursQuery = z.object({
  hours: z.coerce.number().int().min(1, "hours must be 1 to 24").max(
    24,
    "hours must be 1 to 24 (limit: 24 h window)",
  )
    .default(24).describe("the window, 1 to 24 hours"),
});

export const todayResponse = z.object({
  hours: z.number().int(),
  items: z.array(z.object({
    at: z.iso.datetime(),
    kind: z.string().describe("memory.created, memory.updated, or an audited action such as token.create"),
    id: z.string().describe("the entry id, or the audited action's target"),
    summary: z.string().nullable().describe("the first 200 characters of the entry"),
  })),
});

const bucket = z.object({
  minute: z.iso.datetime(),
  counts: z.record(z.string(), z.number()).describe("calls per kind: remember, search, update, ..."),
});

export const historyResponse = z.object({
  hours: z.number().int(),
  bucketSeconds: z.literal(60),
  buckets: z.array(bucket).describe("oldest first, the current minute included"),
});

const latency = z.record(z.string(), z.looseObject({})).describe("latency summary per route or tool");

export const adminMetricsResponse = z.object({
  startedAt: z.iso.datetime(),
  uptimeSeconds: z.number(),
  counters: z.record(z.string(), z.number()),
  gauges: z.object({
    entries: z.number().int(),
    edges: z.number().int(),
    pendingEmbeddings: z.number().int().describe("entries without a vector from the current embedder"),
    countedAt: z.iso.datetime().describe("when the row counts were taken (cached briefly)"),
    sseSessions: z.number().int(),
    httpSessions: z.number().int(),
    vectorIndexSize: z.number().int(),
  }),
  rates: z.looseObject({ windowSeconds: z.number() }).describe("per-second rates over the window"),
  latency: z.object({ routes: latency, tools: latency }),
  callers: z.looseObject({}).describe("the busiest users and tokens"),
  history: z.array(bucket).describe("24 h of one-minute buckets over all users"),
});

const check = z.looseObject({
  ok: z.boolean(),
  latencyMs: z.number().optional(),
  error: z.string().optional().describe("redacted"),
});

export const deepHealthResponse = z.object({
  ok: z.boolean().describe("false when the database or the embedder failed"),
  checkedAt: z.iso.datetime(),
  database: check,
  embedder: check,
  loops: z.record(z.string(), z.looseObject({})).describe("the maintenance loops' last runs"),
  mcp: z.object({ sseSessions: z.number().int(), httpSessions: z.number().int() }),
  vectorIndex: z.object({ size: z.number().int() }),
  disk: check.nullable().describe("free space of the embedded database's directory; null on PostgreSQL"),
});
