/**
 * The dashboard at /admin: a single-page app (web/admin, bundled by
 * scripts/lib/web_bundle.ts) served under a strict Content-Security-Policy.
 *
 *   GET /admin, /admin/*            the page (every client-side route gets the same HTML)
 *   GET /admin/assets/admin.<h>.js  the bundle; <h> is its content hash, so it is cached for a year
 *   GET /admin/assets/admin.<h>.css
 *
 * A compiled binary reads the bundle from its embedded files; from source it is read from
 * .cache/web/admin (built by `deno task build memsvc`, or by bundleWebApp()).
 */
import { type Context, Hono } from "hono";
import type { AppEnv } from "../../../internal/http/mod.ts";
import {
  appAssets,
  type AppBundle,
  appPage,
  loadAppBundle,
  spaRoutes,
  type WebAsset,
} from "../../../internal/web/mod.ts";

/** No inline script or style, nothing from another origin, never framed. */
export const DASHBOARD_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "manifest-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'self'",
].join("; ");

export type DashboardAsset = WebAsset;
export type DashboardBundle = AppBundle;

/** The embedded bundle, else the one in .cache/web/admin, else undefined (not built). */
export const loadDashboardBundle = (dir?: string) => loadAppBundle("admin", dir);

const ICON =
  `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#3b5bdb"/>` +
  `<circle cx="11" cy="12" r="4" fill="#fff"/><circle cx="22" cy="10" r="3" fill="#fff"/>` +
  `<circle cx="19" cy="22" r="4" fill="#fff"/><path d="M11 12 22 10 19 22Z" fill="none" stroke="#fff" stroke-width="1.5"/></svg>`;

function page(bundle: DashboardBundle, authMode: string, origins: readonly string[]): string {
  return appPage({
    app: "admin",
    base: "/admin",
    title: "memsvc",
    bundle,
    meta: {
      "memsvc-auth-mode": authMode,
      "memsvc-origins": origins.map((o) => new URL(o).origin).join(" "),
    },
  });
}

export interface DashboardRoutesDeps {
  /** MEMSVC_AUTH_MODE, told to the page so it knows whether and how to sign in. */
  authMode: "user" | "bearer" | "none";
  /** MEMSVC_ADMIN_DASHBOARD: false turns /admin off (404). */
  enabled: boolean;
  bundle: DashboardBundle | undefined;
  /**
   * MEMSVC_BASE_URL and MEMSVC_CORS_ORIGINS: the origins whose writes the CSRF check accepts. The
   * page warns when it is opened elsewhere, where sign-in and every change would be refused.
   */
  origins?: readonly string[];
}

export function dashboardRoutes(
  { authMode, enabled, bundle, origins = [] }: DashboardRoutesDeps,
): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  if (!enabled) {
    const disabled = (c: Context<AppEnv>) =>
      c.json({ error: "admin dashboard is disabled (MEMSVC_ADMIN_DASHBOARD=0)" }, 404);
    app.all("/admin", disabled);
    app.all("/admin/*", disabled);
    return app;
  }
  return spaRoutes({
    base: "/admin",
    csp: DASHBOARD_CSP,
    assets: appAssets("admin", bundle, ICON),
    page: bundle && page(bundle, authMode, origins),
    notBuilt:
      "The dashboard is not built. Run `deno task build memsvc` (it bundles the dashboard into .cache/web/admin).\n",
  });
}
