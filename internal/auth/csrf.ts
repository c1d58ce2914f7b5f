/**
 * Cross-site request forgery guard for cookie-authenticated routes. The session cookie is
 * SameSite=Lax, which already keeps it off cross-site POSTs in current browsers; this check also
 * covers older browsers and same-site-but-cross-origin pages: an unsafe request authenticated by
 * cookie must come from the service's own origin or an allowlisted one. With `requireHeader`, it
 * must also carry that header (e.g. `X-Requested-With`), which a form or a simple cross-origin
 * request cannot set. Bearer-authenticated requests are not affected: a browser never attaches
 * those on its own.
 *
 * @example
 * api.use("/api/*", callers, csrfGuard({ trustedOrigins: [baseUrl], requireHeader: "X-Requested-With" }));
 */
import type { MiddlewareHandler } from "hono";
import { HTTPException } from "hono/http-exception";
import type { AuthEnv } from "./caller.ts";

const SAFE = new Set(["GET", "HEAD", "OPTIONS"]);

export interface CsrfOptions {
  /** The service's public origin and any other origin allowed to write with a cookie. */
  trustedOrigins: readonly string[];
  /** A header every cookie-authenticated write must carry (any value). Default: none needed. */
  requireHeader?: string;
}

export function csrfGuard(options: CsrfOptions): MiddlewareHandler<AuthEnv> {
  const trusted = new Set(options.trustedOrigins.map((o) => new URL(o).origin));
  const { requireHeader } = options;
  return async (c, next) => {
    if (c.get("caller")?.via === "cookie" && !SAFE.has(c.req.method)) {
      const origin = c.req.header("origin");
      const site = c.req.header("sec-fetch-site");
      const foreign = origin ? !trusted.has(origin) : site === "cross-site" || site === "same-site";
      if (foreign) throw new HTTPException(403, { message: "cross-origin request refused" });
      if (requireHeader && !c.req.header(requireHeader)) {
        throw new HTTPException(403, {
          message: `cookie-authenticated writes need the ${requireHeader} header`,
        });
      }
    }
    await next();
  };
}
