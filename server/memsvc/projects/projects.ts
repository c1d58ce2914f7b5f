/**
 * Projects and their members. A project is owned by one user and shared by adding members by their
 * exact email; only the owner deletes, shares and unshares. Functions that take a project reference
 * (an id or a name) take the caller and resolve it with resolveProject, so they answer 404/403/400
 * exactly as it does.
 */
import { HTTPException } from "hono/http-exception";
import type { Kysely } from "kysely";
import type { Caller } from "../../../internal/auth/mod.ts";
import { announceCacheChange } from "../store/cache_notices.ts";
import type { MemsvcDatabase } from "../store/db.ts";
import { generateProjectId } from "./project_id.ts";
import { parseProjectName } from "./project_name.ts";
import {
  NO_SUCH_PROJECT,
  type ProjectRole,
  reachableBy,
  type ResolvedProject,
  resolveProject,
} from "./resolve_project.ts";

/** A project as its owner or a member sees it. */
export interface ProjectView {
  id: string;
  name: string;
  owner: { id: string; email: string };
  role: ProjectRole;
  /** Everyone with access, the owner included: the length of the members list. */
  memberCount: number;
  /** ISO 8601. */
  createdAt: string;
  /** Whether it is the viewer's active project. */
  active: boolean;
}

export interface ProjectMember {
  userId: string;
  email: string;
  role: ProjectRole;
  /** ISO 8601; the owner's is the project's creation time. */
  addedAt: string;
}

type Db = Kysely<MemsvcDatabase>;
type ProjectCaller = Pick<Caller, "userId">;

/** Creates a project owned by the user. 400 for a bad name; 409 when the user already has one by that name. */
export async function createProject(db: Db, userId: string, name: string): Promise<ProjectView> {
  const parsed = parseProjectName(name);
  const created = await db.insertInto("projects")
    .values({ id: generateProjectId(), name: parsed.name, name_key: parsed.nameKey, owner_id: userId })
    // The unique (owner, name key) constraint decides, so two concurrent creates cannot both succeed.
    .onConflict((oc) => oc.columns(["owner_id", "name_key"]).doNothing())
    .returning("id")
    .executeTakeFirst();
  if (!created) throw new HTTPException(409, { message: "a project with this name already exists" });
  return await projectView(db, userId, created.id);
}

/** The user's own projects, then those shared with them, each by name. */
export async function listProjects(db: Db, userId: string): Promise<ProjectView[]> {
  const rows = await views(db, userId)
    .orderBy((eb) => eb.case().when("p.owner_id", "=", userId).then(0).else(1).end())
    .orderBy("p.name_key")
    .orderBy("p.id")
    .execute();
  return rows.map((row) => toView(row, userId));
}

/** One project by reference. */
export async function getProject(db: Db, caller: ProjectCaller, ref: string): Promise<ProjectView> {
  const project = await resolveProject(db, caller, ref);
  return await projectView(db, caller.userId, project.id);
}

/**
 * The project as the user sees it, or undefined when it is gone or out of the user's reach (a
 * project deleted or unshared since it was resolved).
 */
export async function findProjectView(
  db: Db,
  userId: string,
  projectId: string,
): Promise<ProjectView | undefined> {
  const row = await views(db, userId).where("p.id", "=", projectId).executeTakeFirst();
  return row && toView(row, userId);
}

/** Like findProjectView, but 404 `no such project` when it is gone or out of reach. */
export async function projectView(db: Db, userId: string, projectId: string): Promise<ProjectView> {
  const view = await findProjectView(db, userId, projectId);
  // Possible only when a concurrent delete or unshare took it since it was resolved.
  if (!view) throw new HTTPException(404, { message: NO_SUCH_PROJECT });
  return view;
}

/**
 * Deletes a project (owner only, else 403). Its memberships, active-project pointers and memory
 * entries go with it through ON DELETE CASCADE, and the entries' edges and vectors through theirs:
 * one statement, so all of it or none.
 */
export async function deleteProject(db: Db, caller: ProjectCaller, ref: string): Promise<ResolvedProject> {
  const project = ownerOnly(await resolveProject(db, caller, ref), "delete it");
  const result = await db.deleteFrom("projects")
    .where("id", "=", project.id)
    .where("owner_id", "=", caller.userId)
    .executeTakeFirst();
  if (result.numDeletedRows === 0n) throw new HTTPException(404, { message: NO_SUCH_PROJECT });
  announceCacheChange(db, "a*");
  return project;
}

/**
 * Adds the user with exactly this email (case-sensitive) as a member (owner only, else 403).
 * 404 `no such user`; 409 for the owner or an existing member.
 */
