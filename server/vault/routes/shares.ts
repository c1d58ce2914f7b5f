/**
 * Sharing (every route: a session or an API key):
 *   POST   /api/shares                          share {path, email, permission}; a folder ends in "/"
 *   GET    /api/shares                          {given, received}
 *   DELETE /api/shares/:id                      end a share (its owner or its grantee)
 *   POST   /api/access-requests                 ask {ownerEmail, path, permission, message?}
 *   GET    /api/access-requests                 {incoming, outgoing}
 *   POST   /api/access-requests/:id/approve     {permission}: shares the path with the requester
 *   POST   /api/access-requests/:id/deny
 * Users are named by email. Sharing with an unknown email and asking an unknown owner both answer
 * 404 with the same message, so the routes do not tell which emails have accounts beyond that.
 */
import { Hono } from "hono";
import type { Kysely } from "kysely";
import { z } from "zod";
import { writeAudit } from "../../../internal/audit/mod.ts";
import { callerOf } from "../../../internal/auth/mod.ts";
import type { VaultEnv } from "../env.ts";
import type { AccessEnded } from "../live/access_watch.ts";
import type { NoteStore } from "../notes/mod.ts";
import { defineRoute, idParams, mountRoute, type RouteSpec } from "../openapi/route_spec.ts";
import {
  createRequest,
  decideRequest,
  findUserByEmail,
  listRequests,
  removeShare,
  sharePath,
  sharesGiven,
  sharesReceived,
  upsertShare,
} from "../sharing/shares.ts";
import type { VaultDatabase } from "../store/db.ts";
import type { RouteHandler } from "../../../internal/openapi/mod.ts";
import { noteErrorBody, refusal, withNoteErrors } from "./note_errors.ts";

const permission = z.enum(["read", "read-write"]);
const sharePathField = z.string().min(1).max(4096).describe("a note path, or a folder ending in `/`");
const share = z.object({
  id: z.string(),
  ownerId: z.string(),
  ownerName: z.string(),
  ownerEmail: z.string(),
  granteeId: z.string(),
  granteeName: z.string(),
  granteeEmail: z.string(),
  path: z.string(),
  permission,
  createdAt: z.string(),
});
const request = z.object({
  id: z.string(),
  requesterId: z.string(),
  requesterName: z.string(),
  requesterEmail: z.string(),
  ownerId: z.string(),
  ownerName: z.string(),
  ownerEmail: z.string(),
  path: z.string(),
  permission,
  message: z.string().nullable(),
  status: z.enum(["pending", "approved", "denied"]),
  createdAt: z.string(),
  decidedAt: z.string().nullable(),
});
const refused = { description: "refused: `code` says why", schema: noteErrorBody };

function spec<const S extends Omit<RouteSpec, "tag" | "access">>(s: S) {
  return defineRoute({ tag: "sharing", access: "caller", ...s } as S & { tag: string; access: "caller" });
}

export const sharesApi = {
  share: spec({
    method: "post",
    path: "/api/shares",
    operationId: "shareNote",
    summary: "Share a note, or a folder (path ending in `/`), with another user by email",
    body: z.strictObject({ path: sharePathField, email: z.email().max(320), permission }),
    responses: {
      201: { description: "the share (sharing again changes its permission)", schema: share },
      404: refused,
    },
    errors: [404],
  }),
  list: spec({
    method: "get",
    path: "/api/shares",
    operationId: "listShares",
    summary: "The shares the caller gave and received",
    responses: {
      200: {
        description: "both lists",
        schema: z.object({ given: z.array(share), received: z.array(share) }),
      },
    },
  }),
  unshare: spec({
    method: "delete",
    path: "/api/shares/:id",
    operationId: "removeShare",
    summary: "End a share (its owner or its grantee)",
    params: idParams,
    responses: { 204: { description: "ended" } },
    errors: [404],
  }),
  ask: spec({
    method: "post",
    path: "/api/access-requests",
    operationId: "requestAccess",
    summary: "Ask another user for access to a note or folder",
    body: z.strictObject({
      ownerEmail: z.email().max(320),
      path: sharePathField,
      permission: permission.default("read"),
      message: z.string().max(1000).optional(),
    }),
    responses: { 201: { description: "the pending request", schema: request }, 404: refused },
    errors: [404],
  }),
  requests: spec({
    method: "get",
    path: "/api/access-requests",
    operationId: "listAccessRequests",
    summary: "Requests to the caller (incoming) and from the caller (outgoing)",
    responses: {
      200: {
        description: "newest first",
        schema: z.object({ incoming: z.array(request), outgoing: z.array(request) }),
      },
    },
  }),
  approve: spec({
    method: "post",
    path: "/api/access-requests/:id/approve",
    operationId: "approveAccessRequest",
    summary: "Approve a pending request with a permission: the path is shared with the requester",
    params: idParams,
    body: z.strictObject({ permission }),
    responses: { 200: { description: "the request, approved", schema: request } },
    errors: [404],
  }),
  deny: spec({
    method: "post",
    path: "/api/access-requests/:id/deny",
    operationId: "denyAccessRequest",
    summary: "Deny a pending request",
    params: idParams,
    responses: { 200: { description: "the request, denied", schema: request } },
    errors: [404],
  }),
};

