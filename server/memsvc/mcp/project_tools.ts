/**
 * The project tools: project_list, project_create, project_delete, project_share, project_unshare,
 * project_activate and project_deactivate. Same service and audit records as /v1/projects.
 */
import type { McpServer } from "../../../internal/mcp/sdk.ts";
import { z } from "zod";
import { writeAudit } from "../../../internal/audit/mod.ts";
import type { AuditAction } from "../audit/actions.ts";
import {
  clearActiveProject,
  createProject,
  deleteProject,
  listProjects,
  setActiveProject,
  shareProject,
  unshareProject,
} from "../projects/mod.ts";
import type { JsonValue } from "../store/db.ts";
import type { McpDeps } from "./mcp_server.ts";
import { identityOf, ok, toolError, type ToolIdentity } from "./tool_result.ts";

const ref = z.string().min(1).max(200).describe("Project id or name");
const email = z.string().min(1).max(320).describe("The member's exact email address");

export function registerProjectTools(server: McpServer, deps: McpDeps) {
  const { db, log } = deps;
  const audit = (
    who: ToolIdentity,
    action: AuditAction,
    target: string,
    metadata: Record<string, JsonValue> = {},
  ) => writeAudit(db, { actorId: who.caller.userId, action, target, requestId: who.requestId, metadata });
  // Every tool reports failures as tool errors with the HTTP meaning (404, 403, 409, 400).
  const safe =
    <T>(run: (args: T, who: ToolIdentity) => Promise<object>) =>
    async (args: T, extra: Parameters<typeof identityOf>[0]) => {
      try {
        return ok(await run(args, identityOf(extra)));
      } catch (err) {
        return toolError(err, log);
      }
    };

  server.registerTool(
    "project_list",
    {
      description: "List the projects you own and those shared with you, marking the active one.",
      inputSchema: {},
    },
    safe(async (_args: Record<string, never>, who) => ({
      projects: await listProjects(db, who.caller.userId),
    })),
  );

  server.registerTool(
    "project_create",
    {
      description: "Create a project (a shared sub-brain of memory) that you own.",
      inputSchema: {
        name: z.string().min(1).max(200).describe("Project name: letters, digits, space, - _ ."),
      },
    },
    safe(async ({ name }: { name: string }, who) => {
      const project = await createProject(db, who.caller.userId, name);
      await audit(who, "project.create", project.id, { name: project.name });
      return project;
    }),
  );

  server.registerTool(
    "project_delete",
    {
      description: "Delete a project you own, with all its memories and memberships. Cannot be undone.",
      inputSchema: { project: ref },
    },
    safe(async ({ project }: { project: string }, who) => {
      const deleted = await deleteProject(db, who.caller, project);
      await audit(who, "project.delete", deleted.id, { name: deleted.name });
      return { deleted: true, id: deleted.id };
    }),
  );

  server.registerTool(
    "project_share",
    {
      description: "Share a project you own with another user, by their exact email.",
      inputSchema: { project: ref, email },
    },
    safe(async (args: { project: string; email: string }, who) => {
      const { project, member } = await shareProject(db, who.caller, args.project, args.email);
      await audit(who, "project.share", project.id, { email: member.email, userId: member.userId });
      return member;
    }),
  );

  server.registerTool(
    "project_unshare",
    {
      description: "Remove a member from a project you own, by their exact email.",
      inputSchema: { project: ref, email },
    },
    safe(async (args: { project: string; email: string }, who) => {
      const { project, userId } = await unshareProject(db, who.caller, args.project, args.email);
      await audit(who, "project.unshare", project.id, { email: args.email, userId });
      return { removed: true };
    }),
  );

  server.registerTool(
    "project_activate",
    {
      description: "Make a project the active one: memory reads then include it and writes go into it. " +
        "Call it when the user starts working on a project.",
      inputSchema: { project: ref },
    },
    safe(async ({ project }: { project: string }, who) => {
      const active = await setActiveProject(db, who.caller, project);
      await audit(who, "project.activate", active.id);
      return { project: active };
    }),
  );

  server.registerTool(
    "project_deactivate",
    {
      description: "Leave the active project: memory reads and writes go back to user-global memory.",
      inputSchema: {},
    },
    safe(async (_args: Record<string, never>, who) => {
      const cleared = await clearActiveProject(db, who.caller.userId);
      if (cleared) await audit(who, "project.deactivate", cleared);
      return { project: null };
    }),
  );
}
