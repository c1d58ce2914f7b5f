/**
 * On-demand maintenance, admin only:
 *
 *   POST /v1/decay          {effectiveDays?}  -> {demoted, lifespan}
 *   POST /v1/dream-cycle                      -> {scanned, merged, edgesAdded, durationMs}
 *   POST /v1/reap-orphans                     -> {staleVectors, expiredSessions, ...}
 *
 * A run that finds the same loop already running (here or in another process) is not started:
 * 409 `{skipped: true, reason}`.
 */
import { Hono } from "hono";
import type { MemsvcEnv } from "../env.ts";
import type { Loop, RunOutcome } from "../maintenance/loop.ts";
import type { Maintenance } from "../maintenance/mod.ts";
import { decayBody, decayResult, dreamResult, reapResult, skippedRun } from "../maintenance/schemas.ts";
import { defineRoute, mountRoute } from "../openapi/route_spec.ts";

const tag = "admin";
const skipped = { description: "the same loop is already running; nothing was started", schema: skippedRun };

export const maintenanceApi = {
  decay: defineRoute({
    method: "post",
    path: "/v1/decay",
    operationId: "runDecay",
    tag,
    access: "admin",
    summary: "Run decay now",
    description: "The body is optional; `effectiveDays` overrides the lifespan for this run only.",
    body: decayBody,
    responses: { 200: { description: "the run's result", schema: decayResult }, 409: skipped },
  }),
  dream: defineRoute({
    method: "post",
    path: "/v1/dream-cycle",
    operationId: "runDreamCycle",
    tag,
    access: "admin",
    summary: "Run the dream cycle now (merge duplicates, infer edges)",
    responses: { 200: { description: "the run's result", schema: dreamResult }, 409: skipped },
  }),
  reap: defineRoute({
    method: "post",
    path: "/v1/reap-orphans",
    operationId: "reapOrphans",
    tag,
    access: "admin",
    summary: "Reap orphans now (stale vectors, expired sessions, old samples)",
    responses: { 200: { description: "the run's result", schema: reapResult }, 409: skipped },
  }),
};

export function maintenanceRoutes(maintenance: Maintenance): Hono<MemsvcEnv> {
  const answer = <R extends object>(loop: Loop<R>, outcome: RunOutcome<R>) => {
    if (outcome.skipped) {
      return Response.json({ skipped: true, reason: outcome.reason, loop: loop.name }, { status: 409 });
    }
    if (!outcome.run.ok) return Response.json({ error: "internal server error" }, { status: 500 });
    return Response.json(outcome.run.result);
  };
  const app = new Hono<MemsvcEnv>();
  mountRoute(app, maintenanceApi.decay, async (_c, { body: { effectiveDays } }) => {
    return answer(
      maintenance.decay,
      await maintenance.decay.runNow(() => maintenance.runDecay(effectiveDays)),
    );
  });
  mountRoute(
    app,
    maintenanceApi.dream,
    async () => answer(maintenance.dream, await maintenance.dream.runNow()),
  );
  mountRoute(app, maintenanceApi.reap, async () => answer(maintenance.reap, await maintenance.reap.runNow()));
  return app;
}
