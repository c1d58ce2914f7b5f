/**
 * Request and response schemas of /v1/projects and /v1/me/active-project: the request schemas
 * validate requests and describe them in /openapi.json (routes/projects.ts, routes/active_project.ts).
 */
import { z } from "zod";

export const createProjectBody = z.object({
  name: z.string().describe("NFKC-normalised before validation; unique per owner"),
});

// Exact email: matched as given, no trimming or case folding.
export const shareProjectBody = z.object({
  email: z.string().min(1, "email must not be empty").describe("the member's exact email"),
});

export const setActiveProjectBody = z.object({
  project: z.string().min(1, "project must be a project id or name"),
});

export const projectRefParam = z.object({
  ref: z.string().describe("a project id or name (URL-encoded)"),
});

export const memberParams = projectRefParam.extend({
  email: z.string().describe("the member's exact email (URL-encoded)"),
});

export const projectView = z.object({
  id: z.string(),
  name: z.string(),
  owner: z.object({ id: z.string(), email: z.string() }),
  role: z.enum(["owner", "member"]).describe("the viewer's role"),
  memberCount: z.number().int().describe("everyone with access, the owner included"),
  createdAt: z.iso.datetime(),
  active: z.boolean().describe("whether it is the viewer's active project"),
}).meta({ id: "Project" });

export const projectMember = z.object({
  userId: z.string(),
  email: z.string(),
  role: z.enum(["owner", "member"]),
  addedAt: z.iso.datetime(),
}).meta({ id: "ProjectMember" });

export const projectList = z.object({ projects: z.array(projectView) });
export const memberList = z.object({ members: z.array(projectMember) });
export const removedResponse = z.object({ removed: z.literal(true) });
export const activeProjectResponse = z.object({
  project: projectView.nullable().describe("null when no project is active"),
});
