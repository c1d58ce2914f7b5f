/**
 * Projects and their members under /v1/projects. `:ref` is a project id or name (URL-encoded).
 * Any caller may use these, API tokens included: agents manage projects too. Ownership rules live in
 * the project service; every change is audited here with the request id.
 */
import { type Context, Hono } from "hono";
import type { Kysely } from "kysely";
import { z } from "zod";
import { parseJson } from "../../../internal/http/mod.ts";
import { type AuditAction, writeAudit } from "../audit/audit_log.ts";
import { callerOf } from "../auth/caller.ts";
import { requireCaller } from "../auth/require.ts";
import type { MemsvcEnv } from "../env.ts";
import {
  createProject,
  deleteProject,
  getProject,
  listMembers,
  listProjects,
  shareProject,
  unshareProject,
} from "../projects/mod.ts";
import type { JsonValue, MemsvcDatabase } from "../store/db.ts";

export interface ProjectRoutesDeps {
  db: Kysely<MemsvcDatabase>;
}

const createBody = z.object({ name: z.string() });
// Exact email: matched as given, no trimming or case folding.
const shareBody = z.object({ email: z.string().min(1, "email must not be empty") });

export function projectRoutes({ db }: ProjectRoutesDeps): Hono<MemsvcEnv> {
  const audit = (
    c: Context<MemsvcEnv>,
    action: AuditAction,
    target: string,
    metadata: Record<string, JsonValue>,
  ) =>
    writeAudit(db, { actorId: callerOf(c).userId, action, target, requestId: c.get("requestId"), metadata });

  return new Hono<MemsvcEnv>()
    .post("/v1/projects", requireCaller(), async (c) => {
      const { name } = await parseJson(c, createBody);
      const project = await createProject(db, callerOf(c).userId, name);
      await audit(c, "project.create", project.id, { name: project.name });
      return c.json(project, 201);
    })
    .get("/v1/projects", requireCaller(), async (c) => {
      return c.json({ projects: await listProjects(db, callerOf(c).userId) });
    })
    .get("/v1/projects/:ref", requireCaller(), async (c) => {
      return c.json(await getProject(db, callerOf(c), c.req.param("ref")));
    })
    .delete("/v1/projects/:ref", requireCaller(), async (c) => {
      const project = await deleteProject(db, callerOf(c), c.req.param("ref"));
      await audit(c, "project.delete", project.id, { name: project.name });
      return c.json({ deleted: true });
    })
    .get("/v1/projects/:ref/members", requireCaller(), async (c) => {
      return c.json({ members: await listMembers(db, callerOf(c), c.req.param("ref")) });
    })
    .post("/v1/projects/:ref/members", requireCaller(), async (c) => {
      const { email } = await parseJson(c, shareBody);
      const { project, member } = await shareProject(db, callerOf(c), c.req.param("ref"), email);
      await audit(c, "project.share", project.id, { email: member.email, userId: member.userId });
      return c.json(member, 201);
    })
    .delete("/v1/projects/:ref/members/:email", requireCaller(), async (c) => {
      const email = c.req.param("email");
      const { project, userId } = await unshareProject(db, callerOf(c), c.req.param("ref"), email);
      await audit(c, "project.unshare", project.id, { email, userId });
      return c.json({ removed: true });
    });
}
