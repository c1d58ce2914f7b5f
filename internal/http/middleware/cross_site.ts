/**
 * Refuses cross-site writes (gitsync's console, seed 5.5 and 7; edgectl web): a request other than
 * GET/HEAD is answered 403 when the
 * browser says it is cross-site (Sec-Fetch-Site other than same-origin) or, for browsers that do not
 * send Sec-Fetch-Site, when its Origin is not this server's. Together with SameSite=Lax cookies this
 * keeps other sites from signing a browser in or out.
 *
 * @example
 * app.use(refuseCrossSiteWrites());
 */
import type { MiddlewareHandler } from "hono";

export function refuseCrossSiteWrites(): MiddlewareHandler {
  return async (c, next) => {
    if (c.req.method === "GET" || c.req.method === "HEAD") return await next();
    const site = c.req.header("sec-fetch-site");
    const origin = c.req.header("origin");
    let crossSite = false;
    if (site !== undefined) crossSite = site !== "same-origin";
    else if (origin !== undefined) {
      try {
        crossSite = origin === "null" ||
          new URL(origin).host !== (c.req.header("host") ?? new URL(c.req.url).host);
      } catch {
        crossSite = true;
      }
    }
    if (crossSite) return c.json({ error: "cross-site request refused" }, 403);
    await next();
  };
}
