import type { Kysely } from "kysely";
import { activeProjectId, projectAccess, resolveProject } from "../projects/mod.ts";
import type { MemsvcDatabase } from "../store/db.ts";
import type { NotifiedCache } from "../store/notified_cache.ts";
import type { ProjectLookup } from "./scope.ts";

/**
 * The memory engine's view of projects, backed by server/memsvc/projects. `activeProjects` keeps
 * each user's active project between calls (dropped by change notices, store/cache_notices.ts): a
 * remember or search that names no project then reads nothing before its own work.
 */
export function projectLookup(
  db: Kysely<MemsvcDatabase>,
  activeProjects?: NotifiedCache<string | null>,
): ProjectLookup {
  return {
    resolve: async (caller, ref) => (await resolveProject(db, caller, ref)).id,
    active: async (userId) => {
      const cached = activeProjects?.get(userId);
      if (cached !== undefined) return cached;
      const ticket = activeProjects?.ticket() ?? 0;
      const id = (await activeProjectId(db, userId)) ?? null;
      activeProjects?.set(userId, id, userId, ticket);
      return id;
    },
    canAccess: async (userId, projectId) => (await projectAccess(db, userId, projectId)) !== undefined,
  };
}
