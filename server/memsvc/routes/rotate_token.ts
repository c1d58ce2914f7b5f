/**
 * Token rotation for the CLI and device paths: an agent host trades the nm_ token it holds for a
 * new one without a dashboard session. The old token stops working in the same transaction that
 * creates the new one, and rotations are rate limited per user so a stolen token cannot churn.
 */
import { Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import type { Kysely } from "kysely";
import { writeAudit } from "../../../internal/audit/mod.ts";
import { callerOf } from "../../../internal/auth/mod.ts";
import { rateLimit, TokenBuckets } from "../../../internal/http/mod.ts";
import type { MemsvcEnv } from "../env.ts";
import { defineRoute, mountRoute } from "../openapi/route_spec.ts";
import type { MemsvcDatabase } from "../store/db.ts";
import type { TokenStore } from "../tokens/api_tokens.ts";
import { issuedToken } from "../tokens/schemas.ts";

export interface RotateTokenRoutesDeps {
  tokens: TokenStore;
  db: Kysely<MemsvcDatabase>;
  /** Keyed by user id. Default: 10 rotations per user per hour (10 at once, one more every 6 minutes). */
  rotateLimiter?: TokenBuckets;
}

export const rotateTokenApi = {
  rotate: defineRoute({
    method: "post",
    path: "/v1/auth/rotate-token",
    operationId: "rotateToken",
    tag: "tokens",
    access: "api-token",
    summary: "Trade the nm_ token in use for a new one",
    description: "For CLI and device paths: the old token stops working when the new one is created. " +
      "At most 10 rotations per user per hour.",
    responses: { 200: { description: "the new token (Cache-Control: no-store)", schema: issuedToken } },
    errors: [429],
  }),
};

export function rotateTokenRoutes(deps: RotateTokenRoutesDeps): Hono<MemsvcEnv> {
  const { tokens, db } = deps;
  const app = new Hono<MemsvcEnv>();
  app.use(
    rotateTokenApi.rotate.path,
    rateLimit<MemsvcEnv>({
      buckets: deps.rotateLimiter ?? TokenBuckets.perPeriod(10, 60 * 60_000),
      key: (c) => c.get("caller")?.userId,
    }),
  );
  return mountRoute(app, rotateTokenApi.rotate, async (c) => {
    const caller = callerOf(c);
    // The guard (requireApiToken) let only an API token through, so its hash is set.
    const issued = await tokens.rotate(caller.tokenHash!);
    // Deleted or rotated by a concurrent request since this one was authenticated.
    if (!issued) throw new HTTPException(401, { message: "unauthorized" });
    await writeAudit(db, {
      actorId: caller.userId,
      action: "token.rotate",
      target: issued.tokenHash,
      requestId: c.get("requestId"),
      metadata: { previousTokenHash: caller.tokenHash! },
    });
    c.header("Cache-Control", "no-store");
    return c.json(issued);
  });
}
