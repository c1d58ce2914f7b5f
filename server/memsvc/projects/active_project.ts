/**
 * Each user's active project: the project memory calls use when they name none. One pointer per user
 * (table user_active_project). Deleting the project removes it (ON DELETE CASCADE) and unsharing
 * removes the member's; reads still check access, so a pointer set in a race with an unshare never
 * gives a former member the project.
 */
import { type Kysely, sql } from "kysely";
import type { Caller } from "../../../internal/auth/mod.ts";
import { announceCacheChange } from "../store/cache_notices.ts";
import type { MemsvcDatabase } from "../store/db.ts";
import { findProjectView, type ProjectView, projectView } from "./projects.ts";
import { reachableBy, resolveProject } from "./resolve_project.ts";

/** The id of the user's active project, when there is one they can still reach. */
export async function activeProjectId(
  db: Kysely<MemsvcDatabase>,
  userId: string,
): Promise<string | undefined> {
  const row = await db.selectFrom("user_active_project as a")
    .innerJoin("projects as p", "p.id", "a.project_id")
    .select("a.project_id")
    .where("a.user_id", "=", userId)
    .where(reachableBy(userId))
    .executeTakeFirst();
  return row?.project_id;
}

/** The user's active project, or null. */
export async function getActiveProject(
  db: Kysely<MemsvcDatabase>,
  userId: string,
): Promise<ProjectView | null> {
  const projectId = await activeProjectId(db, userId);
  if (!projectId) return null;
  return await findProjectView(db, userId, projectId) ?? null;
}

/** Makes the project `ref` names (an id or a name the caller can reach) the caller's active project. */
export async function setActiveProject(
  db: Kysely<MemsvcDatabase>,
  caller: Pick<Caller, "userId">,
  ref: string,
): Promise<ProjectView> {
  const project = await resolveProject(db, caller, ref);
  await db.insertInto("user_active_project")
    .values({ user_id: caller.userId, project_id: project.id })
    .onConflict((oc) => oc.column("user_id").doUpdateSet({ project_id: project.id, set_at: sql`now()` }))
    .execute();
  announceCacheChange(db, `a:${caller.userId}`);
  return await projectView(db, caller.userId, project.id);
}

/** Clears the user's active project; returns the id it pointed at, if any. */
export async function clearActiveProject(
  db: Kysely<MemsvcDatabase>,
  userId: string,
): Promise<string | undefined> {
  const row = await db.deleteFrom("user_active_project").where("user_id", "=", userId).returning("project_id")
    .executeTakeFirst();
  announceCacheChange(db, `a:${userId}`);
  return row?.project_id;
}