export async function shareProject(
  db: Db,
  caller: ProjectCaller,
  ref: string,
  email: string,
): Promise<{ project: ResolvedProject; member: ProjectMember }> {
  const project = ownerOnly(await resolveProject(db, caller, ref), "share it");
  const user = await db.selectFrom("user").select(["id", "email"]).where("email", "=", email)
    .executeTakeFirst();
  if (!user) throw new HTTPException(404, { message: "no such user" });
  if (user.id === project.ownerId) {
    throw new HTTPException(409, {
      message: "the owner already has the project; share it with someone else",
    });
  }
  const added = await db.insertInto("project_members")
    .values({ project_id: project.id, user_id: user.id })
    .onConflict((oc) => oc.columns(["project_id", "user_id"]).doNothing())
    .returning("added_at")
    .executeTakeFirst();
  if (!added) throw new HTTPException(409, { message: "already a member of this project" });
  announceCacheChange(db, `a:${user.id}`);
  return {
    project,
    member: { userId: user.id, email: user.email, role: "member", addedAt: added.added_at.toISOString() },
  };
}

/**
 * Removes the member with exactly this email (owner only, else 403). 404 `no such member` when
 * nobody with that email is a member; 409 for the owner's own email.
 */
export async function unshareProject(
  db: Db,
  caller: ProjectCaller,
  ref: string,
  email: string,
): Promise<{ project: ResolvedProject; userId: string }> {
  const project = ownerOnly(await resolveProject(db, caller, ref), "remove members");
  // One statement: the membership row goes, and with it the member's active-project pointer when it
  // pointed here, so no moment exists where a removed member still defaults to the project.
  const removed = await db
    .with("removed", (qb) =>
      qb.deleteFrom("project_members")
        .where("project_id", "=", project.id)
        .where("user_id", "=", (eb) => eb.selectFrom("user").select("id").where("email", "=", email))
        .returning("user_id"))
    .with("cleared", (qb) =>
      qb.deleteFrom("user_active_project")
        .where("project_id", "=", project.id)
        .where("user_id", "in", (eb) => eb.selectFrom("removed").select("user_id"))
        .returning("user_id"))
    .selectFrom("removed")
    .select("user_id")
    .executeTakeFirst();
  if (removed) {
    announceCacheChange(db, `a:${removed.user_id}`);
    return { project, userId: removed.user_id };
  }

  const owner = await db.selectFrom("user").select("email").where("id", "=", project.ownerId)
    .executeTakeFirst();
  if (owner?.email === email) {
    throw new HTTPException(409, { message: "the owner cannot be removed; delete the project instead" });
  }
  throw new HTTPException(404, { message: "no such member" });
}

/** Everyone with access: the owner first, then members in the order they were added. */
export async function listMembers(db: Db, caller: ProjectCaller, ref: string): Promise<ProjectMember[]> {
  const project = await resolveProject(db, caller, ref);
  const owner = await db.selectFrom("user").select(["id", "email"]).where("id", "=", project.ownerId)
    .executeTakeFirstOrThrow();
  const members = await db.selectFrom("project_members as m")
    .innerJoin("user as u", "u.id", "m.user_id")
    .select(["u.id", "u.email", "m.added_at"])
    .where("m.project_id", "=", project.id)
    .orderBy("m.added_at")
    .orderBy("u.id")
    .execute();
  return [
    { userId: owner.id, email: owner.email, role: "owner", addedAt: project.createdAt.toISOString() },
    ...members.map((m): ProjectMember => ({
      userId: m.id,
      email: m.email,
      role: "member",
      addedAt: m.added_at.toISOString(),
    })),
  ];
}

function ownerOnly(project: ResolvedProject, action: string): ResolvedProject {
  if (project.role !== "owner") {
    throw new HTTPException(403, { message: `only the project's owner can ${action}` });
  }
  return project;
}

/** Projects the user owns or is a member of, with what a view shows. */
function views(db: Db, userId: string) {
  return db.selectFrom("projects as p")
    .innerJoin("user as o", "o.id", "p.owner_id")
    .select((eb) => [
      "p.id",
      "p.name",
      "p.owner_id",
      "o.email as owner_email",
      "p.created_at",
      eb.selectFrom("project_members as m").whereRef("m.project_id", "=", "p.id")
        .select((sub) => sub.fn.countAll<string>().as("count"))
        .as("member_count"),
      eb.exists(
        eb.selectFrom("user_active_project as a").whereRef("a.project_id", "=", "p.id")
          .where("a.user_id", "=", userId).select("a.user_id"),
      ).$castTo<boolean>().as("active"),
    ])
    .where(reachableBy(userId));
}

function toView(
  row: {
    id: string;
    name: string;
    owner_id: string;
    owner_email: string;
    created_at: Date;
    member_count: string | null;
    active: boolean;
  },
  userId: string,
): ProjectView {
  return {
    id: row.id,
    name: row.name,
    owner: { id: row.owner_id, email: row.owner_email },
    role: row.owner_id === userId ? "owner" : "member",
    // count(*) is int8, which both drivers return as a string; members plus the owner.
    memberCount: Number(row.member_count) + 1,
    createdAt: row.created_at.toISOString(),
    active: row.active,
  };
}
