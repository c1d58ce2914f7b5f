/**
 * The dashboard's files (web/edgectl, bundled by scripts/lib/edgectl_web_bundle.ts into
 * .cache/web/edgectl and embedded in dist/edgectl) and the HTML page that names them by content hash.
 */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { loadWebFiles, type WebAsset, webAsset } from "../../../internal/web/mod.ts";

const FROM_SOURCE = join(
  dirname(fileURLToPath(import.meta.url)),
  "..",
  "..",
  "..",
  ".cache",
  "web",
  "edgectl",
);

export interface WebBundle {
  js: WebAsset;
  css: WebAsset;
}

/** The embedded bundle, else the one in .cache/web/edgectl, else undefined (not built). */
export async function loadWebBundle(dir = FROM_SOURCE): Promise<WebBundle | undefined> {
  const files = await loadWebFiles(["edgectl.js", "edgectl.css"], dir);
  if (!files) return undefined;
  return {
    js: webAsset(files["edgectl.js"]!, "text/javascript; charset=utf-8"),
    css: webAsset(files["edgectl.css"]!, "text/css; charset=utf-8"),
  };
}

/** A gateway fanning out to two backends. */
export const ICON = new TextEncoder().encode(
  `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#2f5bd3"/>` +
    `<circle cx="9" cy="16" r="4" fill="#fff"/><circle cx="23" cy="9" r="3.5" fill="#fff"/>` +
    `<circle cx="23" cy="23" r="3.5" fill="#fff"/><path d="M9 16 23 9M9 16 23 23" stroke="#fff" stroke-width="2"/></svg>`,
);

export function webPage(bundle: WebBundle): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>edgectl</title>
<link rel="icon" href="/ui/assets/icon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/ui/assets/edgectl.${bundle.css.hash}.css">
<script type="module" src="/ui/assets/edgectl.${bundle.js.hash}.js"></script>
</head>
<body>
<div id="app"><noscript>The edgectl dashboard needs JavaScript.</noscript></div>
</body>
</html>
`;
}
