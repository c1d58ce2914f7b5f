/**
 * A single-page app under one path, served under a strict Content-Security-Policy:
 *
 *   GET <base>, <base>/*          the page (every client-side route gets the same HTML), revalidated
 *   GET <base>/assets/<name>      the app's files by name; a content-hashed name is cached for good
 *
 * Anything else below <base>/assets answers 404 (JSON); every answer carries the CSP.
 *
 * @example
 * app.route("/", spaRoutes({
 *   base: "/admin", csp: "default-src 'none'; script-src 'self'",
 *   assets: { [`admin.${js.hash}.js`]: { asset: js, immutable: true } },
 *   page: html, notBuilt: "Run `deno task build memsvc`.\n",
 * }));
 */
import { type Context, Hono, type MiddlewareHandler } from "hono";
import type { AppEnv } from "../http/mod.ts";
import type { WebAsset } from "./web_asset.ts";

export interface ServedAsset {
  asset: Pick<WebAsset, "body" | "type">;
  /** True for a content-hashed name: cached for a year. Otherwise `maxAgeSeconds` (default 0). */
  immutable?: boolean;
  maxAgeSeconds?: number;
}

export interface SpaRoutesOptions {
  /** Where the app lives, e.g. "/admin". */
  base: string;
  /** The Content-Security-Policy of the page and of every file. */
  csp: string;
  /** The files below `<base>/assets/`, by name. */
  assets: Record<string, ServedAsset>;
  /** The page's HTML; undefined when the app is not built. */
  page: string | undefined;
  /** The 503 text answered for the page when it is not built: say how to build it. */
  notBuilt: string;
  /**
   * The client-side routes that get the page. Default `<base>` and everything below it; an app at
   * the root ("/") names its few routes, so the API's unknown paths still answer 404.
   */
  pages?: readonly string[];
}

export function spaRoutes(options: SpaRoutesOptions): Hono<AppEnv> {
  const { base, csp, assets, page, notBuilt } = options;
  const prefix = base === "/" ? "" : base;
  const pages = options.pages ?? [base, `${base}/*`];
  const withCsp: MiddlewareHandler<AppEnv> = async (c, next) => {
    await next();
    c.header("Content-Security-Policy", csp);
  };
  const app = new Hono<AppEnv>();
  for (const path of [...pages, `${prefix}/assets/*`]) app.use(path, withCsp);
  app.get(`${prefix}/assets/:file`, (c) => {
    const served = Object.hasOwn(assets, c.req.param("file")) ? assets[c.req.param("file")] : undefined;
    if (!served) return c.json({ error: "not found" }, 404);
    return c.body(served.asset.body, 200, {
      "content-type": served.asset.type,
      // A hashed name changes with the content, so a copy never goes stale.
      "cache-control": served.immutable
        ? "public, max-age=31536000, immutable"
        : `public, max-age=${served.maxAgeSeconds ?? 0}`,
    });
  });
  const servePage = (c: Context<AppEnv>) => {
    if (page === undefined) return c.text(notBuilt, 503);
    // The page names the current files; it must be revalidated so an upgrade takes effect.
    return c.html(page, 200, { "cache-control": "no-cache" });
  };
  for (const path of pages) app.get(path, servePage);
  return app;
}
