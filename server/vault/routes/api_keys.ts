/**
 *   POST   /api/api-keys       mint a key: {id, prefix, key, ...}; the key is shown this once
 *   GET    /api/api-keys       the caller's keys, without secrets
 *   DELETE /api/api-keys/:id   revoke one of them
 *   GET    /api/me             who the credential (session or key) stands for
 * Keys are managed from a signed-in session only: a key cannot mint more keys.
 */
import { Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import type { Kysely } from "kysely";
import { z } from "zod";
import { writeAudit } from "../../../internal/audit/mod.ts";
import { type ApiKeyStore, callerOf } from "../../../internal/auth/mod.ts";
import type { VaultEnv } from "../env.ts";
import type { AccessEnded } from "../live/access_watch.ts";
import { apiKey, listKeys, mintedKey, mintKey, mintKeyBody } from "../keys/api_keys.ts";
import { defineRoute, idParams, mountRoute } from "../openapi/route_spec.ts";
import type { VaultDatabase } from "../store/db.ts";

export const apiKeyApi = {
  mint: defineRoute({
    method: "post",
    path: "/api/api-keys",
    operationId: "mintApiKey",
    tag: "api-keys",
    access: "session",
    summary: "Mint an API key (256 bits, shown once, stored as SHA-256)",
    description: "Send it as `Authorization: Bearer <key>`. Each key may make 300 requests per 15 minutes.",
    body: mintKeyBody,
    responses: { 201: { description: "the key, with its secret this once", schema: mintedKey } },
  }),
  list: defineRoute({
    method: "get",
    path: "/api/api-keys",
    operationId: "listApiKeys",
    tag: "api-keys",
    access: "session",
    summary: "The caller's API keys, without secrets",
    responses: { 200: { description: "newest first", schema: z.object({ keys: z.array(apiKey) }) } },
  }),
  revoke: defineRoute({
    method: "delete",
    path: "/api/api-keys/:id",
    operationId: "revokeApiKey",
    tag: "api-keys",
    access: "session",
    summary: "Revoke one of the caller's API keys",
    params: idParams,
    responses: { 204: { description: "revoked" } },
    errors: [404],
  }),
  me: defineRoute({
    method: "get",
    path: "/api/me",
    operationId: "me",
    tag: "account",
    access: "caller",
    summary: "Who the credential stands for",
    responses: {
      200: {
        description: "the caller",
        schema: z.object({
          id: z.string(),
          email: z.string(),
          role: z.enum(["admin", "user"]),
          via: z.enum(["session", "api-key"]),
          scope: z.enum(["read", "read-write"]),
        }),
      },
    },
  }),
};

export function apiKeyRoutes(
  { db, keys, access }: { db: Kysely<VaultDatabase>; keys: ApiKeyStore; access?: AccessEnded },
): Hono<VaultEnv> {
  const app = new Hono<VaultEnv>();
  mountRoute(app, apiKeyApi.mint, async (c, { body }) => {
    const caller = callerOf(c);
    const minted = await mintKey(keys, caller.userId, body);
    await writeAudit(db, {
      actorId: caller.userId,
      action: "api-key.create",
      target: minted.id,
      requestId: c.get("requestId"),
      metadata: { scope: minted.scope, prefix: minted.prefix },
    });
    return c.json(minted, 201);
  });
  mountRoute(app, apiKeyApi.list, async (c) => c.json({ keys: await listKeys(keys, callerOf(c).userId) }));
  mountRoute(app, apiKeyApi.revoke, async (c, { params }) => {
    const caller = callerOf(c);
    if (!(await keys.revoke(caller.userId, params.id))) {
      throw new HTTPException(404, { message: "no such API key" });
    }
    access?.ended([caller.userId]);
    await writeAudit(db, {
      actorId: caller.userId,
      action: "api-key.revoke",
      target: params.id,
      requestId: c.get("requestId"),
    });
    return c.body(null, 204);
  });
  mountRoute(app, apiKeyApi.me, (c) => {
    const caller = callerOf(c);
    return c.json({
      id: caller.userId,
      email: caller.email,
      role: caller.role,
      via: caller.via === "api-token" ? "api-key" as const : "session" as const,
      scope: caller.scope ?? "read-write",
    });
  });
  return app;
}
