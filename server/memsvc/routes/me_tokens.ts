/**
 * A signed-in user's own API tokens: mint (the plaintext is shown once), list (hashes only) and
 * delete. These need a dashboard session (cookie or ns_ bearer): an nm_ token cannot mint more tokens.
 */
import { Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import type { Kysely } from "kysely";
import { writeAudit } from "../../../internal/audit/mod.ts";
import { callerOf } from "../../../internal/auth/mod.ts";
import type { MemsvcEnv } from "../env.ts";
import { deletedResponse } from "../memory/schemas.ts";
import { defineRoute, mountRoute } from "../openapi/route_spec.ts";
import type { MemsvcDatabase } from "../store/db.ts";
import type { TokenStore } from "../tokens/api_tokens.ts";
import { createTokenBody, issuedToken, tokenHashParam, tokenList } from "../tokens/schemas.ts";

export interface MeTokenRoutesDeps {
  tokens: TokenStore;
  db: Kysely<MemsvcDatabase>;
}

const tag = "tokens";

export const meTokenApi = {
  create: defineRoute({
    method: "post",
    path: "/v1/me/tokens",
    operationId: "createToken",
    tag,
    access: "session",
    summary: "Mint an API token",
    description: "The plaintext `nm_` token is in this answer only (Cache-Control: no-store).",
    body: createTokenBody,
    responses: { 201: { description: "the new token", schema: issuedToken } },
  }),
  list: defineRoute({
    method: "get",
    path: "/v1/me/tokens",
    operationId: "listTokens",
    tag,
    access: "session",
    summary: "The caller's API tokens, by hash",
    responses: { 200: { description: "the tokens, newest first", schema: tokenList } },
  }),
  delete: defineRoute({
    method: "delete",
    path: "/v1/me/tokens/:tokenHash",
    operationId: "deleteToken",
    tag,
    access: "session",
    summary: "Delete one of the caller's tokens",
    params: tokenHashParam,
    responses: { 200: { description: "deleted; the token now gives 401", schema: deletedResponse } },
    errors: [404],
  }),
};

export function meTokenRoutes({ tokens, db }: MeTokenRoutesDeps): Hono<MemsvcEnv> {
  const app = new Hono<MemsvcEnv>();
  mountRoute(app, meTokenApi.create, async (c, { body }) => {
    const caller = callerOf(c);
    const issued = await tokens.create(caller.userId, body.label);
    await writeAudit(db, {
      actorId: caller.userId,
      action: "token.create",
      target: issued.tokenHash,
      requestId: c.get("requestId"),
      metadata: { label: issued.label },
    });
    // The plaintext is in this body only; no cache may keep it.
    c.header("Cache-Control", "no-store");
    return c.json(issued, 201);
  });
  mountRoute(app, meTokenApi.list, async (c) => c.json({ tokens: await tokens.list(callerOf(c).userId) }));
  mountRoute(app, meTokenApi.delete, async (c, { params: { tokenHash } }) => {
    const caller = callerOf(c);
    if (!(await tokens.delete(caller.userId, tokenHash))) {
      throw new HTTPException(404, { message: "no such token" });
    }
    await writeAudit(db, {
      actorId: caller.userId,
      action: "token.delete",
      target: tokenHash,
      requestId: c.get("requestId"),
    });
    return c.json({ deleted: true });
  });
  return app;
}
