/**
 * The caller's active project, the default of memory calls that name no project: read, set (by id or
 * name) and clear. Any caller may use these, API tokens included.
 */
import { Hono } from "hono";
import type { Kysely } from "kysely";
import { writeAudit } from "../../../internal/audit/mod.ts";
import { callerOf } from "../../../internal/auth/mod.ts";
import type { MemsvcEnv } from "../env.ts";
import { defineRoute, mountRoute } from "../openapi/route_spec.ts";
import { clearActiveProject, getActiveProject, setActiveProject } from "../projects/mod.ts";
import { activeProjectResponse, setActiveProjectBody } from "../projects/schemas.ts";
import type { MemsvcDatabase } from "../store/db.ts";

export interface ActiveProjectRoutesDeps {
  db: Kysely<MemsvcDatabase>;
}

const path = "/v1/me/active-project";
const tag = "projects";

export const activeProjectApi = {
  get: defineRoute({
    method: "get",
    path,
    operationId: "getActiveProject",
    tag,
    access: "caller",
    summary: "The caller's active project",
    responses: { 200: { description: "the active project, or null", schema: activeProjectResponse } },
  }),
  set: defineRoute({
    method: "put",
    path,
    operationId: "setActiveProject",
    tag,
    access: "caller",
    summary: "Make a project (id or name) the default of calls that name none",
    body: setActiveProjectBody,
    responses: { 200: { description: "the now active project", schema: activeProjectResponse } },
    errors: [403, 404],
  }),
  clear: defineRoute({
    method: "delete",
    path,
    operationId: "clearActiveProject",
    tag,
    access: "caller",
    summary: "Clear the active project",
    responses: { 200: { description: "`{project: null}`", schema: activeProjectResponse } },
  }),
};

export function activeProjectRoutes({ db }: ActiveProjectRoutesDeps): Hono<MemsvcEnv> {
  const app = new Hono<MemsvcEnv>();
  mountRoute(app, activeProjectApi.get, async (c) => {
    return c.json({ project: await getActiveProject(db, callerOf(c).userId) });
  });
  mountRoute(app, activeProjectApi.set, async (c, { body }) => {
    const caller = callerOf(c);
    const project = await setActiveProject(db, caller, body.project);
    await writeAudit(db, {
      actorId: caller.userId,
      action: "project.activate",
      target: project.id,
      requestId: c.get("requestId"),
    });
    return c.json({ project });
  });
  mountRoute(app, activeProjectApi.clear, async (c) => {
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
  return app;
}
