/**
 * The caller's active project, the default of memory calls that name no project: read, set (by id or
 * name) and clear. Any caller may use these, API tokens included.
 */
import { Hono } from "hono";
import type { Kysely } from "kysely";
import { z } from "zod";
import { parseJson } from "../../../internal/http/mod.ts";
import { writeAudit } from "../audit/audit_log.ts";
import { callerOf } from "../auth/caller.ts";
import { requireCaller } from "../auth/require.ts";
import type { MemsvcEnv } from "../env.ts";
import { clearActiveProject, getActiveProject, setActiveProject } from "../projects/mod.ts";
import type { MemsvcDatabase } from "../store/db.ts";

export interface ActiveProjectRoutesDeps {
  db: Kysely<MemsvcDatabase>;
}

const setBody = z.object({ project: z.string().min(1, "project must be a project id or name") });

export function activeProjectRoutes({ db }: ActiveProjectRoutesDeps): Hono<MemsvcEnv> {
  return new Hono<MemsvcEnv>()
    .get("/v1/me/active-project", requireCaller(), async (c) => {
      return c.json({ project: await getActiveProject(db, callerOf(c).userId) });
    })
    .put("/v1/me/active-project", requireCaller(), async (c) => {
      const caller = callerOf(c);
      const { project: ref } = await parseJson(c, setBody);
      const project = await setActiveProject(db, caller, ref);
      await writeAudit(db, {
        actorId: caller.userId,
        action: "project.activate",
        target: project.id,
        requestId: c.get("requestId"),
      });
      return c.json({ project });
    })
    .delete("/v1/me/active-project", requireCaller(), async (c) => {
      const caller = callerOf(c);
      const cleared = await clearActiveProject(db, caller.userId);
      // Clearing nothing changes nothing, so it leaves no audit entry.
      if (cleared) {
        await writeAudit(db, {
          actorId: caller.userId,
          action: "project.deactivate",
          target: cleared,
          requestId: c.get("requestId"),
        });
      }
      return c.json({ project: null });
    });
}
