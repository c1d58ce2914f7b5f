/**
 * Shares and access requests (migration 0003). A share gives one user read or read-write access
 * to another's note, or to a folder written with a trailing "/" (every path below it, matched by
 * prefix, so "Work/" never covers "Worklog/"). Every read, write and search of another user's notes
 * asks `permissionFor` first, on the server, whatever the client shows.
 */
import { randomUUID } from "node:crypto";
import type { Kysely } from "kysely";
import { normalizeNotePath } from "../notes/mod.ts";
import type { Permission, VaultDatabase } from "../store/db.ts";

export interface Share {
  id: string;
  ownerId: string;
  ownerName: string;
  ownerEmail: string;
  granteeId: string;
  granteeName: string;
  granteeEmail: string;
  path: string;
  permission: Permission;
  createdAt: Date;
}

export interface AccessRequest {
  id: string;
  requesterId: string;
  requesterName: string;
  requesterEmail: string;
  ownerId: string;
  ownerName: string;
  ownerEmail: string;
  path: string;
  permission: Permission;
  message: string | null;
  status: "pending" | "approved" | "denied";
  createdAt: Date;
  decidedAt: Date | null;
}

/** A share's path in stored form: a normalised note path, or a normalised folder with one "/". */
export function sharePath(path: string): string {
  const folder = path.endsWith("/") || path.endsWith("\\");
  const norm = normalizeNotePath(folder ? path.replace(/[\\/]+$/, "") : path);
  return folder ? `${norm}/` : norm;
}

/** True when a share of `shared` covers `path` (a note, or a folder for a folder share). */
export function covers(shared: string, path: string): boolean {
  return shared.endsWith("/") ? path.startsWith(shared) || path === shared.slice(0, -1) : path === shared;
}

export async function findUserByEmail(db: Kysely<VaultDatabase>, email: string) {
  return await db.selectFrom("user").select(["id", "name", "email"])
    .where((eb) => eb(eb.fn("lower", ["email"]), "=", email.trim().toLowerCase())).executeTakeFirst();
}

export async function userName(db: Kysely<VaultDatabase>, id: string) {
  return await db.selectFrom("user").select(["id", "name", "email"]).where("id", "=", id).executeTakeFirst();
}

function shareQuery(db: Kysely<VaultDatabase>) {
  return db.selectFrom("note_shares as s")
    .innerJoin("user as o", "o.id", "s.owner_id")
    .innerJoin("user as g", "g.id", "s.grantee_id")
    .select([
      "s.id",
      "s.owner_id as ownerId",
      "o.name as ownerName",
      "o.email as ownerEmail",
      "s.grantee_id as granteeId",
      "g.name as granteeName",
      "g.email as granteeEmail",
      "s.path",
      "s.permission",
      "s.created_at as createdAt",
    ]);
}

/** Shares `path` with `granteeId`, replacing the permission of an existing share of it. */
export async function upsertShare(
  db: Kysely<VaultDatabase>,
  ownerId: string,
  granteeId: string,
  path: string,
  permission: Permission,
): Promise<Share> {
  await db.insertInto("note_shares")
    .values({ id: randomUUID(), owner_id: ownerId, grantee_id: granteeId, path, permission })
    .onConflict((oc) => oc.columns(["owner_id", "path", "grantee_id"]).doUpdateSet({ permission }))
    .execute();
  return await shareQuery(db).where("s.owner_id", "=", ownerId).where("s.grantee_id", "=", granteeId)
    .where("s.path", "=", path).executeTakeFirstOrThrow();
}

export async function sharesGiven(db: Kysely<VaultDatabase>, ownerId: string): Promise<Share[]> {
  return await shareQuery(db).where("s.owner_id", "=", ownerId).orderBy("s.path").orderBy("g.email")
    .execute();
}

export async function sharesReceived(db: Kysely<VaultDatabase>, granteeId: string): Promise<Share[]> {
  return await shareQuery(db).where("s.grantee_id", "=", granteeId).orderBy("o.email").orderBy("s.path")
    .execute();
}

