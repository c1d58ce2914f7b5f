/**
 * The admin API (an admin's signed-in session):
 *   GET    /api/admin/users                    list users
 *   PATCH  /api/admin/users/:id                change role and/or disable / enable
 *   DELETE /api/admin/users/:id                remove a user
 *   GET    /api/admin/invites                  list invite codes
 *   POST   /api/admin/invites                  create one, optionally expiring
 *   DELETE /api/admin/invites/:id              revoke an unused one
 *   GET    /api/admin/settings/registration    the registration mode
 *   PUT    /api/admin/settings/registration    set it: open or invite-only
 * Changes that would leave no active admin answer 400 LAST_ADMIN_PROTECTED. Every change is audited.
 */
import { Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import { z } from "zod";
import { writeAudit } from "../../../internal/audit/mod.ts";
import { callerOf } from "../../../internal/auth/mod.ts";
import type { Database } from "../../../internal/db/mod.ts";
import { lastAdminBody, validationErrorBody } from "../../../internal/openapi/mod.ts";
import type { VaultEnv } from "../env.ts";
import type { AccessEnded } from "../live/access_watch.ts";
import { createInvite, invite, listInvites, revokeInvite } from "../identity/invites.ts";
import { getRegistrationMode, registrationMode, setRegistrationMode } from "../identity/settings.ts";
import { adminUser, changeUser, listUsers, removeUser, userChange } from "../identity/users.ts";
import { defineRoute, idParams, mountRoute } from "../openapi/route_spec.ts";
import { removeUserIndex } from "../search/mod.ts";
import type { VaultDatabase } from "../store/db.ts";

const modeBody = z.strictObject({ mode: registrationMode });
const lastAdmin = {
  description:
    "invalid request (`issues` says where), or LAST_ADMIN_PROTECTED: it would leave no active admin",
  schema: z.union([validationErrorBody, lastAdminBody]),
};

export const adminApi = {
  listUsers: defineRoute({
    method: "get",
    path: "/api/admin/users",
    operationId: "adminListUsers",
    tag: "admin",
    access: "admin",
    summary: "List users",
    responses: {
      200: { description: "every user, oldest first", schema: z.object({ users: z.array(adminUser) }) },
    },
  }),
  changeUser: defineRoute({
    method: "patch",
    path: "/api/admin/users/:id",
    operationId: "adminChangeUser",
    tag: "admin",
    access: "admin",
    summary: "Change a user's role, or disable or enable them",
    description: "Disabling ends the user's sessions; their API keys stop working until enabled again.",
    params: idParams,
    body: userChange,
    responses: { 200: { description: "the user as changed", schema: adminUser }, 400: lastAdmin },
    errors: [404],
  }),
  removeUser: defineRoute({
    method: "delete",
    path: "/api/admin/users/:id",
    operationId: "adminRemoveUser",
    tag: "admin",
    access: "admin",
    summary: "Remove a user, with their sessions and API keys",
    params: idParams,
    responses: { 204: { description: "removed" }, 400: lastAdmin },
    errors: [404],
  }),
  listInvites: defineRoute({
    method: "get",
    path: "/api/admin/invites",
    operationId: "adminListInvites",
    tag: "admin",
    access: "admin",
    summary: "List invite codes",
    responses: { 200: { description: "newest first", schema: z.object({ invites: z.array(invite) }) } },
  }),
  createInvite: defineRoute({
    method: "post",
    path: "/api/admin/invites",
    operationId: "adminCreateInvite",
    tag: "admin",
    access: "admin",
    summary: "Create an invite code",
    body: z.strictObject({
      expiresAt: z.iso.datetime({ offset: true }).optional().describe("default: never expires"),
    }),
    responses: { 201: { description: "the new code", schema: invite } },
  }),
  revokeInvite: defineRoute({
    method: "delete",
    path: "/api/admin/invites/:id",
    operationId: "adminRevokeInvite",
    tag: "admin",
    access: "admin",
    summary: "Revoke an unused invite code",
    params: idParams,
    responses: { 204: { description: "revoked (or already revoked)" } },
    errors: [404, 409],
  }),
  getRegistration: defineRoute({
    method: "get",
    path: "/api/admin/settings/registration",
    operationId: "adminGetRegistration",
    tag: "admin",
    access: "admin",
    summary: "The registration mode",
    responses: { 200: { description: "the mode", schema: modeBody } },
  }),
  setRegistration: defineRoute({
    method: "put",
    path: "/api/admin/settings/registration",
    operationId: "adminSetRegistration",
    tag: "admin",
    access: "admin",
    summary: "Open registration, or make it invite-only",
    body: modeBody,
    responses: { 200: { description: "the mode now", schema: modeBody } },
  }),
};

const notFound = (what: string) => new HTTPException(404, { message: `no such ${what}` });

export function adminRoutes(
  { database, access }: { database: Database<VaultDatabase>; access?: AccessEnded },
): Hono<VaultEnv> {
  const { db } = database;
  const app = new Hono<VaultEnv>();
  mountRoute(app, adminApi.listUsers, async (c) => c.json({ users: await listUsers(database) }));
  mountRoute(app, adminApi.changeUser, async (c, { params, body }) => {
    const caller = callerOf(c);
    const user = await changeUser(database, caller.userId, params.id, body);
    if (!user) throw notFound("user");
    if (body.disabled) access?.ended([user.id]);
    await writeAudit(db, {
      actorId: caller.userId,
      action: "admin.change-user",
      target: user.id,
      requestId: c.get("requestId"),
      metadata: { ...body },
    });
    return c.json(user);
  });
  mountRoute(app, adminApi.removeUser, async (c, { params }) => {
    const caller = callerOf(c);
    if (!(await removeUser(database, caller.userId, params.id))) throw notFound("user");
    // Their sessions and keys, and every share they gave: any socket may be affected.
    access?.ended("all");
    // The search index has no foreign key to the user table (docs/vault-search.md).
    await removeUserIndex(db, params.id);
    await writeAudit(db, {
      actorId: caller.userId,
      action: "admin.remove-user",
      target: params.id,
      requestId: c.get("requestId"),
    });
    return c.body(null, 204);
  });
  mountRoute(app, adminApi.listInvites, async (c) => c.json({ invites: await listInvites(db) }));
  mountRoute(app, adminApi.createInvite, async (c, { body }) => {
    const caller = callerOf(c);
    const expiresAt = body.expiresAt ? new Date(body.expiresAt) : null;
    const created = await createInvite(db, caller.userId, expiresAt);
    await writeAudit(db, {
      actorId: caller.userId,
      action: "admin.create-invite",
      // Audit rows hold no secret: an invite is named by its id, never its code.
      target: created.id,
      requestId: c.get("requestId"),
      metadata: { expiresAt: created.expiresAt },
    });
    return c.json(created, 201);
  });
  mountRoute(app, adminApi.revokeInvite, async (c, { params }) => {
    const outcome = await revokeInvite(db, params.id);
    if (outcome === "unknown") throw notFound("invite code");
    if (outcome === "used") throw new HTTPException(409, { message: "the invite code was used already" });
    await writeAudit(db, {
      actorId: callerOf(c).userId,
      action: "admin.revoke-invite",
      target: params.id,
      requestId: c.get("requestId"),
    });
    return c.body(null, 204);
  });
  mountRoute(app, adminApi.getRegistration, async (c) => c.json({ mode: await getRegistrationMode(db) }));
  mountRoute(app, adminApi.setRegistration, async (c, { body }) => {
    await setRegistrationMode(db, body.mode);
    await writeAudit(db, {
      actorId: callerOf(c).userId,
      action: "admin.set-registration",
      target: body.mode,
      requestId: c.get("requestId"),
    });
    return c.json({ mode: body.mode });
  });
  return app;
}
