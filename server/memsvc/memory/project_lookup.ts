import type { Kysely } from "kysely";
import { activeProjectId, projectAccess, resolveProject } from "../projects/mod.ts";
import type { MemsvcDatabase } from "../store/db.ts";
import type { ProjectLookup } from "./scope.ts";

/** The memory engine's view of projects, backed by server/memsvc/projects. */
export function projectLookup(db: Kysely<MemsvcDatabase>): ProjectLookup {
  return {
    resolve: async (caller, ref) => (await resolveProject(db, caller, ref)).id,
    active: async (userId) => (await activeProjectId(db, userId)) ?? null,
    canAccess: async (userId, projectId) => (await projectAccess(db, userId, projectId)) !== undefined,
  };
}