/** Removes a share the caller gave or received; its grantee, or undefined when there is none. */
export async function removeShare(
  db: Kysely<VaultDatabase>,
  userId: string,
  id: string,
): Promise<{ granteeId: string } | undefined> {
  const r = await db.deleteFrom("note_shares").where("id", "=", id)
    .where((eb) => eb.or([eb("owner_id", "=", userId), eb("grantee_id", "=", userId)]))
    .returning("grantee_id").executeTakeFirst();
  return r && { granteeId: r.grantee_id };
}

/**
 * What `userId` may do with `ownerId`'s `path`: everything with their own notes, else the widest
 * permission of the shares that cover it, else undefined.
 */
export async function permissionFor(
  db: Kysely<VaultDatabase>,
  userId: string,
  ownerId: string,
  path: string,
): Promise<Permission | undefined> {
  if (userId === ownerId) return "read-write";
  const rows = await db.selectFrom("note_shares").select(["path", "permission"])
    .where("owner_id", "=", ownerId).where("grantee_id", "=", userId).execute();
  let best: Permission | undefined;
  for (const r of rows) {
    if (!covers(r.path, path)) continue;
    if (r.permission === "read-write") return "read-write";
    best = "read";
  }
  return best;
}

function requestQuery(db: Kysely<VaultDatabase>) {
  return db.selectFrom("access_requests as r")
    .innerJoin("user as q", "q.id", "r.requester_id")
    .innerJoin("user as o", "o.id", "r.owner_id")
    .select([
      "r.id",
      "r.requester_id as requesterId",
      "q.name as requesterName",
      "q.email as requesterEmail",
      "r.owner_id as ownerId",
      "o.name as ownerName",
      "o.email as ownerEmail",
      "r.path",
      "r.permission",
      "r.message",
      "r.status",
      "r.created_at as createdAt",
      "r.decided_at as decidedAt",
    ]);
}

export async function createRequest(
  db: Kysely<VaultDatabase>,
  v: { requesterId: string; ownerId: string; path: string; permission: Permission; message?: string },
): Promise<AccessRequest> {
  const id = randomUUID();
  await db.insertInto("access_requests").values({
    id,
    requester_id: v.requesterId,
    owner_id: v.ownerId,
    path: v.path,
    permission: v.permission,
    message: v.message ?? null,
    decided_at: null,
  }).execute();
  return await requestQuery(db).where("r.id", "=", id).executeTakeFirstOrThrow();
}

export async function listRequests(db: Kysely<VaultDatabase>, userId: string) {
  const incoming = await requestQuery(db).where("r.owner_id", "=", userId).orderBy("r.created_at", "desc")
    .execute();
  const outgoing = await requestQuery(db).where("r.requester_id", "=", userId).orderBy("r.created_at", "desc")
    .execute();
  return { incoming, outgoing };
}

/**
 * Approves (sharing the path with the requester at `permission`) or denies a pending request the
 * owner received, in one transaction; undefined when there is no such pending request.
 */
export async function decideRequest(
  db: Kysely<VaultDatabase>,
  ownerId: string,
  id: string,
  decision: { approve: true; permission: Permission } | { approve: false },
): Promise<AccessRequest | undefined> {
  const done = await db.transaction().execute(async (tx) => {
    const req = await tx.updateTable("access_requests")
      .set({ status: decision.approve ? "approved" : "denied", decided_at: new Date() })
      .where("id", "=", id).where("owner_id", "=", ownerId).where("status", "=", "pending")
      .returning(["requester_id", "path"]).executeTakeFirst();
    if (!req) return false;
    if (decision.approve) {
      await upsertShare(tx, ownerId, req.requester_id, req.path, decision.permission);
    }
    return true;
  });
  return done ? await requestQuery(db).where("r.id", "=", id).executeTakeFirst() : undefined;
}
