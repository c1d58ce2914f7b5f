/**
 * A signed-in user's own API tokens: mint (the plaintext is shown once), list (hashes only) and
 * delete. These need a dashboard session (cookie or ns_ bearer): an nm_ token cannot mint more tokens.
 */
import { Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import type { Kysely } from "kysely";
import { z } from "zod";
import { parseJson } from "../../../internal/http/mod.ts";
import { writeAudit } from "../audit/audit_log.ts";
import { callerOf } from "../auth/caller.ts";
import { requireSession } from "../auth/require.ts";
import type { MemsvcEnv } from "../env.ts";
import type { MemsvcDatabase } from "../store/db.ts";
import type { TokenStore } from "../tokens/api_tokens.ts";

export interface MeTokenRoutesDeps {
  tokens: TokenStore;
  db: Kysely<MemsvcDatabase>;
}

const createBody = z.object({ label: z.string() });
const tokenHashParam = z.object({
  tokenHash: z.string().regex(/^[0-9a-f]{64}$/, "tokenHash must be 64 lowercase hex characters"),
});

export function meTokenRoutes({ tokens, db }: MeTokenRoutesDeps): Hono<MemsvcEnv> {
  return new Hono<MemsvcEnv>()
    .post("/v1/me/tokens", requireSession(), async (c) => {
      const caller = callerOf(c);
      const { label } = await parseJson(c, createBody);
      const issued = await tokens.create(caller.userId, label);
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
    })
    .get("/v1/me/tokens", requireSession(), async (c) => {
      return c.json({ tokens: await tokens.list(callerOf(c).userId) });
    })
    .delete("/v1/me/tokens/:tokenHash", requireSession(), async (c) => {
      const caller = callerOf(c);
      const { tokenHash } = tokenHashParam.parse(c.req.param());
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
}
