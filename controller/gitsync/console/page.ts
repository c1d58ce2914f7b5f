/**
 * The console's browser app (web/gitsync, bundled by scripts/lib/console_bundle.ts into
 * .cache/web/gitsync and embedded in dist/gitsync-manager), its page, and the strict CSP of seed 5.5.
 */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { loadWebFiles, type WebAsset, webAsset } from "../../../internal/web/mod.ts";

/** Exactly the policy of seed 5.5: nothing inline, nothing from elsewhere, never framed. */
export const CONSOLE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "frame-ancestors 'none'",
  "form-action 'self'",
  "base-uri 'none'",
].join("; ");

export const CONSOLE_BASE = "/ui";
const FROM_SOURCE = join(
  dirname(fileURLToPath(import.meta.url)),
  "..",
  "..",
  "..",
  ".cache",
  "web",
  "gitsync",
);

export interface ConsoleBundle {
  js: WebAsset;
  css: WebAsset;
}

/** The embedded bundle, else the one in .cache/web/gitsync, else undefined (not built). */
export async function loadConsoleBundle(dir = FROM_SOURCE): Promise<ConsoleBundle | undefined> {
  const files = await loadWebFiles(["gitsync.js", "gitsync.css"], dir);
  if (!files) return undefined;
  return {
    js: webAsset(files["gitsync.js"]!, "text/javascript; charset=utf-8"),
    css: webAsset(files["gitsync.css"]!, "text/css; charset=utf-8"),
  };
}

/** The tab's icon, so browsers do not ask for /favicon.ico. */
export const CONSOLE_ICON = new TextEncoder().encode(
  `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#2b6cb0"/>` +
    `<circle cx="10" cy="10" r="3.5" fill="#fff"/><circle cx="10" cy="22" r="3.5" fill="#fff"/>` +
    `<circle cx="22" cy="16" r="3.5" fill="#fff"/><path d="M10 10v12M10 13q0 3 12 3" fill="none" stroke="#fff" stroke-width="2"/></svg>`,
);

export function consolePage(bundle: ConsoleBundle): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>gitsync console</title>
<link rel="icon" href="${CONSOLE_BASE}/assets/icon.svg" type="image/svg+xml">
<link rel="stylesheet" href="${CONSOLE_BASE}/assets/gitsync.${bundle.css.hash}.css">
<script type="module" src="${CONSOLE_BASE}/assets/gitsync.${bundle.js.hash}.js"></script>
</head>
<body>
<div id="app"><noscript>The gitsync console needs JavaScript.</noscript></div>
</body>
</html>
`;
}
