/**
 * The vault web app (web/vault, bundled by scripts/lib/web_bundle.ts) at the root of the service:
 *
 *   GET /, /settings, /admin        the page (the app's client-side routes)
 *   GET /assets/vault.<h>.js|css    the bundle, named by content hash and cached for good
 *
 * The page tells the app which OAuth providers are configured (meta `vault-oauth`), so it only
 * offers the buttons that work. Every other path stays the API's (unknown ones answer 404 JSON).
 */
import type { Hono } from "hono";
import type { AppEnv } from "../../../internal/http/mod.ts";
import { appAssets, type AppBundle, appPage, loadAppBundle, spaRoutes } from "../../../internal/web/mod.ts";

/** The embedded bundle, else .cache/web/vault when running from source; undefined when not built. */
export const loadVaultWebBundle = (dir?: string) => loadAppBundle("vault", dir);

/** The client-side routes that get the page. */
export const WEB_APP_PAGES = ["/", "/settings", "/admin"] as const;

const ICON = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">` +
  `<rect width="32" height="32" rx="7" fill="#5b4bdb"/>` +
  `<path d="M9 8h14v16H9z" fill="#fff"/><path d="M12 12h8M12 16h8M12 20h5" stroke="#5b4bdb" stroke-width="2"/>` +
  `</svg>`;

export interface WebAppRoutesDeps {
  bundle: AppBundle | undefined;
  /** The page's Content-Security-Policy (the vault's own). */
  csp: string;
  /** The configured OAuth providers, e.g. ["github"]. */
  oauthProviders: readonly string[];
}

export function webAppRoutes({ bundle, csp, oauthProviders }: WebAppRoutesDeps): Hono<AppEnv> {
  return spaRoutes({
    base: "/",
    csp,
    pages: WEB_APP_PAGES,
    assets: appAssets("vault", bundle, ICON),
    page: bundle &&
      appPage({
        app: "vault",
        base: "",
        title: "vault",
        bundle,
        meta: { "vault-oauth": oauthProviders.join(" ") },
      }),
    notBuilt:
      "The web app is not built. Run `deno task build vault` (it bundles web/vault into .cache/web/vault).\n",
  });
}
