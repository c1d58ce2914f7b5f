/**
 * Who may reach a project, and which project a reference means. Every project and memory request
 * that names a project goes through resolveProject, so the 404 'no such project' / 403 'not a member
 * of this project' distinction is made in one place.
 */
import { HTTPException } from "hono/http-exception";
import { type Kysely, sql } from "kysely";
import { ValidationError } from "../../../internal/http/mod.ts";
import type { Caller } from "../../../internal/auth/mod.ts";
import type { MemsvcDatabase } from "../store/db.ts";
import { projectNameKey } from "./project_name.ts";

export type ProjectRole = "owner" | "member";

export interface ResolvedProject {
  id: string;
  /** NFKC-normalised, as stored. */
  name: string;
  ownerId: string;
  createdAt: Date;
  /** The caller's role in it. */
  role: ProjectRole;
}

export const NO_SUCH_PROJECT = "no such project";
export const NOT_A_MEMBER = "not a member of this project";

/**
 * The project `ref` means to the caller, with the caller's role. `ref` is a project id or a name
 * (compared by name key). Order: an id; a name among the caller's own projects; a name among projects
 * shared with the caller.
 * - 403 `not a member of this project`: an existing id the caller has no access to.
 * - 404 `no such project`: nothing matches. Names are per owner, so a name only other users have is
 *   404 as well: it tells nothing about their projects.
 * - 400 (ValidationError): the name matches projects shared by several owners; the message lists
 *   their ids, which disambiguate.
 */
export async function resolveProject(
  db: Kysely<MemsvcDatabase>,
  caller: Pick<Caller, "userId">,
  ref: string,
): Promise<ResolvedProject> {
  const { userId } = caller;
  // One round trip: the id candidate, whatever its access, plus every accessible name match.
  const rows = await withMembership(db, userId)
    .select(["p.id", "p.name", "p.owner_id", "p.created_at", "m.user_id as member_id"])
    .where((eb) =>
      eb.or([
        eb("p.id", "=", ref),
        eb.and([
          eb("p.name_key", "=", projectNameKey(ref)),
          eb.or([eb("p.owner_id", "=", userId), eb("m.user_id", "is not", null)]),
        ]),
      ])
    )
    .execute();

  const byId = rows.find((row) => row.id === ref);
  if (byId) {
    const role = roleOf(byId, userId);
    if (!role) throw new HTTPException(403, { message: NOT_A_MEMBER });
    return toResolved(byId, role);
  }
  const owned = rows.find((row) => row.owner_id === userId);
  if (owned) return toResolved(owned, "owner");
  if (rows.length === 0) throw new HTTPException(404, { message: NO_SUCH_PROJECT });
  if (rows.length > 1) {
    const ids = rows.map((row) => row.id).sort().join(", ");
    throw new ValidationError([{
      path: [],
      message: `project name ${JSON.stringify(ref)} is ambiguous: projects ${ids} of different owners ` +
        `are shared with you under it; use the project id`,
      code: "ambiguous_project",
    }]);
  }
  return toResolved(rows[0]!, "member");
}

/** The caller's role in a project, or undefined when the project is missing or not theirs to reach. */
export async function projectAccess(
  db: Kysely<MemsvcDatabase>,
  userId: string,
  projectId: string,
): Promise<ProjectRole | undefined> {
  const row = await withMembership(db, userId)
    .select(["p.owner_id", "m.user_id as member_id"])
    .where("p.id", "=", projectId)
    .executeTakeFirst();
  return row && roleOf(row, userId);
}

/** Ids of every project the user owns or is a member of, sorted. */
export async function accessibleProjectIds(db: Kysely<MemsvcDatabase>, userId: string): Promise<string[]> {
  const rows = await db.selectFrom("projects").select("id").where("owner_id", "=", userId)
    .union(db.selectFrom("project_members").select("project_id as id").where("user_id", "=", userId))
    .orderBy("id")
    .execute();
  return rows.map((row) => row.id);
}

/** Projects, each joined with the user's membership row when there is one. */
function withMembership(db: Kysely<MemsvcDatabase>, userId: string) {
  return db.selectFrom("projects as p")
    .leftJoin(
      "project_members as m",
      (join) => join.onRef("m.project_id", "=", "p.id").on("m.user_id", "=", userId),
    );
}

function roleOf(
  row: { owner_id: string; member_id: string | null },
  userId: string,
): ProjectRole | undefined {
  if (row.owner_id === userId) return "owner";
  return row.member_id === null ? undefined : "member";
}

function toResolved(
  row: { id: string; name: string; owner_id: string; created_at: Date },
  role: ProjectRole,
): ResolvedProject {
  return { id: row.id, name: row.name, ownerId: row.owner_id, createdAt: row.created_at, role };
}

/**
 * A where-clause for queries over `projects as p`: projects the user owns or is a member of. The one
 * definition of "may use this project" for every query that lists or looks up projects.
 */
export function reachableBy(userId: string) {
  return sql<boolean>`(p.owner_id = ${userId}
    or exists (select 1 from project_members m where m.project_id = p.id and m.user_id = ${userId}))`;
}
