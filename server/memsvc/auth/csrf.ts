/**
 * Cross-site request forgery guard for cookie-authenticated /v1 routes. The session cookie is
 * SameSite=Lax, which already keeps it off cross-site POSTs in current browsers; this check also
 * covers older browsers and same-site-but-cross-origin pages: an unsafe request authenticated by
 * cookie must come from the service's own origin (MEMSVC_BASE_URL) or an allowlisted one.
 * Bearer-authenticated requests are not affected: a browser never attaches those on its own.
 */
import type { MiddlewareHandler } from "hono";
import { HTTPException } from "hono/http-exception";
import type { MemsvcEnv } from "../env.ts";

const SAFE = new Set(["GET", "HEAD", "OPTIONS"]);

export function csrfGuard(trustedOrigins: readonly string[]): MiddlewareHandler<MemsvcEnv> {
  const trusted = new Set(trustedOrigins.map((o) => new URL(o).origin));
  return async (c, next) => {
    if (c.get("caller")?.via === "cookie" && !SAFE.has(c.req.method)) {
      const origin = c.req.header("origin");
      const site = c.req.header("sec-fetch-site");
      const foreign = origin ? !trusted.has(origin) : site === "cross-site" || site === "same-site";
      if (foreign) throw new HTTPException(403, { message: "cross-origin request refused" });
    }
    await next();
  };
}
