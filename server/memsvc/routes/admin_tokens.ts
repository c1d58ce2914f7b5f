/**
 * Admin revocation of any user's API token by its plaintext: the path for a token found leaked in a
 * log or a repository, where the owner may be unknown. Needs an admin's session.
 */
import { Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import type { Kysely } from "kysely";
import { z } from "zod";
import { parseJson } from "../../../internal/http/mod.ts";
import { writeAudit } from "../audit/audit_log.ts";
import { callerOf } from "../auth/caller.ts";
import { requireAdmin } from "../auth/require.ts";
import type { MemsvcEnv } from "../env.ts";
import type { MemsvcDatabase } from "../store/db.ts";
import { TOKEN_PREFIX, type TokenStore } from "../tokens/api_tokens.ts";

export interface AdminTokenRoutesDeps {
  tokens: TokenStore;
  db: Kysely<MemsvcDatabase>;
}

const revokeBody = z.object({
  token: z.string().startsWith(TOKEN_PREFIX, `token must be an API token starting with ${TOKEN_PREFIX}`),
});

export function adminTokenRoutes({ tokens, db }: AdminTokenRoutesDeps): Hono<MemsvcEnv> {
  return new Hono<MemsvcEnv>().post("/v1/admin/tokens/revoke", requireAdmin(), async (c) => {
    const { token } = await parseJson(c, revokeBody);
    const revoked = await tokens.revoke(token);
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
