/**
 * A browser app's bundle (web/<app>: <app>.js and <app>.css, built by scripts/lib/web_bundle.ts) and
 * the one HTML page that loads it: no inline script or style, so the strict CSPs hold.
 *
 * @example
 * const bundle = await loadAppBundle("gitsync");              // undefined when not built
 * const html = appPage({ app: "gitsync", base: "/ui", title: "gitsync console", bundle });
 */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { ServedAsset } from "./spa_routes.ts";
import { loadWebFiles, type WebAsset, webAsset } from "./web_asset.ts";

export interface AppBundle {
  js: WebAsset;
  css: WebAsset;
}

/** Where a bundle lies when running from source: .cache/web/<app> at the repository's root. */
export function sourceBundleDir(app: string): string {
  return join(dirname(fileURLToPath(import.meta.url)), "..", "..", ".cache", "web", app);
}

/** The app's files embedded in the binary, else from `dir` (default: from source); undefined when not built. */
export async function loadAppBundle(app: string, dir = sourceBundleDir(app)): Promise<AppBundle | undefined> {
  const files = await loadWebFiles([`${app}.js`, `${app}.css`], dir);
  if (!files) return undefined;
  return {
    js: webAsset(files[`${app}.js`]!, "text/javascript; charset=utf-8"),
    css: webAsset(files[`${app}.css`]!, "text/css; charset=utf-8"),
  };
}

/**
 * The files an app's page loads, for spaRoutes' `assets`: its icon (an SVG, cached for a day) and,
 * when the app is built, its script and stylesheet under their content-hashed names.
 */
export function appAssets(
  app: string,
  bundle: AppBundle | undefined,
  iconSvg: string,
): Record<string, ServedAsset> {
  const icon = { body: new TextEncoder().encode(iconSvg), type: "image/svg+xml" };
  return {
    "icon.svg": { asset: icon, maxAgeSeconds: 86400 },
    ...(bundle
      ? {
        [`${app}.${bundle.js.hash}.js`]: { asset: bundle.js, immutable: true },
        [`${app}.${bundle.css.hash}.css`]: { asset: bundle.css, immutable: true },
      }
      : {}),
  };
}

const escapeAttr = (s: string) => s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);

export interface AppPageOptions {
  app: string;
  /** Where the app is served (/admin, /ui); its assets are under <base>/assets/. */
  base: string;
  title: string;
  bundle: AppBundle;
  /** <meta name content> values the app reads at start (escaped). */
  meta?: Record<string, string>;
}

/** Every client-side route gets this page; the asset names carry their content hash. */
export function appPage(o: AppPageOptions): string {
  const meta = Object.entries(o.meta ?? {})
    .map(([name, content]) => `<meta name="${escapeAttr(name)}" content="${escapeAttr(content)}">\n`).join(
      "",
    );
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
${meta}<title>${escapeAttr(o.title)}</title>
<link rel="icon" href="${o.base}/assets/icon.svg" type="image/svg+xml">
<link rel="stylesheet" href="${o.base}/assets/${o.app}.${o.bundle.css.hash}.css">
<script type="module" src="${o.base}/assets/${o.app}.${o.bundle.js.hash}.js"></script>
</head>
<body>
<div id="app"><noscript>The ${escapeAttr(o.title)} page needs JavaScript.</noscript></div>
</body>
</html>
`;
}
