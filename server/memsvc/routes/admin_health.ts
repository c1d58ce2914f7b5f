/**
 *   GET /v1/admin/health/deep   per-dependency health snapshot, for admins
 *
 * Each dependency is probed for real (a `select 1`, a timed embedding of a short text) with a
 * time limit, so a hung dependency shows as failed instead of hanging the check. The answer is 200
 * with `ok: false` when the database or the embedder fails: the snapshot itself succeeded, and the
 * dashboard shows it whole. Nothing secret is included: no database URL, no keys, no tokens, and
 * error messages are redacted. The public GET /health stays a bare liveness answer.
 */
import { Hono } from "hono";
import { sql } from "kysely";
import { statfs } from "node:fs/promises";
import { type Database, migrationStatus } from "../../../internal/db/mod.ts";
import { redactString } from "../../../internal/log/mod.ts";
import type { Embedder } from "../embeddings/mod.ts";
import type { MemsvcEnv } from "../env.ts";
import type { MemsvcMetrics } from "../metrics/registry.ts";
import { deepHealthResponse } from "../metrics/schemas.ts";
import { defineRoute, mountRoute } from "../openapi/route_spec.ts";
import type { MemsvcDatabase } from "../store/db.ts";
import { migrations } from "../store/migrations/mod.ts";

const PROBE_TIMEOUT_MS = 5_000;
const PROBE_TEXT = "memsvc health check";

export interface AdminHealthRoutesDeps {
  database: Database<MemsvcDatabase>;
  embedder: Embedder;
  metrics: Pick<MemsvcMetrics, "loopStatus">;
  sessions: { count(kind: "sse" | "http"): number };
  index: { readonly size: number };
  /** The embedded database's directory (for free space); unset on PostgreSQL. */
  dataDir?: string;
  /** How long one probe may take before it counts as failed (default 5 s). */
  probeTimeoutMs?: number;
}

/** A probe's outcome: `error` is set exactly when it failed. */
interface Probe<T> {
  latencyMs: number;
  value?: T;
  error?: string;
}

/** Runs `check` with a time limit and measures it; a failure keeps only a redacted message. */
async function probe<T>(check: () => Promise<T>, timeoutMs: number): Promise<Probe<T>> {
  const started = performance.now();
  const latencyMs = () => Math.round((performance.now() - started) * 10) / 10;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    const value = await Promise.race([check(), timeout]);
    return { latencyMs: latencyMs(), value };
  } catch (err) {
    return { latencyMs: latencyMs(), error: redactString(err instanceof Error ? err.message : String(err)) };
  } finally {
    clearTimeout(timer);
  }
}

export const adminHealthApi = {
  deep: defineRoute({
    method: "get",
    path: "/v1/admin/health/deep",
    operationId: "adminDeepHealth",
    tag: "admin",
    access: "admin",
    summary: "Per-dependency health snapshot",
    description: "200 with `ok: false` when the database or the embedder fails.",
    responses: { 200: { description: "the snapshot", schema: deepHealthResponse } },
  }),
};

export function adminHealthRoutes(deps: AdminHealthRoutesDeps): Hono<MemsvcEnv> {
  const { database, embedder, dataDir, probeTimeoutMs = PROBE_TIMEOUT_MS } = deps;
  return mountRoute(new Hono<MemsvcEnv>(), adminHealthApi.deep, async (c) => {
    const [ping, schema, embedding, disk] = await Promise.all([
      probe(() => sql`select 1`.execute(database.db), probeTimeoutMs),
      probe(() => migrationStatus(database.db, migrations), probeTimeoutMs),
      probe(() => embedder.embed([PROBE_TEXT]), probeTimeoutMs),
      dataDir ? probe(() => statfs(dataDir), probeTimeoutMs) : undefined,
    ]);
    const databaseError = ping.error ?? schema.error;
    // Fields left undefined (error on success, ...) are dropped from the JSON.
    return c.json({
      ok: !databaseError && !embedding.error,
      checkedAt: new Date().toISOString(),
      database: {
        ok: !databaseError,
        backend: database.backend,
        reachable: !ping.error,
        latencyMs: ping.latencyMs,
        migrations: schema.value && {
          applied: schema.value.filter((m) => m.appliedAt).length,
          known: schema.value.length,
        },
        error: databaseError,
      },
      embedder: {
        ok: !embedding.error,
        id: embedder.id,
        dimensions: embedder.dimensions,
        latencyMs: embedding.latencyMs,
        error: embedding.error,
      },
      loops: deps.metrics.loopStatus(),
      mcp: { sseSessions: deps.sessions.count("sse"), httpSessions: deps.sessions.count("http") },
      vectorIndex: { size: deps.index.size },
      // Free space matters only where the data lives on this machine: the embedded database.
      disk: disk
        ? {
          ok: !disk.error,
          dataDir,
          freeBytes: disk.value && disk.value.bavail * disk.value.bsize,
          totalBytes: disk.value && disk.value.blocks * disk.value.bsize,
          error: disk.error,
        }
        : null,
    });
  });
}