const dates = <T extends { createdAt: Date; decidedAt?: Date | null }>(r: T) => ({
  ...r,
  createdAt: new Date(r.createdAt).toISOString(),
  ...("decidedAt" in r ? { decidedAt: r.decidedAt ? new Date(r.decidedAt).toISOString() : null } : {}),
});

export function shareRoutes(
  { db, store, access }: { db: Kysely<VaultDatabase>; store: NoteStore; access?: AccessEnded },
): Hono<VaultEnv> {
  const app = new Hono<VaultEnv>();
  const mount = <S extends RouteSpec>(s: S, h: RouteHandler<VaultEnv, S>) =>
    mountRoute(app, s, withNoteErrors(h));
  const noUser = () => refusal(404, "not_found", "no user with that email can be shared with");

  mount(sharesApi.share, async (c, { body }) => {
    const { userId } = callerOf(c);
    const path = sharePath(body.path);
    const grantee = await findUserByEmail(db, body.email);
    if (!grantee || grantee.id === userId) throw noUser();
    // Only what exists can be shared: a folder share needs the folder, a note share the note.
    const tree = await store.tree(userId, { stats: false });
    const exists = path.endsWith("/")
      ? tree.some((e) => e.kind === "folder" && e.path === path.slice(0, -1))
      : tree.some((e) => e.kind !== "folder" && e.path === path);
    if (!exists) throw refusal(404, "not_found", `${path} not found`);
    const s = await upsertShare(db, userId, grantee.id, path, body.permission);
    // Sharing again may narrow read-write to read: the grantee's open editors follow.
    access?.ended([grantee.id]);
    await writeAudit(db, {
      actorId: userId,
      action: "share.create",
      target: s.id,
      requestId: c.get("requestId"),
      metadata: { grantee: grantee.id, permission: body.permission },
    });
    return c.json(dates(s), 201);
  });

  mount(sharesApi.list, async (c) => {
    const { userId } = callerOf(c);
    return c.json({
      given: (await sharesGiven(db, userId)).map(dates),
      received: (await sharesReceived(db, userId)).map(dates),
    });
  });

  mount(sharesApi.unshare, async (c, { params }) => {
    const { userId } = callerOf(c);
    const removed = await removeShare(db, userId, params.id);
    if (!removed) throw refusal(404, "not_found", "no such share");
    access?.ended([removed.granteeId]);
    await writeAudit(db, {
      actorId: userId,
      action: "share.remove",
      target: params.id,
      requestId: c.get("requestId"),
    });
    return c.body(null, 204);
  });

  mount(sharesApi.ask, async (c, { body }) => {
    const { userId } = callerOf(c);
    const owner = await findUserByEmail(db, body.ownerEmail);
    if (!owner || owner.id === userId) throw noUser();
    const r = await createRequest(db, {
      requesterId: userId,
      ownerId: owner.id,
      path: sharePath(body.path),
      permission: body.permission,
      message: body.message,
    });
    return c.json(dates(r), 201);
  });

  mount(sharesApi.requests, async (c) => {
    const { incoming, outgoing } = await listRequests(db, callerOf(c).userId);
    return c.json({ incoming: incoming.map(dates), outgoing: outgoing.map(dates) });
  });

  mount(sharesApi.approve, async (c, { params, body }) => {
    const { userId } = callerOf(c);
    const r = await decideRequest(db, userId, params.id, { approve: true, permission: body.permission });
    if (!r) throw refusal(404, "not_found", "no such pending request");
    await writeAudit(db, {
      actorId: userId,
      action: "access-request.approve",
      target: params.id,
      requestId: c.get("requestId"),
      metadata: { permission: body.permission },
    });
    return c.json(dates(r));
  });

  mount(sharesApi.deny, async (c, { params }) => {
    const { userId } = callerOf(c);
    const r = await decideRequest(db, userId, params.id, { approve: false });
    if (!r) throw refusal(404, "not_found", "no such pending request");
    return c.json(dates(r));
  });

  return app;
}
