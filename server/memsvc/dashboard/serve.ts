/**
 * The dashboard at /admin: a single-page app (web/admin, bundled by
 * scripts/lib/dashboard.ts) served under a strict Content-Security-Policy.
 *
 *   GET /admin, /admin/*            the page (every client-side route gets the same HTML)
 *   GET /admin/assets/admin.<h>.js  the bundle; <h> is its content hash, so it is cached for a year
 *   GET /admin/assets/admin.<h>.css
 *
 * A compiled binary reads the bundle from its embedded files; from source it is read from
 * .cache/web/admin (built by `deno task build memsvc`, or by bundleDashboard()).
 */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { type Context, Hono } from "hono";
import type { AppEnv } from "../../../internal/http/mod.ts";
import { loadWebFiles, spaRoutes, type WebAsset, webAsset } from "../../../internal/web/mod.ts";

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

const FROM_SOURCE = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..", ".cache", "web", "admin");

export type DashboardAsset = WebAsset;

export interface DashboardBundle {
  js: DashboardAsset;
  css: DashboardAsset;
}

/** The embedded bundle, else the one in .cache/web/admin, else undefined (not built). */
export async function loadDashboardBundle(dir = FROM_SOURCE): Promise<DashboardBundle | undefined> {
  const files = await loadWebFiles(["admin.js", "admin.css"], dir);
  if (!files) return undefined;
  return {
    js: webAsset(files["admin.js"]!, "text/javascript; charset=utf-8"),
    css: webAsset(files["admin.css"]!, "text/css; charset=utf-8"),
  };
}

const ICON =
  `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#3b5bdb"/>` +
  `<circle cx="11" cy="12" r="4" fill="#fff"/><circle cx="22" cy="10" r="3" fill="#fff"/>` +
  `<circle cx="19" cy="22" r="4" fill="#fff"/><path d="M11 12 22 10 19 22Z" fill="none" stroke="#fff" stroke-width="1.5"/></svg>`;

const escapeAttr = (s: string) => s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);

function page(bundle: DashboardBundle, authMode: string, origins: readonly string[]): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<meta name="memsvc-auth-mode" content="${authMode}">
<meta name="memsvc-origins" content="${escapeAttr(origins.map((o) => new URL(o).origin).join(" "))}">
<title>memsvc</title>
<link rel="icon" href="/admin/assets/icon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/admin/assets/admin.${bundle.css.hash}.css">
<script type="module" src="/admin/assets/admin.${bundle.js.hash}.js"></script>
</head>
<body>
<div id="app"><noscript>The memsvc dashboard needs JavaScript.</noscript></div>
</body>
</html>
`;
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
  const icon = { body: new TextEncoder().encode(ICON), type: "image/svg+xml" };
  return spaRoutes({
    base: "/admin",
    csp: DASHBOARD_CSP,
    assets: {
      "icon.svg": { asset: icon, maxAgeSeconds: 86400 },
      ...(bundle
        ? {
          [`admin.${bundle.js.hash}.js`]: { asset: bundle.js, immutable: true },
          [`admin.${bundle.css.hash}.css`]: { asset: bundle.css, immutable: true },
        }
        : {}),
    },
    page: bundle && page(bundle, authMode, origins),
    notBuilt:
      "The dashboard is not built. Run `deno task build memsvc` (it bundles the dashboard into .cache/web/admin).\n",
  });
}
