/**
 *   POST /api/auth/revoke-session   end one of the caller's sessions
 *
 * The vault's own, in place of the library's: sessions are stored as the SHA-256 of their token
 * (internal/auth's HashedSessionTokens), so list-sessions shows other sessions as `sha256:<hash>`,
 * which the library cannot look up. This route accepts that form or a token itself, and only ever
 * deletes a session of the caller.
 */
import { Hono } from "hono";
import type { Kysely } from "kysely";
import { z } from "zod";
import { callerOf, HASHED_TOKEN_PREFIX, sha256Hex } from "../../../internal/auth/mod.ts";
import type { VaultEnv } from "../env.ts";
import type { AccessEnded } from "../live/access_watch.ts";
import { defineRoute, mountRoute } from "../openapi/route_spec.ts";
import type { VaultDatabase } from "../store/db.ts";

export const sessionApi = {
  revoke: defineRoute({
    method: "post",
    path: "/api/auth/revoke-session",
    operationId: "authRevokeSession",
    tag: "auth",
    access: "session",
    summary: "End one of the caller's sessions",
    description: "`token` as GET /api/auth/list-sessions shows it (`sha256:<hash>`), or the token itself. " +
      "Another user's session, or none, is left alone; the answer is the same.",
    body: z.strictObject({ token: z.string().min(1).max(200) }),
    responses: { 200: { description: "done", schema: z.object({ status: z.literal(true) }) } },
  }),
};

export function sessionRoutes(
  { db, access }: { db: Kysely<VaultDatabase>; access?: AccessEnded },
): Hono<VaultEnv> {
  const app = new Hono<VaultEnv>();
  mountRoute(app, sessionApi.revoke, async (c, { body }) => {
    const hash = body.token.startsWith(HASHED_TOKEN_PREFIX)
      ? body.token.slice(HASHED_TOKEN_PREFIX.length)
      : sha256Hex(body.token);
    await db.deleteFrom("session").where("token", "=", hash).where("userId", "=", callerOf(c).userId)
      .execute();
    access?.ended([callerOf(c).userId]);
    return c.json({ status: true as const });
  });
  return app;
}
