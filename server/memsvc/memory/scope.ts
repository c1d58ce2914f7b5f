/**
 * Which entries a call may read or write. An entry without a project belongs to its user alone;
 * an entry in a project belongs to the project, whose owner and members share it. Reads see the
 * caller's user-global entries plus the named project (or, when none is named, the active one) plus
 * `includeProjects`; writes go to the named or active project, else user-global. Namespaces
 * partition each of those: a read looks in `namespace` (default "default") plus `includeNamespaces`.
 */
import type { ExpressionBuilder, Kysely } from "kysely";
import { HTTPException } from "hono/http-exception";
import type { Caller } from "../../../internal/auth/mod.ts";
import type { MemsvcDatabase } from "../store/db.ts";
import type { ReadScopeInput } from "./schemas.ts";

export const DEFAULT_NAMESPACE = "default";

/** How the memory engine reaches projects (implemented by server/memsvc/projects). */
export interface ProjectLookup {
  /** A project id from an id or a name the caller can use; 404 no such project / 403 not a member. */
  resolve(caller: Caller, ref: string): Promise<string>;
  /** The caller's active project id, or null. */
  active(userId: string): Promise<string | null>;
  /** Whether the user owns or is a member of the project. */
  canAccess(userId: string, projectId: string): Promise<boolean>;
}

export interface WriteScope {
  userId: string;
  projectId: string | null;
  namespace: string;
}

export interface ReadScope {
  userId: string;
  projectIds: string[];
  namespaces: string[];
}

export async function writeScope(
  projects: ProjectLookup,
  caller: Caller,
  input: { project?: string; namespace?: string },
): Promise<WriteScope> {
  const projectId = input.project !== undefined
    ? await projects.resolve(caller, input.project)
    : await projects.active(caller.userId);
  return { userId: caller.userId, projectId, namespace: input.namespace ?? DEFAULT_NAMESPACE };
}

export async function readScope(
  projects: ProjectLookup,
  caller: Caller,
  input: ReadScopeInput,
): Promise<ReadScope> {
  const include = input.includeProjects ?? [];
  // A browser session works in one project at a time; fanning out across projects is for
  // agents and scripts with bearer credentials.
  if (include.length > 0 && caller.via === "cookie") {
    throw new HTTPException(403, {
      message: "cross-project access (includeProjects) needs a bearer credential",
    });
  }
  const main = input.project !== undefined
    ? await projects.resolve(caller, input.project)
    : await projects.active(caller.userId);
  const extra = await Promise.all(include.map((ref) => projects.resolve(caller, ref)));
  const projectIds = [...new Set([...(main ? [main] : []), ...extra])];
  const namespaces = [...new Set([input.namespace ?? DEFAULT_NAMESPACE, ...(input.includeNamespaces ?? [])])];
  return { userId: caller.userId, projectIds, namespaces };
}

/** A where-clause for memory_entries rows inside a read scope. */
export function inScope(scope: ReadScope) {
  return (eb: ExpressionBuilder<MemsvcDatabase, "memory_entries">) =>
    eb.and([
      eb.or([
        eb.and([
          eb("memory_entries.user_id", "=", scope.userId),
          eb("memory_entries.project_id", "is", null),
        ]),
        ...(scope.projectIds.length ? [eb("memory_entries.project_id", "in", scope.projectIds)] : []),
      ]),
      eb("memory_entries.namespace", "in", scope.namespaces),
    ]);
}

/** The key of the partition an entry lives in: its project or its user, and its namespace. */
export function partitionKey(row: { user_id: string; project_id: string | null; namespace: string }): string {
  return `${row.project_id ?? `u:${row.user_id}`}|${row.namespace}`;
}

export function partitionsOf(scope: ReadScope): string[] {
  const owners = [`u:${scope.userId}`, ...scope.projectIds];
  return owners.flatMap((o) => scope.namespaces.map((ns) => `${o}|${ns}`));
}

/**
 * Loads an entry the caller may change or read by id, checking the entry's real scope (its own
 * project), not anything the request claims. Unknown and inaccessible ids are the same 404, so ids
 * of other users' entries cannot be probed.
 */
export async function accessibleEntry(
  db: Kysely<MemsvcDatabase>,
  projects: ProjectLookup,
  caller: Caller,
  id: string,
) {
  const entry = await db.selectFrom("memory_entries").selectAll().where("id", "=", id).executeTakeFirst();
  const allowed = entry &&
    (entry.project_id === null
      ? entry.user_id === caller.userId
      : await projects.canAccess(caller.userId, entry.project_id));
  if (!entry || !allowed) throw new HTTPException(404, { message: "no such memory" });
  return entry;
}
