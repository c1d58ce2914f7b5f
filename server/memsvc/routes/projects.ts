/**
 * Projects and their members under /v1/projects. `:ref` is a project id or name (URL-encoded).
 * Any caller may use these, API tokens included: agents manage projects too. Ownership rules live in
 * the project service; every change is audited here with the request id.
 */
import { type Context, Hono } from "hono";
import type { Kysely } from "kysely";
import { writeAudit } from "../../../internal/audit/mod.ts";
import type { AuditAction } from "../audit/actions.ts";
import { callerOf } from "../../../internal/auth/mod.ts";
import type { MemsvcEnv } from "../env.ts";
import { deletedResponse } from "../memory/schemas.ts";
import { defineRoute, mountRoute } from "../openapi/route_spec.ts";
import {
  createProject,
  deleteProject,
  getProject,
  listMembers,
  listProjects,
  shareProject,
  unshareProject,
} from "../projects/mod.ts";
import {
  createProjectBody,
  memberList,
  memberParams,
  projectList,
  projectMember,
  projectRefParam,
  projectView,
  removedResponse,
  shareProjectBody,
} from "../projects/schemas.ts";
import type { JsonValue, MemsvcDatabase } from "../store/db.ts";

export interface ProjectRoutesDeps {
  db: Kysely<MemsvcDatabase>;
}

const tag = "projects";

export const projectApi = {
  create: defineRoute({
    method: "post",
    path: "/v1/projects",
    operationId: "createProject",
    tag,
    access: "caller",
    summary: "Create a project owned by the caller",
    body: createProjectBody,
    responses: { 201: { description: "created", schema: projectView } },
    errors: [409],
  }),
  list: defineRoute({
    method: "get",
    path: "/v1/projects",
    operationId: "listProjects",
    tag,
    access: "caller",
    summary: "Projects the caller owns or is a member of",
    responses: { 200: { description: "the projects", schema: projectList } },
  }),
  get: defineRoute({
    method: "get",
    path: "/v1/projects/:ref",
    operationId: "getProject",
    tag,
    access: "caller",
    summary: "One project",
    params: projectRefParam,
    responses: { 200: { description: "the project", schema: projectView } },
    errors: [404],
  }),
  delete: defineRoute({
    method: "delete",
    path: "/v1/projects/:ref",
    operationId: "deleteProject",
    tag,
    access: "caller",
    summary: "Delete a project (owner only)",
    params: projectRefParam,
    responses: { 200: { description: "deleted", schema: deletedResponse } },
    errors: [404],
  }),
  members: defineRoute({
    method: "get",
    path: "/v1/projects/:ref/members",
    operationId: "listProjectMembers",
    tag,
    access: "caller",
    summary: "Members of a project, the owner included",
    params: projectRefParam,
    responses: { 200: { description: "the members", schema: memberList } },
    errors: [404],
  }),
  share: defineRoute({
    method: "post",
    path: "/v1/projects/:ref/members",
    operationId: "shareProject",
    tag,
    access: "caller",
    summary: "Add a member by exact email (owner only)",
    params: projectRefParam,
    body: shareProjectBody,
    responses: { 201: { description: "the new member", schema: projectMember } },
    errors: [404, 409],
  }),
  unshare: defineRoute({
    method: "delete",
    path: "/v1/projects/:ref/members/:email",
    operationId: "unshareProject",
    tag,
    access: "caller",
    summary: "Remove a member",
    params: memberParams,
    responses: { 200: { description: "removed", schema: removedResponse } },
    errors: [404],
  }),
};

export function projectRoutes({ db }: ProjectRoutesDeps): Hono<MemsvcEnv> {
  const audit = (
    c: Context<MemsvcEnv>,
    action: AuditAction,
    target: string,
    metadata: Record<string, JsonValue>,
  ) =>
    writeAudit(db, { actorId: callerOf(c).userId, action, target, requestId: c.get("requestId"), metadata });

  const app = new Hono<MemsvcEnv>();
  const api = projectApi;
  mountRoute(app, api.create, async (c, { body }) => {
    const project = await createProject(db, callerOf(c).userId, body.name);
    await audit(c, "project.create", project.id, { name: project.name });
    return c.json(project, 201);
  });
  mountRoute(app, api.list, async (c) => c.json({ projects: await listProjects(db, callerOf(c).userId) }));
  mountRoute(app, api.get, async (c, { params }) => c.json(await getProject(db, callerOf(c), params.ref)));
  mountRoute(app, api.delete, async (c, { params }) => {
    const project = await deleteProject(db, callerOf(c), params.ref);
    await audit(c, "project.delete", project.id, { name: project.name });
    return c.json({ deleted: true });
  });
  mountRoute(app, api.members, async (c, { params }) => {
    return c.json({ members: await listMembers(db, callerOf(c), params.ref) });
  });
  mountRoute(app, api.share, async (c, { params, body }) => {
    const { project, member } = await shareProject(db, callerOf(c), params.ref, body.email);
    await audit(c, "project.share", project.id, { email: member.email, userId: member.userId });
    return c.json(member, 201);
  });
  mountRoute(app, api.unshare, async (c, { params }) => {
    const { project, userId } = await unshareProject(db, callerOf(c), params.ref, params.email);
    await audit(c, "project.unshare", project.id, { email: params.email, userId });
    return c.json({ removed: true });
  });
  return app;
}
