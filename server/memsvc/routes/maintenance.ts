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
import { z } from "zod";
import { parseJson } from "../../../internal/http/mod.ts";
import { requireAdmin } from "../auth/require.ts";
import type { MemsvcEnv } from "../env.ts";
import type { Loop, RunOutcome } from "../maintenance/loop.ts";
import type { Maintenance } from "../maintenance/mod.ts";

const decayBody = z.object({
  effectiveDays: z.number().int().min(0).max(36_500).optional(),
}).strict();

export function maintenanceRoutes(maintenance: Maintenance): Hono<MemsvcEnv> {
  const answer = <R extends object>(loop: Loop<R>, outcome: RunOutcome<R>) => {
    if (outcome.skipped) {
      return Response.json({ skipped: true, reason: outcome.reason, loop: loop.name }, { status: 409 });
    }
    if (!outcome.run.ok) return Response.json({ error: "internal server error" }, { status: 500 });
    return Response.json(outcome.run.result);
  };
  return new Hono<MemsvcEnv>()
    .post("/v1/decay", requireAdmin(), async (c) => {
      const { effectiveDays } = await parseJson(c, decayBody);
      return answer(
        maintenance.decay,
        await maintenance.decay.runNow(() => maintenance.runDecay(effectiveDays)),
      );
    })
    .post(
      "/v1/dream-cycle",
      requireAdmin(),
      async () => answer(maintenance.dream, await maintenance.dream.runNow()),
    )
    .post(
      "/v1/reap-orphans",
      requireAdmin(),
      async () => answer(maintenance.reap, await maintenance.reap.runNow()),
    );
}
