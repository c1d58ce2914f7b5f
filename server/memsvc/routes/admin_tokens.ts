/**
 * Admin revocation of any user's API token by its plaintext: the path for a token found leaked in a
 * log or a repository, where the owner may be unknown. Needs an admin's session.
 */
import { Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import type { Kysely } from "kysely";
import { writeAudit } from "../../../internal/audit/mod.ts";
import { callerOf } from "../../../internal/auth/mod.ts";
import type { MemsvcEnv } from "../env.ts";
import { defineRoute, mountRoute } from "../openapi/route_spec.ts";
import type { MemsvcDatabase } from "../store/db.ts";
import type { TokenStore } from "../tokens/api_tokens.ts";
import { revokedToken, revokeTokenBody } from "../tokens/schemas.ts";

export interface AdminTokenRoutesDeps {
  tokens: TokenStore;
  db: Kysely<MemsvcDatabase>;
}

export const adminTokenApi = {
  revoke: defineRoute({
    method: "post",
    path: "/v1/admin/tokens/revoke",
    operationId: "adminRevokeToken",
    tag: "admin",
    access: "admin",
    summary: "Revoke any user's API token by its plaintext",
    description: "For a token found leaked in a log or a repository, whoever owns it.",
    body: revokeTokenBody,
    responses: { 200: { description: "revoked; the token now gives 401", schema: revokedToken } },
    errors: [404],
  }),
};

export function adminTokenRoutes({ tokens, db }: AdminTokenRoutesDeps): Hono<MemsvcEnv> {
  return mountRoute(new Hono<MemsvcEnv>(), adminTokenApi.revoke, async (c, { body }) => {
    const revoked = await tokens.revoke(body.token);
    if (!revoked) throw new HTTPException(404, { message: "no such token" });
    await writeAudit(db, {
      actorId: callerOf(c).userId,
      action: "token.revoke",
      target: revoked.tokenHash,
      requestId: c.get("requestId"),
      metadata: { ownerId: revoked.userId },
    });
    return c.json({ revoked: true, tokenHash: revoked.tokenHash });
  });
}
